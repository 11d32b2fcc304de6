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
    case .tap(ItemsListContract.confirmDeleteAllID):
      presenter.didConfirmDeleteAll(true)
    case .tap(ItemsListContract.keepItemsID):
      presenter.didConfirmDeleteAll(false)
    case .select(ItemsListContract.listID, let row):
      if let id = Int(row) { presenter.didSelectItem(id: id) }
    default:
      break
    }
  }

  func display(_ screen: ItemsListScreen) {
    canvas.draw {
      ViewNode.heading(screen.title)
      if !screen.loading { ViewNode.text(screen.summary, tone: .muted) }
      if let notice = screen.notice { ViewNode.notice(.positive, notice) }
      if screen.loading {
        ViewNode.text("Loading…", tone: .muted)
      } else if let problem = screen.problem {
        ViewNode.notice(.negative, problem)
      } else if screen.items.isEmpty {
        ViewNode.text("No items.")
      } else {
        ViewNode.list(
          id: ItemsListContract.listID,
          rows: screen.items.map { ListRow(id: $0.id, title: $0.name, detail: $0.date, marker: $0.marker) })
        if screen.confirmingDeleteAll {
          let items = screen.items.count == 1 ? "1 item" : "\(screen.items.count) items"
          ViewNode.notice(.warning, "Delete all \(items)? This cannot be undone.")
          ViewNode.horizontal {
            ViewNode.button(id: ItemsListContract.keepItemsID, title: "Keep them")
            ViewNode.button(id: ItemsListContract.confirmDeleteAllID, title: "Delete \(items)")
          }
        } else {
          ViewNode.button(id: ItemsListContract.deleteAllID, title: "Delete all")
        }
      }
    }
  }
}
