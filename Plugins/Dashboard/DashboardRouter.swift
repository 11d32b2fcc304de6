import ViperKit

/// Fills the tabs slot, switches tabs, and leaves for the profile or sign-in.
final class DashboardRouter: ViperRouter, DashboardRouting {
  private let appRouter: any AppRouter

  init(appRouter: any AppRouter) {
    self.appRouter = appRouter
  }

  func embedTabs(_ tabs: [DashboardTab]) {
    for tab in tabs { appRouter.embed(tab.urn, in: "tabs") }
  }

  func show(_ tab: DashboardTab) { appRouter.showChild(at: tab.rawValue, in: "tabs") }
  func showProfile(user: String) { appRouter.push(URN("profile", user)) }
  func showWeather(city: String) { appRouter.push(URN("weather", city)) }
  func signOut() { appRouter.replace(URN("login", "form")) }
}
