import VivariumApp
import VivariumRuntime
import VivariumSupport
import VivariumTerminal

/// Drives a ``TerminalApp`` as a person at a terminal would, without one
/// (the idea of Textual's pilot): keys in, the grid out, a clock of its own.
@MainActor
final class Pilot {
  let app: TerminalApp
  /// The app's monotonic clock, in seconds; ``wait(_:)`` moves it.
  private let clock = ManualTime()
  /// What the last key asked the loop to do.
  private(set) var lastAction: TerminalApp.Action = .redraw

  /// The demo app, signed out unless `signedIn`, opened at `start`.
  init(start: String = "dashboard:home", signedIn: Bool = false, width: Int = 100, height: Int = 30) async throws {
    let runtime = HostRuntime(catalog: BuildProducts.demoCatalog, services: try TestServices.make(signedIn: signedIn))
    let session = Session(
      runtime: runtime, renderer: TextRenderer(width: 100), plugins: "the plugins report",
      routes: "the routes report", scheme: "vivarium-demo", settles: false)
    let clock = self.clock
    app = TerminalApp(session: session, name: "Demo", width: width, height: height) { clock.now }
    _ = await session.execute("open \(start)")
    // What the first screen asks of services is answered before the first key.
    await runtime.settleAll()
    // The loop draws before it reads a key: focus starts on what is drawn.
    _ = app.frame()
  }

  var runtime: HostRuntime { app.session.runtime }

  /// The screen now, row by row.
  var screen: [String] { app.frame().lines }
  /// The screen now as one text.
  var text: String { screen.joined(separator: "\n") }

  /// Presses `keys` in order, a frame drawn after each as the loop does,
  /// once the work the key started (a service's answer) has settled, as a
  /// person looks a moment later.
  func press(_ keys: KeyEvent...) async {
    for key in keys {
      lastAction = await app.handle(key)
      await runtime.settleAll()
      _ = app.frame()
    }
  }

  /// Types `text` a character at a time.
  func type(_ text: String) async {
    for character in text { await press(.character(character)) }
  }

  /// Lets `seconds` pass on the modules' virtual clock and the app's own.
  func wait(_ seconds: Double) async {
    await runtime.letTimePass(seconds)
    clock.now += seconds
    _ = app.frame()
  }

  /// Presses Tab until the focused row holds `text` (at most 20 times).
  func tab(to text: String) async {
    for _ in 0..<20 where !(row(containing: "▶").map { screen[$0].contains(text) } ?? false) {
      await press(.tab)
    }
  }

  /// The row of the screen holding `text`, if any.
  func row(containing text: String) -> Int? { screen.firstIndex { $0.contains(text) } }
}

/// A clock that moves only when told.
@MainActor
final class ManualTime {
  var now = 1_000.0
}
