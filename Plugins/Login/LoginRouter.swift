import ViperKit

/// Leaves the form for the dashboard, replacing it so back does not return.
final class LoginRouter: ViperRouter, LoginRouting {
  private let appRouter: any AppRouter

  init(appRouter: any AppRouter) {
    self.appRouter = appRouter
  }

  func showDashboard(user: String) {
    appRouter.replace(URN("dashboard", "home").query("user", user))
  }
}
