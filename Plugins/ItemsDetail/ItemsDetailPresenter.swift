import ItemsCatalog
import ViperKit

/// Turns an item into the detail screen and decides what each action does.
final class ItemsDetailPresenter: ViperPresenter {
  weak var view: (any ItemsDetailViewInput)?
  let interactor: any ItemsDetailInteractorInput
  let router: any ItemsDetailRouting
  /// The module output: tells the opener what changed.
  let output: any MessagePort

  init(interactor: any ItemsDetailInteractorInput, router: any ItemsDetailRouting, output: any MessagePort) {
    self.interactor = interactor
    self.router = router
    self.output = output
  }

  func lifecycle(_ event: LifecycleEvent) {
    if event == .attach { interactor.fetchItem() }
  }
}

extension ItemsDetailPresenter: ItemsDetailViewOutput {
  func didTapToggle() { interactor.toggleEnabled() }
  func didTapBack() { router.close() }
}

extension ItemsDetailPresenter: ItemsDetailInteractorOutput {
  func presentChanged(item: Item) {
    present(item: item)
    output.emit(ItemChanged(itemID: item.id, enabled: item.enabled))
  }

  func present(item: Item) {
    view?.display(
      .item(
        name: item.name,
        state: item.enabled ? Marker(.positive, "enabled") : Marker(.negative, "disabled"),
        date: ItemDateFormat.display(item.date),
        toggleTitle: item.enabled ? "Disable" : "Enable"))
  }

  func presentLoading(itemID: Int) {
    view?.display(.loading(itemID: itemID))
  }

  func presentProblem(reason: String, missing: Bool) {
    view?.display(.problem(heading: missing ? "Item not found" : "Item unavailable", message: reason))
  }
}
