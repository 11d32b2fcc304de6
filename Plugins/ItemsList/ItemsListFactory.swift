import ItemsCatalog
import ViperKit

/// Builds and wires the ItemsList module.
struct ItemsListFactory: ModuleFactory {
  static let contract = ItemsListContract.contract

  func build(_ context: ModuleContext) throws -> Module {
    let interactor = ItemsListInteractor(
      items: context.services.service(ItemsService.self), work: context.work, notifier: context.services.notifications)
    let router = ItemsListRouter(appRouter: context.router)
    let presenter = ItemsListPresenter(interactor: interactor, router: router)
    let view = ItemsListView(canvas: context.canvas, presenter: presenter)
    presenter.view = view
    interactor.presenter = presenter
    return Module(view: view, presenter: presenter, interactor: interactor, router: router)
  }
}

/// The plugin: one module, `items:list`, and the items service, as the
/// plugin that owns the items.
public enum ItemsListPlugin: ViperPlugin {
  /// The factories of the modules this plugin offers.
  public static func factories() -> [any ModuleFactory] { [ItemsListFactory()] }
  /// This release.
  public static let version: SemanticVersion = "1.0"
  /// The items service.
  public static var providers: [any ServiceProvider.Type] { [ItemsProvider.self] }
}
