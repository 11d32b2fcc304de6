import ItemsCatalog
import ViperKit

/// Turns an item into the detail screen and decides what each action does.
final class ItemsDetailPresenter: ViperPresenter {
  weak var view: (any ItemsDetailViewInput)?
  let interactor: any ItemsDetailInteractorInput
  let router: any ItemsDetailRouting

  init(interactor: any ItemsDetailInteractorInput, router: any ItemsDetailRouting) {
    self.interactor = interactor
    self.router = router
  }
}

extension ItemsDetailPresenter: ItemsDetailViewOutput {
  func viewDidAttach() { interactor.fetchItem() }
  func didTapToggle() { interactor.toggleEnabled() }
  func didTapBack() { router.close() }
}

extension ItemsDetailPresenter: ItemsDetailInteractorOutput {
  func present(item: Item) {
    view?.display(
      .item(
        name: item.name,
        state: item.enabled ? Marker(.positive, "enabled") : Marker(.negative, "disabled"),
        date: ItemDateFormat.display(item.date),
        toggleTitle: item.enabled ? "Disable" : "Enable"))
  }

  func presentMissing(itemID: Int, known: [Int]) {
    let ids = known.map(String.init).joined(separator: ", ")
    view?.display(.missing(message: "There is no item \(itemID). Items: \(ids.isEmpty ? "none" : ids)."))
  }
}
