import ViperKit

/// Draws the profile.
final class ProfileView: ViperView, ProfileViewInput {
  private let canvas: any Canvas
  let presenter: any ProfileViewOutput

  init(canvas: any Canvas, presenter: any ProfileViewOutput) {
    self.canvas = canvas
    self.presenter = presenter
  }

  func handle(_ event: ViewEvent) {
    if event == .tap(button: ProfileContract.backID) { presenter.didTapBack() }
  }

  func display(_ screen: ProfileScreen) {
    let back = ViewNode.button(id: ProfileContract.backID, title: "Back")
    switch screen {
    case .user(let name, let handle, let membership, let bio):
      canvas.draw {
        ViewNode.heading(name)
        ViewNode.text(handle, tone: .muted)
        ViewNode.text(membership)
        ViewNode.text(bio)
        back
      }
    case .missing(let message):
      canvas.draw {
        ViewNode.heading("Profile")
        ViewNode.notice(.negative, message)
        back
      }
    }
  }
}

/// Formats membership length from the clock.
final class ProfilePresenter: ViperPresenter, ProfileViewOutput, ProfileInteractorOutput {
  weak var view: (any ProfileViewInput)?
  let interactor: any ProfileInteractorInput
  let router: any ProfileRouting

  init(interactor: any ProfileInteractorInput, router: any ProfileRouting) {
    self.interactor = interactor
    self.router = router
  }

  func lifecycle(_ event: LifecycleEvent) {
    if event == .attach { interactor.loadUser() }
  }

  func didTapBack() { router.close() }

  func present(user: User, now: Double) {
    let days = Int((now - user.joined) / 86400)
    let membership = days >= 365 ? "Member for \(days / 365) year\(days >= 730 ? "s" : "")" : "Member for \(days) days"
    view?.display(.user(name: user.name, handle: "@\(user.id)", membership: membership, bio: user.bio))
  }

  func presentMissing(userID: String) {
    view?.display(.missing("There is no member '\(userID)'."))
  }
}

/// Finds the member (fixtures compiled in) and reads the clock.
final class ProfileInteractor: ViperInteractor, ProfileInteractorInput {
  weak var presenter: (any ProfileInteractorOutput)?
  private let userID: String
  private let services: Services

  private static let users = [
    User(id: "ada", name: "Ada Lovelace", joined: 1_700_000_000, bio: "Writes the programs nobody asked for yet."),
    User(id: "grace", name: "Grace Hopper", joined: 1_760_000_000, bio: "Keeps a nanosecond on her desk."),
  ]

  init(userID: String, services: Services) {
    self.userID = userID
    self.services = services
  }

  func loadUser() {
    guard let user = ProfileInteractor.users.first(where: { $0.id == userID }) else {
      presenter?.presentMissing(userID: userID)
      return
    }
    presenter?.present(user: user, now: services.clock?.now() ?? user.joined)
  }
}

/// Leaves the profile.
final class ProfileRouter: ViperRouter, ProfileRouting {
  private let appRouter: any AppRouter

  init(appRouter: any AppRouter) {
    self.appRouter = appRouter
  }

  func close() { appRouter.pop() }
}

/// Builds and wires the Profile module.
struct ProfileFactory: ModuleFactory {
  static let contract = ProfileContract.contract

  func build(_ context: ModuleContext) throws -> Module {
    let interactor = ProfileInteractor(userID: context.arguments.string("userID") ?? "", services: context.services)
    let router = ProfileRouter(appRouter: context.router)
    let presenter = ProfilePresenter(interactor: interactor, router: router)
    let view = ProfileView(canvas: context.canvas, presenter: presenter)
    presenter.view = view
    interactor.presenter = presenter
    return Module(view: view, presenter: presenter, interactor: interactor, router: router)
  }
}

/// The plugin: one module, `profile:{userID}`.
public enum ProfilePlugin: ViperPlugin {
  /// The factories of the modules this plugin offers.
  public static func factories() -> [any ModuleFactory] { [ProfileFactory()] }
}
