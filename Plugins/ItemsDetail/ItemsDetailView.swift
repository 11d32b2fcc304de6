import ViperKit

/// Draws one item and forwards the person's actions. Holds no state.
final class ItemsDetailView: ViperView, ItemsDetailViewInput {
  private let canvas: any Canvas
  let presenter: any ItemsDetailViewOutput

  init(canvas: any Canvas, presenter: any ItemsDetailViewOutput) {
    self.canvas = canvas
    self.presenter = presenter
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
    case .loading(let itemID):
      // No button yet: the focus lands on the item's first one once it is drawn.
      canvas.draw {
        ViewNode.heading("Item \(itemID)")
        ViewNode.text("Loading…", tone: .muted)
      }
    case .item(let name, let state, let date, let toggleTitle):
      canvas.draw {
        ViewNode.heading(name)
        ViewNode.text("State: \(state.label)", tone: state.tone)
        ViewNode.text("Created: \(date)")
        ViewNode.horizontal {
          ViewNode.button(id: ItemsDetailContract.toggleID, title: toggleTitle)
          back
        }
      }
    case .problem(let heading, let message):
      canvas.draw {
        ViewNode.heading(heading)
        ViewNode.notice(.negative, message)
        back
      }
    }
  }
}
