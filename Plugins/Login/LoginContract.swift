import SessionInterface
import ViperKit

// The Login module's contract (after the YML article): credentials checked by
// an authentication service inside the plugin, a failure shown by the view,
// success routed to the dashboard.

/// View → Presenter.
protocol LoginViewOutput: ViperPresenter {
  func didType(_ text: String, in field: LoginField)
  func didTapSignIn()
  func didTapCancel()
}

/// Presenter → View.
protocol LoginViewInput: ViperView {
  func display(_ screen: LoginScreen)
}

/// Presenter → Interactor.
protocol LoginInteractorInput: ViperInteractor {
  func loadLastUser()
  /// Starts checking the credentials; the result comes back later.
  func signIn(user: String, password: String)
  /// Stops the sign-in under way, if any; nothing comes back for it.
  func cancelSignIn()
}

/// Interactor → Presenter.
protocol LoginInteractorOutput: ViperPresenter {
  func present(lastUser: String)
  func presentSignedIn(user: String)
  func presentRejected(user: String)
  func presentSignInFailed(user: String)
}

/// Presenter → Router.
protocol LoginRouting: ViperRouter {
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
  /// How many characters of the password have been typed: the view draws a
  /// secret field, and the password itself stays in the presenter.
  let passwordLength: Int
  let notice: Notice?
  /// Whether a sign-in is under way: the form offers to cancel it.
  let signingIn: Bool

  /// A line for the person under the fields.
  struct Notice: Equatable {
    let tone: Tone
    let text: String
  }
}

enum LoginContract {
  static let contract = Contract(
    urn: "login:form",
    version: 3,
    summary: "Sign in with a user name and password; on success the dashboard replaces this screen.",
    services: [.settings, .log, .clock],
    opens: [.replace("dashboard:home", arguments: ["user": .string])],
    settings: [SettingDeclaration(SessionService.userSetting, readableByOthers: true), SettingDeclaration(lastUserKey)])

  /// The setting remembering who signed in last, for the user field; the plugin's own.
  static let lastUserKey = "login.lastUser"

  static let signInID = "signIn"
  static let cancelID = "cancel"
}
