import ViperKit
import VivariumLoading

/// The presenter of a screen of the host's own (``PluginsScreen``,
/// ``SettingsScreen``): no plugin provides it; the host builds it in its
/// own process, for the host it shows.
@MainActor
protocol HostScreenPresenter: ViperPresenter {
  /// The screen's contract: its URN takes no argument.
  nonisolated static var contract: Contract { get }
  /// A presenter of the screen of `host`.
  init(host: SharedHost)
  /// Where it draws.
  var view: HostScreenView? { get set }
  /// What the person did on the screen.
  func handle(_ event: ViewEvent)
}

/// The view of a screen of the host's own: draws what its presenter gives
/// it, and passes on what the person does.
@MainActor
final class HostScreenView: ViperView {
  let canvas: any Canvas
  let presenter: any HostScreenPresenter

  init(canvas: any Canvas, presenter: any HostScreenPresenter) {
    self.canvas = canvas
    self.presenter = presenter
  }

  func handle(_ event: ViewEvent) { presenter.handle(event) }
}

/// Builds a screen of the host's own, with its `Presenter`.
struct HostScreenFactory<Presenter: HostScreenPresenter>: ModuleFactory {
  static var contract: Contract { Presenter.contract }
  /// The host whose screen it is.
  weak var host: SharedHost?

  @MainActor
  func build(_ context: ModuleContext) throws -> Module {
    guard let host else { throw ModuleBuildError("the host has stopped") }
    let presenter = Presenter(host: host)
    let view = HostScreenView(canvas: context.canvas, presenter: presenter)
    presenter.view = view
    return Module(view: view, presenter: presenter)
  }

  /// What the host resolves the screen's URN to, for `host`.
  @MainActor
  static func route(for host: SharedHost) -> Route? {
    try? Route.hostScreen(HostScreenFactory(host: host))
  }
}
