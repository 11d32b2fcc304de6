import ItemsCatalog
import ViperKit

/// Turns items into the list screen and decides what each action does.
final class ItemsListPresenter: ViperPresenter {
  weak var view: (any ItemsListViewInput)?
  let interactor: any ItemsListInteractorInput
  let router: any ItemsListRouting
  /// The items shown last, drawn again while the person answers.
  private var items: [Item] = []
  /// Whether the screen asks to confirm deleting them all.
  private var confirmingDeleteAll = false

  init(interactor: any ItemsListInteractorInput, router: any ItemsListRouting) {
    self.interactor = interactor
    self.router = router
  }

  func lifecycle(_ event: LifecycleEvent) {
    if event == .attach { interactor.fetchItems() }
  }

  private func show(_ items: [Item], notice: String? = nil) {
    self.items = items
    if items.isEmpty { confirmingDeleteAll = false }
    let enabled = items.filter(\.enabled).count
    let summary = "\(items.count) \(items.count == 1 ? "item" : "items"), \(enabled) enabled"
    view?.display(
      ItemsListScreen(
        title: "Items", summary: summary, items: items.map(ItemsListPresenter.ui), notice: notice,
        confirmingDeleteAll: confirmingDeleteAll))
  }

  static func ui(_ item: Item) -> ItemUI {
    ItemUI(
      id: String(item.id), name: item.name,
      marker: item.enabled ? Marker(.positive, "enabled") : Marker(.negative, "disabled"),
      date: ItemDateFormat.display(item.date))
  }
}

extension ItemsListPresenter: ItemsListViewOutput {
  func didTapDeleteAll() {
    confirmingDeleteAll = true
    show(items)
  }

  func didConfirmDeleteAll(_ confirmed: Bool) {
    confirmingDeleteAll = false
    if confirmed { interactor.deleteAllItems() } else { show(items) }
  }
  func didSelectItem(id: Int) { router.showDetail(itemID: id) }
}

extension ItemsListPresenter: MessageReceiver {
  /// The detail this list opened reports a change: keep the list in step.
  func receive(_ message: Message, from origin: MessageOrigin) {
    // The change is saved where both modules read: show the list as it is now.
    if ItemChanged(message) != nil { interactor.fetchItems() }
  }
}

extension ItemsListPresenter: ItemsListInteractorOutput {
  func present(items: [Item]) { show(items) }

  func presentDeleted(count: Int, remaining: [Item]) {
    show(remaining, notice: "Deleted \(count) \(count == 1 ? "item" : "items").")
  }
}
