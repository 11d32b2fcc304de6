import ViperKit

/// Draws the greeting, the tab buttons, the tabs slot and the account buttons.
final class DashboardView: ViperView, DashboardViewInput {
  private let canvas: any Canvas
  let presenter: any DashboardViewOutput

  init(canvas: any Canvas, presenter: any DashboardViewOutput) {
    self.canvas = canvas
    self.presenter = presenter
  }

  func lifecycle(_ event: LifecycleEvent) {
    if event == .attach { presenter.viewDidAttach() }
  }

  func handle(_ event: ViewEvent) {
    guard case .tap(let id) = event else { return }
    if let tab = DashboardTab.allCases.first(where: { $0.buttonID == id }) {
      presenter.didTapTab(tab)
    } else if id == DashboardContract.profileID {
      presenter.didTapProfile()
    } else if id == DashboardContract.signOutID {
      presenter.didTapSignOut()
    }
  }

  func display(_ screen: DashboardScreen) {
    canvas.draw(
      .stack(
        .vertical,
        [
          .heading(screen.greeting),
          .stack(.horizontal, DashboardTab.allCases.map { .button(id: $0.buttonID, title: $0.title) }),
          .slot("tabs"),
          .stack(
            .horizontal,
            [
              .button(id: DashboardContract.profileID, title: "My profile"),
              .button(id: DashboardContract.signOutID, title: "Sign out"),
            ]),
        ]))
  }
}
