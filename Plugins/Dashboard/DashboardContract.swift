import ViperKit

// The Dashboard module's contract: a container of tabs, each an embedded
// module from another plugin.

/// View → Presenter.
protocol DashboardViewOutput: AnyObject {
  func viewDidAttach()
  func didTapTab(_ tab: DashboardTab)
  func didTapProfile()
  func didTapSignOut()
}

/// Presenter → View.
protocol DashboardViewInput: AnyObject {
  func display(_ screen: DashboardScreen)
}

/// Presenter → Router.
protocol DashboardRouting: AnyObject {
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

  var urn: String { ["items:list", "products:search", "feed:home"][rawValue] }
  var title: String { ["Items", "Search", "Feed"][rawValue] }
  var buttonID: String { "tab.\(["items", "search", "feed"][rawValue])" }
}

/// What the dashboard draws around its tabs.
struct DashboardScreen: ViperViewModel {
  let greeting: String
}

enum DashboardContract {
  static let contract = Contract(
    urn: "dashboard:home",
    summary: "The home screen after sign-in: tabs with the items list, product search and the feed.",
    arguments: [.optional("user", .string, default: .string("ada"), "Who is signed in.")],
    slots: [
      SlotSpec(
        name: "tabs", accepts: DashboardTab.allCases.map(\.urn), kind: .tabs,
        description: "One tab shown at a time; switch with the tab buttons.")
    ])

  static let profileID = "profile"
  static let signOutID = "signOut"
}
