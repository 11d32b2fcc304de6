import ViperKit

/// Draws the wallet slot, the mask button and the posts.
final class FeedView: ViperView, FeedViewInput {
  private let canvas: any Canvas
  let presenter: any FeedViewOutput

  init(canvas: any Canvas, presenter: any FeedViewOutput) {
    self.canvas = canvas
    self.presenter = presenter
  }

  func handle(_ event: ViewEvent) {
    if event == .tap(button: FeedContract.maskID) { presenter.didTapMask() }
  }

  func display(_ screen: FeedScreen) {
    canvas.draw {
      ViewNode.heading(screen.title)
      ViewNode.slot("wallet")
      ViewNode.button(id: FeedContract.maskID, title: screen.maskTitle)
      if let posts = screen.posts {
        ViewNode.list(
          id: FeedContract.postsID, rows: posts.map { ListRow(id: $0.id, title: $0.title, detail: $0.detail) })
        ViewNode.text(screen.updated, tone: .muted)
      } else {
        ViewNode.text("Loading posts…", tone: .muted)
      }
    }
  }
}
