import ViperKit

/// Builds the Feed module in the configuration its `style` argument names:
/// one interactor, one of two presenters.
struct FeedFactory: ModuleFactory {
  static let contract = FeedContract.contract

  func build(_ context: ModuleContext) throws -> Module {
    let interactor = FeedInteractor(services: context.services, work: context.work)
    let router = FeedRouter(appRouter: context.router, messages: context.messages)
    let presenter: FeedPresenter =
      context.arguments.string("style") == "compact"
      ? CompactFeedPresenter(interactor: interactor, router: router)
      : ExtendedFeedPresenter(interactor: interactor, router: router)
    let view = FeedView(canvas: context.canvas, presenter: presenter)
    presenter.view = view
    interactor.presenter = presenter
    return Module(view: view, presenter: presenter, interactor: interactor, router: router)
  }
}

/// The plugin: one module, `feed:home`, in two configurations.
public enum FeedPlugin: ViperPlugin {
  /// The factories of the modules this plugin offers.
  public static func factories() -> [any ModuleFactory] { [FeedFactory()] }
}
