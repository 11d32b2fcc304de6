import ViperKit

/// Checks credentials and remembers the last user in the settings service.
final class LoginInteractor: ViperInteractor, LoginInteractorInput {
  weak var presenter: (any LoginInteractorOutput)?
  private let services: Services

  /// The demo's accounts. A real interactor would ask an authentication service.
  private static let accounts = ["ada": "lovelace", "grace": "hopper"]
  private static let lastUserKey = "login.lastUser"

  init(services: Services) {
    self.services = services
  }

  func loadLastUser() {
    presenter?.present(lastUser: services.settings?.value(forKey: LoginInteractor.lastUserKey)?.stringValue ?? "")
  }

  func signIn(user: String, password: String) {
    guard LoginInteractor.accounts[user] == password else {
      services.log?.log(.info, "failed sign-in for '\(user)'")
      presenter?.presentRejected(user: user)
      return
    }
    do {
      try services.settings?.set(.string(user), forKey: LoginInteractor.lastUserKey)
    } catch {
      services.log?.log(.warning, "could not remember the last user: \(error)")
    }
    services.log?.log(.info, "'\(user)' signed in")
    presenter?.presentSignedIn(user: user)
  }
}
