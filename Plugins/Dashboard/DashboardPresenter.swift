import ViperKit

/// Greets the person and turns tab and account taps into navigation. The
/// dashboard has no data of its own, so it has no interactor.
final class DashboardPresenter: ViperPresenter {
  weak var view: (any DashboardViewInput)?
  let router: any DashboardRouting
  private let user: String

  init(user: String, router: any DashboardRouting) {
    self.user = user
    self.router = router
  }
}

extension DashboardPresenter: DashboardViewOutput {
  func viewDidAttach() {
    router.embedTabs(DashboardTab.allCases)
    view?.display(DashboardScreen(greeting: "Hello, \(user.prefix(1).uppercased() + user.dropFirst())"))
  }

  func didTapTab(_ tab: DashboardTab) { router.show(tab) }
  func didTapProfile() { router.showProfile(user: user) }
  func didTapSignOut() { router.signOut() }
}
