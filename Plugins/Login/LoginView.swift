import ViperKit

/// Draws the sign-in form and forwards what the person types and taps.
final class LoginView: ViperView, LoginViewInput {
  private let canvas: any Canvas
  let presenter: any LoginViewOutput

  init(canvas: any Canvas, presenter: any LoginViewOutput) {
    self.canvas = canvas
    self.presenter = presenter
  }

  func lifecycle(_ event: LifecycleEvent) {
    if event == .attach { presenter.viewDidAttach() }
  }

  func handle(_ event: ViewEvent) {
    switch event {
    case .type(let field, let text):
      if let field = LoginField(rawValue: field) { presenter.didType(text, in: field) }
    case .tap(LoginContract.signInID):
      presenter.didTapSignIn()
    default:
      break
    }
  }

  func display(_ screen: LoginScreen) {
    var children: [ViewNode] = [
      .heading("Sign in"),
      .text("Demo accounts: ada / lovelace, grace / hopper", tone: .muted),
      .field(id: LoginField.user.rawValue, label: "User", value: screen.user, placeholder: "user name"),
      .field(
        id: LoginField.password.rawValue, label: "Password", value: screen.maskedPassword, placeholder: "password"),
    ]
    if let error = screen.error { children.append(.notice(.negative, error)) }
    children.append(.button(id: LoginContract.signInID, title: "Sign in"))
    canvas.draw(.stack(.vertical, children))
  }
}
