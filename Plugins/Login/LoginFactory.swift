import SessionInterface
import ViperKit

/// Builds and wires the Login module.
struct LoginFactory: ModuleFactory {
  static let contract = LoginContract.contract

  func build(_ context: ModuleContext) throws -> Module {
    let interactor = LoginInteractor(
      authenticator: DemoAuthenticator(clock: context.services.clock), services: context.services,
      work: context.work)
    let router = LoginRouter(appRouter: context.router)
    let presenter = LoginPresenter(interactor: interactor, router: router)
    let view = LoginView(canvas: context.canvas, presenter: presenter)
    presenter.view = view
    interactor.presenter = presenter
    return Module(view: view, presenter: presenter, interactor: interactor, router: router)
  }
}

/// The plugin: one module, `login:form`, and the session service.
public enum LoginPlugin: ViperPlugin {
  /// The factories of the modules this plugin offers.
  public static func factories() -> [any ModuleFactory] { [LoginFactory()] }
  /// Its providers: the session service.
  public static var providers: [any ServiceProvider.Type] { [SessionProvider.self] }
}

/// Provides ``SessionService`` from the setting the plugin owns: signing
/// out clears it, which no other plugin may do.
@MainActor
final class SessionProvider: ServiceProvider {
  static let services: [Services.Name] = [.settings]
  private let settings: (any SettingsStore)?

  init(services: Services) {
    settings = services.settings
  }

  func answer(_ answers: inout ServiceAnswers<SessionService>) {
    answers.on(\.signOut) { [settings] user in
      guard settings?.value(forKey: SessionService.userSetting)?.stringValue == user else { return false }
      try await settings?.save(nil, forKey: SessionService.userSetting)
      return true
    }
  }
}
