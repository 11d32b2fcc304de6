import ViperKit
import WeatherInterface

/// Greets the person and turns tab and account taps into navigation; the
/// interactor ends the session on sign-out.
final class DashboardPresenter: ViperPresenter {
  weak var view: (any DashboardViewInput)?
  let interactor: any DashboardInteractorInput
  let router: any DashboardRouting
  private let user: String
  /// Today's weather as shown, or why there is none.
  private var weather = "Today's weather: asking…"
  /// The person's city, once the people service has said.
  private var city: String?

  init(user: String, interactor: any DashboardInteractorInput, router: any DashboardRouting) {
    self.user = user
    self.interactor = interactor
    self.router = router
  }

  func lifecycle(_ event: LifecycleEvent) {
    if event == .attach {
      router.embedTabs(DashboardTab.allCases)
      show()
      interactor.fetchForecast(for: user)
    }
  }

  private func show(error: String? = nil) {
    view?.display(
      DashboardScreen(
        greeting: "Hello, \(user.prefix(1).uppercased() + user.dropFirst())", weather: weather,
        showsWeatherButton: city != nil, error: error))
  }
}

extension DashboardPresenter: DashboardViewOutput {
  func didTapTab(_ tab: DashboardTab) { router.show(tab) }
  func didTapProfile() { router.showProfile(user: user) }
  func didTapWeather() {
    if let city { router.showWeather(city: city) }
  }
  func didTapSignOut() { interactor.signOut(user) }
}

extension DashboardPresenter: DashboardInteractorOutput {
  func present(today: DayForecast, in city: String) {
    weather = "Today in \(city): \(today.shown)"
    self.city = city
    show()
  }

  func presentNoForecast(reason: String) {
    weather = "No weather today: \(reason)"
    show()
  }

  func presentSignedOut() { router.signOut() }
  func presentSignOutFailed() { show(error: "Could not sign out. Try again.") }
}
