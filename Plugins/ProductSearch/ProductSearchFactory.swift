import ViperKit

/// Builds and wires the ProductSearch module. Selecting a product stays on
/// this screen, so the module has no router.
struct ProductSearchFactory: ModuleFactory {
  static let contract = ProductSearchContract.contract

  func build(_ context: ModuleContext) throws -> Module {
    let interactor = ProductSearchInteractor(services: context.services, work: context.work)
    let presenter = ProductSearchPresenter(interactor: interactor)
    let view = ProductSearchView(canvas: context.canvas, presenter: presenter)
    presenter.view = view
    interactor.presenter = presenter
    return Module(view: view, presenter: presenter, interactor: interactor)
  }
}

/// The plugin: one module, `products:search`.
public enum ProductSearchPlugin: ViperPlugin {
  /// The factories of the modules this plugin offers.
  public static func factories() -> [any ModuleFactory] { [ProductSearchFactory()] }
}
