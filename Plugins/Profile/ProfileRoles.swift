import PeopleInterface
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
    case .user(let name, let handle, let city, let membership, let bio):
      canvas.draw {
        ViewNode.heading(name)
        ViewNode.text(handle, tone: .muted)
        ViewNode.text("Lives in \(city)")
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
    view?.display(
      .user(name: user.name, handle: "@\(user.id)", city: user.city, membership: membership, bio: user.bio))
  }

  func presentMissing(userID: String) {
    view?.display(.missing("There is no member '\(userID)'."))
  }
}

extension User {
  /// The demo's members, compiled in.
  static let members = [
    User(
      id: "ada", name: "Ada Lovelace", city: "London", joined: 1_700_000_000,
      bio: "Writes the programs nobody asked for yet."),
    User(
      id: "grace", name: "Grace Hopper", city: "New York", joined: 1_760_000_000,
      bio: "Keeps a nanosecond on her desk."),
  ]

  /// The member whose user name is `id`.
  static func member(_ id: String) -> User? { members.first { $0.id == id } }
}

/// Answers the people service from the same members as the profile.
@MainActor
final class PeopleProvider: ServiceProvider {
  init(services: Services) {}

  func answer(_ answers: inout ServiceAnswers<PeopleService>) {
    answers.on(\.person) { id in
      guard let user = User.member(id) else { throw UnknownPerson(id: id) }
      return Person(id: user.id, name: user.name, city: user.city)
    }
  }
}

/// Finds the member (fixtures compiled in) and reads the clock.
final class ProfileInteractor: ViperInteractor, ProfileInteractorInput {
  weak var presenter: (any ProfileInteractorOutput)?
  private let userID: String
  private let services: Services

  init(userID: String, services: Services) {
    self.userID = userID
    self.services = services
  }

  func loadUser() {
    guard let user = User.member(userID) else {
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

/// The plugin: one module, `profile:{userID}`, and the people service.
public enum ProfilePlugin: ViperPlugin {
  /// The factories of the modules this plugin offers.
  public static func factories() -> [any ModuleFactory] { [ProfileFactory()] }
  /// This release.
  public static let version: SemanticVersion = "1.0"
  /// The people service.
  public static var providers: [any ServiceProvider.Type] { [PeopleProvider.self] }
}
