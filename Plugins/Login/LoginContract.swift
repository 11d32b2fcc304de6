import ViperKit

// The Login module's contract (after the YML article): credentials checked by
// the interactor, a failure shown by the view, success routed to the dashboard.

/// View → Presenter.
protocol LoginViewOutput: AnyObject {
  func viewDidAttach()
  func didType(_ text: String, in field: LoginField)
  func didTapSignIn()
}

/// Presenter → View.
protocol LoginViewInput: AnyObject {
  func display(_ screen: LoginScreen)
}

/// Presenter → Interactor.
protocol LoginInteractorInput: AnyObject {
  func loadLastUser()
  func signIn(user: String, password: String)
}

/// Interactor → Presenter.
protocol LoginInteractorOutput: AnyObject {
  func present(lastUser: String)
  func presentSignedIn(user: String)
  func presentRejected(user: String)
}

/// Presenter → Router.
protocol LoginRouting: AnyObject {
  func showDashboard(user: String)
}

/// The form's fields.
enum LoginField: String {
  case user
  case password
}

/// What the sign-in screen shows.
struct LoginScreen: ViperViewModel {
  let user: String
  let maskedPassword: String
  let error: String?
}

enum LoginContract {
  static let contract = Contract(
    urn: "login:form",
    summary: "Sign in with a user name and password; on success the dashboard replaces this screen.",
    services: [Services.Name.settings, Services.Name.log])

  static let signInID = "signIn"
}
