import ViperKit

/// Ends the session: clears the setting the dashboard's route guard requires.
final class DashboardInteractor: ViperInteractor, DashboardInteractorInput {
  weak var presenter: (any DashboardInteractorOutput)?
  private let services: Services

  init(services: Services) {
    self.services = services
  }

  func signOut() {
    do {
      try services.settings?.set(nil, forKey: DashboardContract.sessionUserKey)
    } catch {
      presenter?.presentSignOutFailed()
      return
    }
    presenter?.presentSignedOut()
  }
}
