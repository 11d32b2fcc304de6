import ViperKit

/// Builds and wires the Dashboard module.
struct DashboardFactory: ModuleFactory {
  static let contract = DashboardContract.contract

  func build(_ context: ModuleContext) throws -> Module {
    let interactor = DashboardInteractor(services: context.services, work: context.work)
    let router = DashboardRouter(appRouter: context.router)
    let presenter = DashboardPresenter(
      user: context.arguments.string("user") ?? "ada", interactor: interactor, router: router,
      settings: context.services.settings)
    let view = DashboardView(canvas: context.canvas, presenter: presenter)
    presenter.view = view
    interactor.presenter = presenter
    return Module(view: view, presenter: presenter, interactor: interactor, router: router)
  }
}

/// The plugin: one module, `dashboard:home`.
public enum DashboardPlugin: ViperPlugin {
  /// The factories of the modules this plugin offers.
  public static func factories() -> [any ModuleFactory] { [DashboardFactory()] }
}
