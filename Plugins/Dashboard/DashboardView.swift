import ViperKit

/// Draws the greeting, the tab buttons, the tabs slot and the account buttons.
final class DashboardView: ViperView, DashboardViewInput {
  private let canvas: any Canvas
  let presenter: any DashboardViewOutput

  init(canvas: any Canvas, presenter: any DashboardViewOutput) {
    self.canvas = canvas
    self.presenter = presenter
  }

  func handle(_ event: ViewEvent) {
    guard case .tap(let id) = event else { return }
    if let tab = DashboardTab.allCases.first(where: { $0.buttonID == id }) {
      presenter.didTapTab(tab)
    } else if id == DashboardContract.profileID {
      presenter.didTapProfile()
    } else if id == DashboardContract.weatherID {
      presenter.didTapWeather()
    } else if id == DashboardContract.signOutID {
      presenter.didTapSignOut()
    }
  }

  func display(_ screen: DashboardScreen) {
    canvas.draw {
      ViewNode.heading(screen.greeting)
      ViewNode.text(screen.weather, tone: .muted)
      ViewNode.horizontal {
        for tab in DashboardTab.allCases { ViewNode.button(id: tab.buttonID, title: tab.title) }
      }
      ViewNode.slot("tabs")
      if let error = screen.error { ViewNode.notice(.negative, error) }
      ViewNode.horizontal {
        ViewNode.button(id: DashboardContract.profileID, title: "My profile")
        if screen.showsWeatherButton { ViewNode.button(id: DashboardContract.weatherID, title: "Weather") }
        ViewNode.button(id: DashboardContract.signOutID, title: "Sign out")
      }
    }
  }
}
