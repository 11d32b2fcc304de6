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
    canvas.draw {
      ViewNode.heading("Products")
      ViewNode.horizontal {
        ViewNode.field(id: IDs.queryID, label: "Search", value: screen.query, placeholder: "any name")
        ViewNode.button(id: IDs.searchID, title: "Search")
      }
      ViewNode.text(screen.summary, tone: .muted)
      if screen.products.isEmpty {
        ViewNode.text("Nothing found.")
      } else {
        ViewNode.list(
          id: IDs.resultsID,
          rows: screen.products.map {
            ListRow(id: $0.id, title: $0.name, detail: $0.price, marker: $0.favourite ? Marker(.warning, "★") : nil)
          })
      }
      ViewNode.horizontal {
        if screen.hasPrevious { ViewNode.button(id: IDs.previousID, title: "‹ Previous") }
        if screen.hasNext { ViewNode.button(id: IDs.nextID, title: "Next ›") }
        ViewNode.button(id: IDs.filterID, title: screen.filterTitle)
      }
    }
  }
}
