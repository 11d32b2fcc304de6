import ViperKit

// The ProductSearch module's contract (after the Cheesecake Labs article):
// search, pagination, and favourites saved through the storage service.

/// View → Presenter.
protocol ProductSearchViewOutput: ViperPresenter {
  func didTypeQuery(_ text: String)
  func didTapSearch()
  func didTapPage(forward: Bool)
  func didTapFavouritesFilter()
  func didSelectProduct(id: Int)
}

/// Presenter → View.
protocol ProductSearchViewInput: ViperView {
  func display(_ screen: ProductSearchScreen)
}

/// Presenter → Interactor.
protocol ProductSearchInteractorInput: ViperInteractor {
  /// Searches now, dropping a search waiting for typing to pause.
  func search(_ query: String, onlyFavourites: Bool, page: Int)
  /// Searches for `query` once typing pauses: a later call before then
  /// replaces this one.
  func searchWhenTypingPauses(_ query: String, onlyFavourites: Bool)
  func toggleFavourite(id: Int)
}

/// Interactor → Presenter.
protocol ProductSearchInteractorOutput: ViperPresenter {
  func present(_ results: ProductPage)
}

/// One product, the entity.
struct Product: ViperEntity, Equatable {
  let id: Int
  let name: String
  let cents: Int
}

/// A page of search results.
struct ProductPage: Equatable {
  let query: String
  let onlyFavourites: Bool
  let products: [Product]
  let favourites: Set<Int>
  let page: Int
  let pageCount: Int
  let total: Int
}

/// A product as the view shows it.
struct ProductUI: ViperViewModel {
  let id: String
  let name: String
  let price: String
  let favourite: Bool
}

/// What the search screen shows.
struct ProductSearchScreen: ViperViewModel {
  let query: String
  let summary: String
  let products: [ProductUI]
  let hasPrevious: Bool
  let hasNext: Bool
  let filterTitle: String
}

enum ProductSearchContract {
  static let contract = Contract(
    urn: "products:search",
    version: 2,
    summary: "Search products by name, five to a page; select one to add or remove it from your favourites.",
    services: [.storage, .notifications, .clock])

  /// Seconds typing must pause before the typed query is searched.
  static let typingPause = 0.3

  static let pageSize = 5
  static let queryID = "query"
  static let searchID = "search"
  static let resultsID = "results"
  static let previousID = "previous"
  static let nextID = "next"
  static let filterID = "favourites"
}
