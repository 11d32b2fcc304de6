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

/// The plugin: one module, `login:form`.
public enum LoginPlugin: ViperPlugin {
  /// The factories of the modules this plugin offers.
  public static func factories() -> [any ModuleFactory] { [LoginFactory()] }
}
