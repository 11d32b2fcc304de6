import Foundation
import ViperKit

/// Keeps the query being typed and the page shown; formats prices.
final class ProductSearchPresenter: ViperPresenter {
  weak var view: (any ProductSearchViewInput)?
  let interactor: any ProductSearchInteractorInput
  private var typed = ""
  /// Whether a search waits for typing to pause.
  private var searching = false
  /// Where the last session was, until attach searches for it.
  private var restored: Place?
  private var shown = ProductPage(
    query: "", onlyFavourites: false, products: [], favourites: [], page: 0, pageCount: 1, total: 0)

  init(interactor: any ProductSearchInteractorInput) {
    self.interactor = interactor
  }

  func lifecycle(_ event: LifecycleEvent) {
    if event == .attach {
      interactor.search(
        restored?.query ?? "", onlyFavourites: restored?.onlyFavourites ?? false, page: restored?.page ?? 0)
    }
  }

  static func price(_ cents: Int) -> String {
    "€\(cents / 100).\(String(format: "%02d", cents % 100))"
  }
}

/// A restart, a crash of the plugin or a reload keeps the search and the page shown.
extension ProductSearchPresenter: StateRestoring {
  /// What is kept.
  struct Place: Codable {
    var query: String
    var onlyFavourites: Bool
    var page: Int
  }

  var restorationState: Place? {
    let place = Place(query: typed, onlyFavourites: shown.onlyFavourites, page: shown.page)
    return place.query.isEmpty && !place.onlyFavourites && place.page == 0 ? nil : place
  }

  /// Taken back before attach, which searches for it.
  func restore(_ state: Place) {
    typed = state.query
    restored = state
  }
}

extension ProductSearchPresenter: ProductSearchViewOutput {
  func didTypeQuery(_ text: String) {
    typed = text
    searching = true
    show(shown)
    interactor.searchWhenTypingPauses(text, onlyFavourites: shown.onlyFavourites)
  }

  func didTapSearch() { interactor.search(typed, onlyFavourites: shown.onlyFavourites, page: 0) }

  func didTapPage(forward: Bool) {
    interactor.search(shown.query, onlyFavourites: shown.onlyFavourites, page: shown.page + (forward ? 1 : -1))
  }

  func didTapFavouritesFilter() { interactor.search(shown.query, onlyFavourites: !shown.onlyFavourites, page: 0) }

  func didSelectProduct(id: Int) { interactor.toggleFavourite(id: id) }
}

extension ProductSearchPresenter: ProductSearchInteractorOutput {
  func present(_ results: ProductPage) {
    searching = false
    show(results)
  }

  private func show(_ results: ProductPage) {
    shown = results
    let noun = results.onlyFavourites ? "favourite" : "product"
    let scope = results.total == 1 ? noun : noun + "s"
    let matching = results.query.isEmpty ? "" : " matching '\(results.query)'"
    view?.display(
      ProductSearchScreen(
        query: typed,
        summary: searching
          ? "Searching…" : "\(results.total) \(scope)\(matching) · page \(results.page + 1) of \(results.pageCount)",
        products: results.products.map {
          ProductUI(
            id: String($0.id), name: $0.name, price: ProductSearchPresenter.price($0.cents),
            favourite: results.favourites.contains($0.id))
        },
        hasPrevious: results.page > 0, hasNext: results.page + 1 < results.pageCount,
        filterTitle: results.onlyFavourites ? "Show all" : "Show favourites"))
  }
}
