import PeopleInterface
import SessionInterface
import ViperKit
import WeatherInterface

// The Dashboard module's contract: a container of tabs, each an embedded
// module from another plugin, open only to a signed-in person.

/// View → Presenter.
protocol DashboardViewOutput: ViperPresenter {
  func didTapTab(_ tab: DashboardTab)
  func didTapProfile()
  func didTapWeather()
  func didTapSignOut()
}

/// Presenter → View.
protocol DashboardViewInput: ViperView {
  func display(_ screen: DashboardScreen)
}

/// Presenter → Interactor.
protocol DashboardInteractorInput: ViperInteractor {
  /// Asks the people service for `user`'s city, then the weather service
  /// for its forecast.
  func fetchForecast(for user: String)
  /// Ends `user`'s session through the session service.
  func signOut(_ user: String)
}

/// Interactor → Presenter.
protocol DashboardInteractorOutput: ViperPresenter {
  func present(today: DayForecast, in city: String)
  func presentNoForecast(reason: String)
  func presentSignedOut()
  func presentSignOutFailed()
}

/// Presenter → Router.
protocol DashboardRouting: ViperRouter {
  func embedTabs(_ tabs: [DashboardTab])
  func show(_ tab: DashboardTab)
  func showProfile(user: String)
  func showWeather(city: String)
  func signOut()
}

/// The tabs, in the order they are embedded.
enum DashboardTab: Int, CaseIterable {
  case items
  case search
  case feed

  var urn: URN { [URN("items", "list"), URN("products", "search"), URN("feed", "home")][rawValue] }
  /// The title of the tab's button: the heading its module draws, which
  /// names the tab where it is shown.
  var title: String { ["Items", "Products", "Feed"][rawValue] }
  var buttonID: String { "tab.\(["items", "search", "feed"][rawValue])" }
}

/// What the dashboard draws around its tabs.
struct DashboardScreen: ViperViewModel {
  let greeting: String
  /// Today's weather in the person's city, or why there is none.
  let weather: String
  /// Whether the Weather button, to the city's forecast, is shown.
  let showsWeatherButton: Bool
  let error: String?
}

enum DashboardContract {
  static let contract = Contract(
    urn: "dashboard:home",
    version: 3,
    summary:
      "The home screen after sign-in: today's weather, and tabs with the items list, product search and the feed.",
    arguments: [.optional("user", .string, default: .string("ada"), "Who is signed in.")],
    slots: [
      SlotSpec(
        name: "tabs", accepts: DashboardTab.allCases.map(\.urn.text), kind: .tabs,
        description: "One tab shown at a time; switch with the tab buttons.")
    ],
    // Reads the Weather plugin's temperature unit (TemperatureUnit.settingKey), which others may read.
    services: [.settings],
    guards: [
      RouteGuard(
        requires: SessionService.userSetting, otherwise: "login:form", reason: "Sign in to open your dashboard.")
    ],
    opens: [
      .push("profile:{userID}", arguments: ["userID": .string]), .push("weather:{city}", arguments: ["city": .string]),
      .replace("login:form"),
    ],
    requires: [
      .optional(PeopleService.self, "1.0"..<"2"), .optional(WeatherService.self, "1.0"..<"2"),
      .required(SessionService.self, "1.0"..<"2"),
    ])
  static let profileID = "profile"
  static let weatherID = "weather"
  static let signOutID = "signOut"
}
