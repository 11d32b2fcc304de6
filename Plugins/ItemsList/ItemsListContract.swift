import ItemsCatalog
import ViperKit

// The ItemsList module's contract: the protocols between its roles, its view
// models, and the contract data the host routes by.

/// View → Presenter: what the person did.
protocol ItemsListViewOutput: ViperPresenter {
  /// Asks whether to delete them all; nothing is deleted yet.
  func didTapDeleteAll()
  /// The answer: delete them all, or keep them.
  func didConfirmDeleteAll(_ confirmed: Bool)
  func didSelectItem(id: Int)
}

/// Presenter → View: what to draw.
protocol ItemsListViewInput: ViperView {
  func display(_ screen: ItemsListScreen)
}

/// Presenter → Interactor: what to do with the data.
protocol ItemsListInteractorInput: ViperInteractor {
  func fetchItems()
  func deleteAllItems()
}

/// Interactor → Presenter: what happened to the data.
protocol ItemsListInteractorOutput: ViperPresenter {
  /// The service is asked for the items.
  func presentLoading()
  func present(items: [Item])
  func presentDeleted(count: Int, remaining: [Item])
  /// The items service failed; `reason` says why.
  func presentUnavailable(reason: String)
}

/// Presenter → Router: where to go.
protocol ItemsListRouting: ViperRouter {
  func showDetail(itemID: Int)
}

/// An item as the view shows it: no `enabled`, a colour; no `Date`, a string.
struct ItemUI: ViperViewModel {
  let id: String
  let name: String
  let marker: Marker
  let date: String
}

/// Everything the list screen shows, handed to the view in full each time.
struct ItemsListScreen: ViperViewModel {
  let title: String
  let summary: String
  let items: [ItemUI]
  let notice: String?
  /// Why the items could not be shown, when they could not.
  let problem: String?
  /// Whether the items are being asked for.
  let loading: Bool
  /// Whether the screen asks to confirm deleting every item.
  let confirmingDeleteAll: Bool
}

enum ItemsListContract {
  static let contract = Contract(
    urn: "items:list",
    version: 1,
    summary: "All items with their state and date; select one for its detail, or delete them all.",
    services: [.notifications],
    opens: [.push("items:detail:{itemID}", arguments: ["itemID": .int])],
    requires: [.required(ItemsService.self, "1.0"..<"2")])

  /// The list element and button identifiers the view draws.
  static let listID = "items"
  static let deleteAllID = "deleteAll"
  /// The answers to "delete them all?".
  static let confirmDeleteAllID = "confirmDeleteAll"
  static let keepItemsID = "keepItems"
}
