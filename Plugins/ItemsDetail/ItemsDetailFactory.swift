import ItemsCatalog
import ViperKit

/// Builds and wires the ItemsDetail module.
struct ItemsDetailFactory: ModuleFactory {
  static let contract = ItemsDetailContract.contract

  func build(_ context: ModuleContext) throws -> Module {
    guard let itemID = context.arguments.int("itemID") else {
      throw ModuleBuildError("itemID is missing; open the module as items:detail:{itemID}")
    }
    let interactor = ItemsDetailInteractor(
      itemID: itemID, items: context.services.service(ItemsService.self), work: context.work,
      notifier: context.services.notifications)
    let router = ItemsDetailRouter(appRouter: context.router)
    let presenter = ItemsDetailPresenter(interactor: interactor, router: router, output: context.messages)
    let view = ItemsDetailView(canvas: context.canvas, presenter: presenter)
    presenter.view = view
    interactor.presenter = presenter
    return Module(view: view, presenter: presenter, interactor: interactor, router: router)
  }
}

/// The plugin: one module, `items:detail:{itemID}`.
public enum ItemsDetailPlugin: ViperPlugin {
  /// The factories of the modules this plugin offers.
  public static func factories() -> [any ModuleFactory] { [ItemsDetailFactory()] }
  /// This release.
  public static let version: SemanticVersion = "1.0"
}
