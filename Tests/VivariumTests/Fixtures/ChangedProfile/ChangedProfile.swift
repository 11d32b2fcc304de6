// The demo's profile rebuilt with its argument's type changed: userID is an
// int now, where the dashboard pushes it as a string. `vivarium check --app`
// on the demo directory with this plugin in place of libProfile.so fails,
// naming both sides.
import ViperKit

struct ChangedProfileFactory: ModuleFactory {
  static let contract = Contract(
    urn: "profile:{userID}", summary: "A member's profile, by number.",
    arguments: [.required("userID", .int, "The member's number.")])

  func build(_ context: ModuleContext) throws -> Module {
    let view = ChangedProfileView(canvas: context.canvas)
    return Module(view: view, presenter: view)
  }
}

/// View and presenter in one: it draws a heading.
final class ChangedProfileView: ViperView, ViperPresenter {
  let canvas: any Canvas
  init(canvas: any Canvas) { self.canvas = canvas }
  func lifecycle(_ event: LifecycleEvent) {
    if event == .attach { canvas.draw(.heading("Profile")) }
  }
  func handle(_ event: ViewEvent) {}
}

/// The plugin.
public enum ChangedProfilePlugin: ViperPlugin {
  /// Its one module.
  public static func factories() -> [any ModuleFactory] { [ChangedProfileFactory()] }
}

/// The entry point.
@_cdecl("vivarium_plugin_entry")
public func vivariumPluginEntry() -> UnsafeRawPointer {
  PluginEntry.descriptor(for: ChangedProfilePlugin.self)
}
