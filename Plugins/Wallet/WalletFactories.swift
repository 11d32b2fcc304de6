import ViperKit
import WalletInterface

/// Builds and wires `wallet:preview`.
struct WalletPreviewFactory: ModuleFactory {
  static let contract = WalletContract.preview

  func build(_ context: ModuleContext) throws -> Module {
    let interactor = WalletInteractor(services: context.services)
    let router = WalletPreviewRouter(appRouter: context.router)
    let presenter = WalletPreviewPresenter(interactor: interactor, router: router, output: context.messages)
    let view = WalletPreviewView(canvas: context.canvas, presenter: presenter)
    presenter.view = view
    interactor.presenter = presenter
    interactor.followBalance(for: presenter)
    return Module(view: view, presenter: presenter, interactor: interactor, router: router)
  }
}

/// Builds and wires `wallet:topup`.
struct TopUpFactory: ModuleFactory {
  static let contract = WalletContract.topUp

  func build(_ context: ModuleContext) throws -> Module {
    let router = TopUpRouter(appRouter: context.router)
    let presenter = TopUpPresenter(router: router, output: context.messages)
    let view = TopUpView(canvas: context.canvas, presenter: presenter)
    presenter.view = view
    return Module(view: view, presenter: presenter, router: router)
  }
}

/// The plugin: two modules, `wallet:preview` and `wallet:topup`.
public enum WalletPlugin: ViperPlugin {
  /// The factories of the modules this plugin offers.
  public static func factories() -> [any ModuleFactory] { [WalletPreviewFactory(), TopUpFactory()] }
  /// Each change of the balance, announced to every preview, in every window.
  public static var publishes: [EventDeclaration] { [EventDeclaration(WalletBalance.self)] }
  /// What the previews show.
  public static var subscribes: [EventDeclaration] { [EventDeclaration(WalletBalance.self)] }
}
