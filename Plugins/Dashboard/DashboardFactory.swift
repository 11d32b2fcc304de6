import ViperKit

/// Builds and wires the Dashboard module.
struct DashboardFactory: ModuleFactory {
  var contract: Contract { DashboardContract.contract }

  func build(_ context: ModuleContext) throws -> Module {
    let router = DashboardRouter(appRouter: context.router)
    let presenter = DashboardPresenter(user: context.arguments.string("user") ?? "ada", router: router)
    let view = DashboardView(canvas: context.canvas, presenter: presenter)
    presenter.view = view
    return Module(view: view, presenter: presenter, router: router)
  }
}

/// The plugin: one module, `dashboard:home`.
public enum DashboardPlugin: ViperPlugin {
  /// The factories of the modules this plugin offers.
  public static func factories() -> [any ModuleFactory] { [DashboardFactory()] }
}

/// The plugin's entry point, the only symbol the host looks up.
@_cdecl("vivarium_plugin_entry")
public func vivariumPluginEntry() -> UnsafeRawPointer {
  PluginEntry.descriptor(for: DashboardPlugin.self)
}
