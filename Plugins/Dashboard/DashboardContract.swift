import ViperKit

// The Dashboard module's contract: a container of tabs, each an embedded
// module from another plugin, open only to a signed-in person.

/// View → Presenter.
protocol DashboardViewOutput: ViperPresenter {
  func didTapTab(_ tab: DashboardTab)
  func didTapProfile()
  func didTapSignOut()
}

/// Presenter → View.
protocol DashboardViewInput: ViperView {
  func display(_ screen: DashboardScreen)
}

/// Presenter → Interactor.
protocol DashboardInteractorInput: ViperInteractor {
  func signOut()
}

/// Interactor → Presenter.
protocol DashboardInteractorOutput: ViperPresenter {
  func presentSignedOut()
  func presentSignOutFailed()
}

/// Presenter → Router.
protocol DashboardRouting: ViperRouter {
  func embedTabs(_ tabs: [DashboardTab])
  func show(_ tab: DashboardTab)
  func showProfile(user: String)
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
  let error: String?
}

enum DashboardContract {
  static let contract = Contract(
    urn: "dashboard:home",
    version: 2,
    summary: "The home screen after sign-in: tabs with the items list, product search and the feed.",
    arguments: [.optional("user", .string, default: .string("ada"), "Who is signed in.")],
    slots: [
      SlotSpec(
        name: "tabs", accepts: DashboardTab.allCases.map(\.urn.text), kind: .tabs,
        description: "One tab shown at a time; switch with the tab buttons.")
    ],
    services: [Services.Name.settings],
    guards: [
      RouteGuard(requires: sessionUserKey, otherwise: "login:form", reason: "Sign in to open your dashboard.")
    ],
    opens: [.push("profile:{userID}", arguments: ["userID": .string]), .replace("login:form")])

  /// The setting naming who is signed in; `login:form` sets it.
  static let sessionUserKey = "session.user"
  static let profileID = "profile"
  static let signOutID = "signOut"
}
