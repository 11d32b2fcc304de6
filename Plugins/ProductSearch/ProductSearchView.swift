import ViperKit

/// Draws the search field, one page of results and the paging buttons.
final class ProductSearchView: ViperView, ProductSearchViewInput {
  private typealias IDs = ProductSearchContract
  private let canvas: any Canvas
  let presenter: any ProductSearchViewOutput

  init(canvas: any Canvas, presenter: any ProductSearchViewOutput) {
    self.canvas = canvas
    self.presenter = presenter
  }

  func lifecycle(_ event: LifecycleEvent) {
    if event == .attach { presenter.viewDidAttach() }
  }

  func handle(_ event: ViewEvent) {
    switch event {
    case .type(IDs.queryID, let text): presenter.didTypeQuery(text)
    case .tap(IDs.searchID): presenter.didTapSearch()
    case .tap(IDs.previousID): presenter.didTapPage(forward: false)
    case .tap(IDs.nextID): presenter.didTapPage(forward: true)
    case .tap(IDs.filterID): presenter.didTapFavouritesFilter()
    case .select(IDs.resultsID, let row): if let id = Int(row) { presenter.didSelectProduct(id: id) }
    default: break
    }
  }

  func display(_ screen: ProductSearchScreen) {
    var paging: [ViewNode] = []
    if screen.hasPrevious { paging.append(.button(id: IDs.previousID, title: "‹ Previous")) }
    if screen.hasNext { paging.append(.button(id: IDs.nextID, title: "Next ›")) }
    paging.append(.button(id: IDs.filterID, title: screen.filterTitle))
    let rows = screen.products.map {
      ListRow(id: $0.id, title: $0.name, detail: $0.price, marker: $0.favourite ? Marker(.warning, "★") : nil)
    }
    canvas.draw(
      .stack(
        .vertical,
        [
          .heading("Products"),
          .stack(
            .horizontal,
            [
              .field(id: IDs.queryID, label: "Search", value: screen.query, placeholder: "any name"),
              .button(id: IDs.searchID, title: "Search"),
            ]),
          .text(screen.summary, tone: .muted),
          rows.isEmpty ? .text("Nothing found.") : .list(id: IDs.resultsID, rows: rows),
          .stack(.horizontal, paging),
        ]))
  }
}
