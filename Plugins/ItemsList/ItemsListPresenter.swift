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
  /// Whether the service has answered once.
  private var loaded = false

  init(interactor: any ItemsListInteractorInput, router: any ItemsListRouting) {
    self.interactor = interactor
    self.router = router
  }

  func lifecycle(_ event: LifecycleEvent) {
    if event == .attach { interactor.fetchItems() }
  }

  private func show(_ items: [Item], notice: String? = nil, problem: String? = nil, loading: Bool = false) {
    self.items = items
    if !loading { loaded = true }
    if items.isEmpty { confirmingDeleteAll = false }
    let enabled = items.filter(\.enabled).count
    let summary = "\(items.count) \(items.count == 1 ? "item" : "items"), \(enabled) enabled"
    view?.display(
      ItemsListScreen(
        title: "Items", summary: summary, items: items.map(ItemsListPresenter.ui), notice: notice, problem: problem,
        loading: loading, confirmingDeleteAll: confirmingDeleteAll))
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
    // The change is made by the items service: show the list as it is now.
    if ItemChanged(message) != nil { interactor.fetchItems() }
  }
}

extension ItemsListPresenter: ItemsListInteractorOutput {
  /// Says so only before the first answer: a refresh keeps the list shown.
  func presentLoading() {
    if !loaded { show(items, loading: true) }
  }

  func present(items: [Item]) { show(items) }

  func presentDeleted(count: Int, remaining: [Item]) {
    show(remaining, notice: "Deleted \(count) \(count == 1 ? "item" : "items").")
  }

  func presentUnavailable(reason: String) {
    show([], problem: reason)
  }
}
