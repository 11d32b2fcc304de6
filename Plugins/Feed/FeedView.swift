import ViperKit

/// Draws the wallet slot, the mask button and the posts.
final class FeedView: ViperView, FeedViewInput {
  private let canvas: any Canvas
  let presenter: any FeedViewOutput

  init(canvas: any Canvas, presenter: any FeedViewOutput) {
    self.canvas = canvas
    self.presenter = presenter
  }

  func lifecycle(_ event: LifecycleEvent) {
    if event == .attach { presenter.viewDidAttach() }
  }

  func handle(_ event: ViewEvent) {
    if event == .tap(button: FeedContract.maskID) { presenter.didTapMask() }
  }

  func display(_ screen: FeedScreen) {
    canvas.draw(
      .stack(
        .vertical,
        [
          .heading(screen.title),
          .slot("wallet"),
          .button(id: FeedContract.maskID, title: screen.maskTitle),
          .list(
            id: FeedContract.postsID, rows: screen.posts.map { ListRow(id: $0.id, title: $0.title, detail: $0.detail) }),
        ]))
  }
}
