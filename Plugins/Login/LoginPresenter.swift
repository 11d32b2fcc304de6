import ViperKit

/// Holds what the person typed, shows how long the password is (never the
/// password), and decides what a sign-in attempt leads to.
final class LoginPresenter: ViperPresenter {
  weak var view: (any LoginViewInput)?
  let interactor: any LoginInteractorInput
  let router: any LoginRouting
  private var user = ""
  private var password = ""
  /// Who is being signed in, while the check is under way.
  private var signingIn: String?

  init(interactor: any LoginInteractorInput, router: any LoginRouting) {
    self.interactor = interactor
    self.router = router
  }

  func lifecycle(_ event: LifecycleEvent) {
    if event == .attach { interactor.loadLastUser() }
  }

  private func show(_ notice: LoginScreen.Notice? = nil) {
    let waiting = signingIn.map { LoginScreen.Notice(tone: .info, text: "Signing in as '\($0)'…") }
    view?.display(
      LoginScreen(
        user: user, passwordLength: password.count, notice: waiting ?? notice,
        signingIn: signingIn != nil))
  }
}

extension LoginPresenter: LoginViewOutput {
  func didType(_ text: String, in field: LoginField) {
    switch field {
    case .user: user = text
    case .password: password = text
    }
    show()
  }

  func didTapSignIn() {
    guard signingIn == nil else { return }
    guard !user.isEmpty, !password.isEmpty else {
      return show(LoginScreen.Notice(tone: .negative, text: "Type a user name and a password."))
    }
    signingIn = user
    show()
    interactor.signIn(user: user, password: password)
  }

  func didTapCancel() {
    guard signingIn != nil else { return }
    interactor.cancelSignIn()
    signingIn = nil
    show(LoginScreen.Notice(tone: .info, text: "Sign-in cancelled."))
  }
}

extension LoginPresenter: LoginInteractorOutput {
  func present(lastUser: String) {
    user = lastUser
    show()
  }

  func presentSignedIn(user: String) {
    signingIn = nil
    router.showDashboard(user: user)
  }

  func presentRejected(user: String) {
    signingIn = nil
    password = ""
    show(LoginScreen.Notice(tone: .negative, text: "Wrong user name or password for '\(user)'. Try again."))
  }

  func presentSignInFailed(user: String) {
    signingIn = nil
    show(LoginScreen.Notice(tone: .negative, text: "Could not sign in '\(user)' on this device. Try again."))
  }
}
