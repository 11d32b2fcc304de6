import ViperKit

/// Draws one item and forwards the person's actions. Holds no state.
final class ItemsDetailView: ViperView, ItemsDetailViewInput {
  private let canvas: any Canvas
  let presenter: any ItemsDetailViewOutput

  init(canvas: any Canvas, presenter: any ItemsDetailViewOutput) {
    self.canvas = canvas
    self.presenter = presenter
  }

  func lifecycle(_ event: LifecycleEvent) {
    if event == .attach { presenter.viewDidAttach() }
  }

  func handle(_ event: ViewEvent) {
    switch event {
    case .tap(ItemsDetailContract.toggleID): presenter.didTapToggle()
    case .tap(ItemsDetailContract.backID): presenter.didTapBack()
    default: break
    }
  }

  func display(_ screen: ItemDetailScreen) {
    let back = ViewNode.button(id: ItemsDetailContract.backID, title: "Back")
    switch screen {
    case .item(let name, let state, let date, let toggleTitle):
      canvas.draw(
        .stack(
          .vertical,
          [
            .heading(name),
            .text("State: \(state.label)", tone: state.tone),
            .text("Created: \(date)"),
            .stack(.horizontal, [.button(id: ItemsDetailContract.toggleID, title: toggleTitle), back]),
          ]))
    case .missing(let message):
      canvas.draw(.stack(.vertical, [.heading("Item not found"), .notice(.negative, message), back]))
    }
  }
}
