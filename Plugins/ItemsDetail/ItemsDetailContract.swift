import ItemsCatalog
import ViperKit

// The ItemsDetail module's contract: the protocols between its roles, its view
// model, and the contract data the host routes by.

/// View → Presenter.
protocol ItemsDetailViewOutput: ViperPresenter {
  func didTapToggle()
  func didTapBack()
}

/// Presenter → View.
protocol ItemsDetailViewInput: ViperView {
  func display(_ screen: ItemDetailScreen)
}

/// Presenter → Interactor.
protocol ItemsDetailInteractorInput: ViperInteractor {
  func fetchItem()
  func toggleEnabled()
}

/// Interactor → Presenter.
protocol ItemsDetailInteractorOutput: ViperPresenter {
  func present(item: Item)
  func presentChanged(item: Item)
  /// The service is asked for the item.
  func presentLoading(itemID: Int)
  /// The item could not be shown: there is none (`missing`), or the
  /// service failed; `reason` says why.
  func presentProblem(reason: String, missing: Bool)
}

/// Presenter → Router.
protocol ItemsDetailRouting: ViperRouter {
  func close()
}

/// What the detail screen shows, handed to the view in full each time.
enum ItemDetailScreen: ViperViewModel {
  case loading(itemID: Int)
  case item(name: String, state: Marker, date: String, toggleTitle: String)
  case problem(heading: String, message: String)
}

enum ItemsDetailContract {
  static let contract = Contract(
    urn: "items:detail:{itemID}",
    version: 1,
    summary: "One item: its name, state and creation date; enable or disable it.",
    arguments: [.required("itemID", .int, "The id of the item to show, as listed by items:list.")],
    outputs: [
      MessageSpec(
        ItemChanged.self, "The person enabled or disabled the item; sent to the module that opened the detail.")
    ],
    services: [.notifications],
    requires: [.required(ItemsService.self, "1.0"..<"2")])

  static let toggleID = "toggle"
  static let backID = "back"
}
