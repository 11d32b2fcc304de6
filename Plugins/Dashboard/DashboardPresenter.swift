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
  /// Today's forecast, once the weather service has said: drawn again in
  /// the unit the person chooses.
  private var today: DayForecast?
  /// Where the person's temperature unit is read (the Weather plugin's
  /// `weather.units`).
  private let settings: (any SettingsStore)?

  init(
    user: String, interactor: any DashboardInteractorInput, router: any DashboardRouting,
    settings: (any SettingsStore)?
  ) {
    self.user = user
    self.interactor = interactor
    self.router = router
    self.settings = settings
  }

  func lifecycle(_ event: LifecycleEvent) {
    if event == .attach {
      settings?.observe(TemperatureUnit.settingKey, by: self) { [weak self] _ in self?.showToday() }
      router.embedTabs(DashboardTab.allCases)
      show()
      interactor.fetchForecast(for: user)
    }
  }

  /// Today's forecast in the person's unit, drawn.
  private func showToday() {
    guard let today, let city else { return }
    let unit = TemperatureUnit(setting: settings?.value(forKey: TemperatureUnit.settingKey))
    weather = "Today in \(city): \(today.shown(in: unit))"
    show()
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
    self.today = today
    self.city = city
    showToday()
  }

  func presentNoForecast(reason: String) {
    // A unit chosen later redraws nothing over why there is no forecast.
    today = nil
    weather = "No weather today: \(reason)"
    show()
  }

  func presentSignedOut() { router.signOut() }
  func presentSignOutFailed() { show(error: "Could not sign out. Try again.") }
}
