import ViperKit

/// Searches the catalogue, pages results, and keeps favourites in storage so
/// they survive a restart.
final class ProductSearchInteractor: ViperInteractor, ProductSearchInteractorInput {
  weak var presenter: (any ProductSearchInteractorOutput)?
  private let services: Services
  private let work: any ModuleWork
  private var last = (query: "", onlyFavourites: false, page: 0)
  /// The search waiting for typing to pause.
  private var pending: WorkHandle?
  private static let favouritesKey = "favourites"

  init(services: Services, work: any ModuleWork) {
    self.services = services
    self.work = work
  }

  private var favourites: Set<Int> {
    let stored = services.storage?.value(forKey: ProductSearchInteractor.favouritesKey) ?? ""
    return Set(stored.split(separator: ",").compactMap { Int($0) })
  }

  func searchWhenTypingPauses(_ query: String, onlyFavourites: Bool) {
    pending?.cancel()
    guard let clock = services.clock else { return search(query, onlyFavourites: onlyFavourites, page: 0) }
    pending = work.start("search") { [weak self] in
      try await clock.sleep(for: ProductSearchContract.typingPause)
      // A keystroke that came while the pause was ending still wins.
      try Task.checkCancellation()
      self?.pending = nil
      self?.run(query, onlyFavourites: onlyFavourites, page: 0)
    }
  }

  func search(_ query: String, onlyFavourites: Bool, page: Int) {
    pending?.cancel()
    pending = nil
    run(query, onlyFavourites: onlyFavourites, page: page)
  }

  private func run(_ query: String, onlyFavourites: Bool, page: Int) {
    let favourites = self.favourites
    let matches = ProductCatalogue.products.filter { product in
      (query.isEmpty || product.name.localizedCaseInsensitiveContains(query))
        && (!onlyFavourites || favourites.contains(product.id))
    }
    let size = ProductSearchContract.pageSize
    let pageCount = max(1, (matches.count + size - 1) / size)
    let page = min(max(page, 0), pageCount - 1)
    last = (query, onlyFavourites, page)
    presenter?.present(
      ProductPage(
        query: query, onlyFavourites: onlyFavourites, products: Array(matches.dropFirst(page * size).prefix(size)),
        favourites: favourites, page: page, pageCount: pageCount, total: matches.count))
  }

  func toggleFavourite(id: Int) {
    guard let product = ProductCatalogue.products.first(where: { $0.id == id }) else { return }
    var favourites = self.favourites
    let adding = favourites.insert(id).inserted
    if !adding { favourites.remove(id) }
    do {
      try services.storage?.set(
        favourites.sorted().map(String.init).joined(separator: ","), forKey: ProductSearchInteractor.favouritesKey)
      services.notifications?.notice(
        adding ? "★ \(product.name) is now a favourite." : "\(product.name) is no longer a favourite.",
        tone: adding ? .positive : .info)
    } catch {
      services.notifications?.alert(title: "Favourite not saved", message: "\(error)")
    }
    // Shows the change; a search waiting for typing to pause still runs.
    run(last.query, onlyFavourites: last.onlyFavourites, page: last.page)
  }
}

/// The products on sale: fixtures compiled in.
enum ProductCatalogue {
  static let products: [Product] = [
    ("Blue mug", 1250), ("Red mug", 1250), ("Teapot", 3400), ("Tea towel", 890), ("Espresso cups (2)", 2100),
    ("Oak tray", 4500), ("Linen napkins (4)", 2600), ("Glass jar", 990), ("Milk jug", 1590), ("Sugar bowl", 1390),
    ("Cake stand", 3900), ("Bread knife", 2990), ("Butter dish", 1790), ("Blue plate", 1490),
  ].enumerated().map { Product(id: $0.offset + 1, name: $0.element.0, cents: $0.element.1) }
}
