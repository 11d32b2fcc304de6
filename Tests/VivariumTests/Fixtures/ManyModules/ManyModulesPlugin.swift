// A plugin offering 10,000 modules, compiled by the tests into
// libManyModules.so: it must load as any other (PluginLimitsTests).
import ViperKit

/// One of the modules: it draws its URN.
struct ManyFactory: RuntimeModule {
  let contract: Contract

  func build(_ context: ModuleContext) throws -> Module {
    Module(view: ManyView(canvas: context.canvas, title: context.urn), presenter: ManyPresenter())
  }
}

final class ManyPresenter: ViperPresenter {}

final class ManyView: ViperView {
  let canvas: any Canvas
  let title: String

  init(canvas: any Canvas, title: String) {
    self.canvas = canvas
    self.title = title
  }

  func lifecycle(_ event: LifecycleEvent) {
    if event == .attach { canvas.draw(.text(title)) }
  }

  func handle(_ event: ViewEvent) {}
}

/// 10,000 modules, `many0:item:{itemID}` to `many9999:item:{itemID}`.
public enum ManyModulesPlugin: ViperPlugin {
  /// One factory per module.
  public static func factories() -> [any ModuleFactory] {
    (0..<10_000).map { index in
      ManyFactory(
        contract: Contract(
          urn: "many\(index):item:{itemID}", summary: "Generated module \(index): one item with its price and stock.",
          arguments: [
            .required("itemID", .int, "The item to show."),
            .optional("currency", .string, default: .string("EUR"), "The currency of prices."),
          ],
          outputs: [
            MessageSpec(name: "added", fields: ["itemID": .int, "count": .int], description: "Added to the cart.")
          ])
      ).factory
    }
  }
}

/// The entry point.
@_cdecl("vivarium_plugin_entry")
public func vivariumPluginEntry() -> UnsafeRawPointer {
  PluginEntry.descriptor(for: ManyModulesPlugin.self)
}
