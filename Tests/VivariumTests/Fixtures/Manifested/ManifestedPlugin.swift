// A plugin whose manifest the tests write beside it (PluginManifest's Swift
// source), agreeing with its contract or not. Its constructor-free code runs
// only when the host activates it. Compiled by the tests.
import ViperKit

struct NoteFactory: ModuleFactory {
  static let contract = Contract(urn: "manifested:note", summary: "One note.")

  func build(_ context: ModuleContext) throws -> Module {
    let view = NoteView(canvas: context.canvas, presenter: NotePresenter())
    return Module(view: view, presenter: view.presenter)
  }
}

final class NoteView: ViperView {
  let canvas: any Canvas
  let presenter: NotePresenter
  init(canvas: any Canvas, presenter: NotePresenter) {
    self.canvas = canvas
    self.presenter = presenter
  }
  func lifecycle(_ event: LifecycleEvent) { if event == .attach { canvas.draw(.text("a manifested note")) } }
  func handle(_ event: ViewEvent) {}
}

final class NotePresenter: ViperPresenter {}

/// One module.
public enum ManifestedPlugin: ViperPlugin {
  /// The note.
  public static func factories() -> [any ModuleFactory] { [NoteFactory()] }
}

/// The entry point.
@_cdecl("vivarium_plugin_entry")
public func vivariumPluginEntry() -> UnsafeRawPointer {
  PluginEntry.descriptor(for: ManifestedPlugin.self)
}
