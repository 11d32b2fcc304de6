// A plugin that breaks the plugin-wide checks: two modules whose patterns
// match the same URNs (contract.unambiguous), and factories() so slow that
// loading takes over 100 ms (speed.load). Compiled by the tests.
import Foundation
import ViperKit

struct TwinFactory: RuntimeModule {
  let contract: Contract

  func build(_ context: ModuleContext) throws -> Module {
    let view = TwinView(canvas: context.canvas, presenter: TwinPresenter())
    return Module(view: view, presenter: view.presenter)
  }
}

final class TwinView: ViperView {
  let canvas: any Canvas
  let presenter: TwinPresenter
  init(canvas: any Canvas, presenter: TwinPresenter) {
    self.canvas = canvas
    self.presenter = presenter
  }
  func lifecycle(_ event: LifecycleEvent) { if event == .attach { canvas.draw(.text("twin")) } }
  func handle(_ event: ViewEvent) {}
}

final class TwinPresenter: ViperPresenter {}

/// Two twin modules, offered slowly.
public enum BrokenPlugin: ViperPlugin {
  /// Sleeps 150 ms, then returns the twins.
  public static func factories() -> [any ModuleFactory] {
    usleep(150_000)
    return [
      TwinFactory(contract: Contract(urn: "twin:{a}", summary: "One.", arguments: [.required("a", .int, "A.")]))
        .factory,
      TwinFactory(contract: Contract(urn: "twin:{b}", summary: "Two.", arguments: [.required("b", .int, "B.")]))
        .factory,
    ]
  }
}

/// The entry point.
@_cdecl("vivarium_plugin_entry")
public func vivariumPluginEntry() -> UnsafeRawPointer {
  PluginEntry.descriptor(for: BrokenPlugin.self)
}
