import ViperKit

/// Draws the sign-in form and forwards what the person types and taps.
final class LoginView: ViperView, LoginViewInput {
  private let canvas: any Canvas
  let presenter: any LoginViewOutput

  init(canvas: any Canvas, presenter: any LoginViewOutput) {
    self.canvas = canvas
    self.presenter = presenter
  }

  func handle(_ event: ViewEvent) {
    switch event {
    case .type(let field, let text):
      if let field = LoginField(rawValue: field) { presenter.didType(text, in: field) }
    case .tap(LoginContract.signInID):
      presenter.didTapSignIn()
    case .tap(LoginContract.cancelID):
      presenter.didTapCancel()
    default:
      break
    }
  }

  func display(_ screen: LoginScreen) {
    canvas.draw {
      ViewNode.heading("Sign in")
      ViewNode.text("Demo accounts: ada / lovelace, grace / hopper", tone: .muted)
      ViewNode.field(id: LoginField.user.rawValue, label: "User", value: screen.user, placeholder: "user name")
      ViewNode.secretField(
        id: LoginField.password.rawValue, label: "Password", length: screen.passwordLength, placeholder: "password")
      if let notice = screen.notice { ViewNode.notice(notice.tone, notice.text) }
      if screen.signingIn {
        ViewNode.button(id: LoginContract.cancelID, title: "Cancel")
      } else {
        ViewNode.button(id: LoginContract.signInID, title: "Sign in")
      }
    }
  }
}
