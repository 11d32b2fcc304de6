import ViperKit

/// Greets the person and turns tab and account taps into navigation; the
/// interactor ends the session on sign-out.
final class DashboardPresenter: ViperPresenter {
  weak var view: (any DashboardViewInput)?
  let interactor: any DashboardInteractorInput
  let router: any DashboardRouting
  private let user: String

  init(user: String, interactor: any DashboardInteractorInput, router: any DashboardRouting) {
    self.user = user
    self.interactor = interactor
    self.router = router
  }

  func lifecycle(_ event: LifecycleEvent) {
    if event == .attach {
      router.embedTabs(DashboardTab.allCases)
      show()
    }
  }

  private func show(error: String? = nil) {
    view?.display(DashboardScreen(greeting: "Hello, \(user.prefix(1).uppercased() + user.dropFirst())", error: error))
  }
}

extension DashboardPresenter: DashboardViewOutput {
  func didTapTab(_ tab: DashboardTab) { router.show(tab) }
  func didTapProfile() { router.showProfile(user: user) }
  func didTapSignOut() { interactor.signOut() }
}

extension DashboardPresenter: DashboardInteractorOutput {
  func presentSignedOut() { router.signOut() }
  func presentSignOutFailed() { show(error: "Could not sign out. Try again.") }
}
