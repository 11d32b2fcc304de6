import SessionInterface
import ViperKit

/// Checks credentials with the authenticator, remembers the last user, and
/// records who is signed in (`session.user`, the setting the dashboard's
/// route guard requires) in the settings service.
final class LoginInteractor: ViperInteractor, LoginInteractorInput {
  weak var presenter: (any LoginInteractorOutput)?
  private let authenticator: DemoAuthenticator
  private let services: Services
  private let work: any ModuleWork
  private var signingIn: WorkHandle?

  init(authenticator: DemoAuthenticator, services: Services, work: any ModuleWork) {
    self.authenticator = authenticator
    self.services = services
    self.work = work
  }

  func loadLastUser() {
    presenter?.present(lastUser: services.settings?.value(forKey: LoginContract.lastUserKey)?.stringValue ?? "")
  }

  func signIn(user: String, password: String) {
    signingIn?.cancel()
    signingIn = work.start("sign in") { [weak self, authenticator] in
      let accepted = try await authenticator.check(user: user, password: password)
      // A cancel that came while the check was finishing still wins.
      try Task.checkCancellation()
      await self?.finishSignIn(user: user, accepted: accepted)
    }
  }

  func cancelSignIn() {
    signingIn?.cancel()
    signingIn = nil
  }

  /// Records the session from the sign-in's work: `save` suspends only
  /// this work while the host writes the settings.
  private func finishSignIn(user: String, accepted: Bool) async {
    signingIn = nil
    guard accepted else {
      services.log?.log(.info, "failed sign-in for '\(user)'")
      presenter?.presentRejected(user: user)
      return
    }
    do {
      try await services.settings?.save(.string(user), forKey: SessionService.userSetting)
    } catch {
      services.log?.log(.error, "could not record the session of '\(user)': \(error)")
      presenter?.presentSignInFailed(user: user)
      return
    }
    do {
      try await services.settings?.save(.string(user), forKey: LoginContract.lastUserKey)
    } catch {
      services.log?.log(.warning, "could not remember the last user: \(error)")
    }
    services.log?.log(.info, "'\(user)' signed in")
    presenter?.presentSignedIn(user: user)
  }
}

/// The demo's authentication service: two accounts, checked after a pause
/// that stands in for the network. It waits on the clock service, which is
/// virtual in tests and recorded sessions.
struct DemoAuthenticator {
  /// Waits on this clock; without one, answers at once.
  let clock: (any WallClock)?
  /// How long a check takes, in seconds.
  var latency = 1.5

  private static let accounts = ["ada": "lovelace", "grace": "hopper"]

  /// Whether `password` is `user`'s. Throws `CancellationError` when the work
  /// it runs in is cancelled while it waits.
  @MainActor
  func check(user: String, password: String) async throws -> Bool {
    try await clock?.sleep(for: latency)
    return DemoAuthenticator.accounts[user] == password
  }
}
