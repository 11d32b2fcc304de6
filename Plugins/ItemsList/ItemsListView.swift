import ViperKit

/// Draws the items list and forwards the person's actions. Holds no state.
final class ItemsListView: ViperView, ItemsListViewInput {
  private let canvas: any Canvas
  let presenter: any ItemsListViewOutput

  init(canvas: any Canvas, presenter: any ItemsListViewOutput) {
    self.canvas = canvas
    self.presenter = presenter
  }

  func handle(_ event: ViewEvent) {
    switch event {
    case .tap(ItemsListContract.deleteAllID):
      presenter.didTapDeleteAll()
    case .select(ItemsListContract.listID, let row):
      if let id = Int(row) { presenter.didSelectItem(id: id) }
    default:
      break
    }
  }

  func display(_ screen: ItemsListScreen) {
    canvas.draw {
      ViewNode.heading(screen.title)
      ViewNode.text(screen.summary, tone: .muted)
      if let notice = screen.notice { ViewNode.notice(.positive, notice) }
      if screen.items.isEmpty {
        ViewNode.text("No items.")
      } else {
        ViewNode.list(
          id: ItemsListContract.listID,
          rows: screen.items.map { ListRow(id: $0.id, title: $0.name, detail: $0.date, marker: $0.marker) })
        ViewNode.button(id: ItemsListContract.deleteAllID, title: "Delete all")
      }
    }
  }
}
