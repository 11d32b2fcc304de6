import ViperKit

/// Holds what the person typed, shows it masked, and decides what a sign-in
/// attempt leads to.
final class LoginPresenter: ViperPresenter {
  weak var view: (any LoginViewInput)?
  let interactor: any LoginInteractorInput
  let router: any LoginRouting
  private var user = ""
  private var password = ""

  init(interactor: any LoginInteractorInput, router: any LoginRouting) {
    self.interactor = interactor
    self.router = router
  }

  private func show(error: String? = nil) {
    view?.display(
      LoginScreen(user: user, maskedPassword: String(repeating: "•", count: password.count), error: error))
  }
}

extension LoginPresenter: LoginViewOutput {
  func viewDidAttach() { interactor.loadLastUser() }

  func didType(_ text: String, in field: LoginField) {
    switch field {
    case .user: user = text
    case .password: password = text
    }
    show()
  }

  func didTapSignIn() {
    guard !user.isEmpty, !password.isEmpty else {
      return show(error: "Type a user name and a password.")
    }
    interactor.signIn(user: user, password: password)
  }
}

extension LoginPresenter: LoginInteractorOutput {
  func present(lastUser: String) {
    user = lastUser
    show()
  }

  func presentSignedIn(user: String) { router.showDashboard(user: user) }

  func presentRejected(user: String) {
    password = ""
    show(error: "Wrong user name or password for '\(user)'. Try again.")
  }
}
