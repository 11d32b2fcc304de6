import Testing
import ViperKit
import VivariumLoading
import VivariumRuntime
import VivariumSupport

@testable import ViperKitTestKit
@testable import VivariumApp
@testable import VivariumTerminal

/// Input of any size or shape costs in proportion to it: a burst of keys
/// is not a frame, a layout or a message to a module per key, and the quit
/// keys act however much came before them. Costs are counted (pages laid
/// out, `type` events a module gets), never timed.
@Suite("Terminal app input at scale")
@MainActor
struct TerminalAppInputTests {
  /// Ctrl-C ends the app through `perform`; `q` and the rest as `handle` says.
  private func quitStatus(_ action: TerminalApp.Action) -> Int32? { action == .quit ? 0 : nil }

  @Test func aBurstOfTextGoesIntoAFieldAsOneEdit() async throws {
    let screen = try await TreeScreen(.field(id: "name", label: "Name", value: "", placeholder: "name"))
    let laidOut = screen.app.layoutsMade
    // 100,000 characters typed with no bracketed paste, as one read.
    let keys = [KeyEvent](repeating: .character("x"), count: 100_000)
    #expect(await screen.app.handle(keys, perform: quitStatus) == nil)
    _ = screen.app.frame()
    #expect(screen.recorder.typed.count == 1)
    // A field holds at most FieldEditor.longest characters.
    #expect(screen.recorder.typed.last?.count == FieldEditor.longest)
    #expect(screen.app.layoutsMade - laidOut <= 3)
    #expect(await screen.app.handle([.escape, .character("q")], perform: quitStatus) == 0)
  }

  @Test func textWhereNoneIsTakenLaysNothingOutAgain() async throws {
    let screen = try await TreeScreen(.text("Nothing takes text here."))
    let laidOut = screen.app.layoutsMade
    let keys = [KeyEvent](repeating: .character("x"), count: 100_000)
    #expect(await screen.app.handle(keys, perform: quitStatus) == nil)
    #expect(screen.app.frame().lines.contains { $0.contains("Only a field takes text") })
    #expect(screen.app.layoutsMade - laidOut <= 1)
    #expect(await screen.app.handle([.character("q")], perform: quitStatus) == 0)
  }

  /// PgDn pressed 200 times on a screen of a long text, a frame drawn after
  /// each as the loop does: the text is laid out once, each key moves the
  /// window only.
  @Test func pagingThroughALongTextLaysItOutOnce() async throws {
    let words = (0..<100_000).map { "word\($0)" }.joined(separator: " ")
    let screen = try await TreeScreen(.text(words))
    let laidOut = screen.app.layoutsMade
    for _ in 0..<200 {
      _ = await screen.app.handle(.pageDown)
      _ = screen.app.frame()
    }
    // A page is the body's 27 rows less one kept in view.
    let status = try #require(screen.app.frame().lines.last)
    #expect(status.contains("lines \(200 * 26 + 1)–"), "\(status)")
    #expect(screen.app.layoutsMade - laidOut <= 1)
  }

  /// 200 KB of random bytes read as keys, then Ctrl-C: the app quits
  /// without the keys before it acting (they could take any time).
  @Test func ctrlCAfterRandomBytesQuitsAtOnce() async throws {
    let screen = try await TreeScreen(.field(id: "name", label: "Name", value: "", placeholder: "name"))
    var random = SplitMix64(seed: 0x4354_524C)
    var parser = KeyParser()
    var keys = parser.feed((0..<200_000).map { _ in UInt8.random(in: 0...255, using: &random) })
    keys += parser.feed([0x03])
    #expect(await screen.app.handle(keys, perform: quitStatus) == 0)
    #expect(screen.recorder.typed.isEmpty)
  }

  /// Tabs and control characters in plugin text follow TerminalText's one
  /// rule in line mode and full screen alike: a tab is a space, another
  /// control is `\xNN` (ESC `\e`, DEL and C1 `\uNNNN`).
  @Test func tabsAndControlsAreDrawnTheSameInBothModes() async throws {
    let tree = ViewNode.stack(
      .vertical,
      [
        .heading("Bell\u{7}Del\u{7F}\tEsc\u{1B}[2J"), .text("Name:\tAda\nRole:\tanalyst\u{9B}"),
        .button(id: "go", title: "Go\tnow"),
      ])
    let expected = ["Bell\\x07Del\\u007F Esc\\e[2J", "Name: Ada", "Role: analyst\\u009B", "Go now"]
    let line = TextRenderer(width: 80).lines(tree)
    let screen = try await TreeScreen(tree)
    let full = screen.app.frame().lines
    for text in expected {
      #expect(line.contains { $0.contains(text) }, "line mode: \(line)")
      #expect(full.contains { $0.contains(text) }, "full screen: \(full)")
    }
    let drawn = screen.app.frame().cells.map(\.text).joined()
    #expect(!drawn.contains("\u{FFFD}"))
  }
}

/// A full-screen app on one in-process module drawing `tree`, whose fields
/// take what is typed into them, as modules do.
@MainActor
private struct TreeScreen {
  let app: TerminalApp
  let recorder = TypedRecorder()

  init(_ tree: ViewNode) async throws {
    let factory = TreeFactory(tree: tree, recorder: recorder)
    let plugin = LoadedPlugin(path: "tree.so", name: "Tree", factories: [factory])
    let runtime = HostRuntime(
      catalog: PluginCatalog(outcomes: [.loaded(plugin)]), services: try TestServices.make())
    let session = Session(
      runtime: runtime, renderer: TextRenderer(width: 100), plugins: "", routes: "", scheme: "vivarium-test",
      settles: false)
    app = TerminalApp(session: session, name: "Test", width: 100, height: 30) { 1_000 }
    _ = await session.execute("open probe:tree")
    await runtime.settleAll()
    _ = app.frame()
  }
}

/// The texts `type` events brought, in order.
private final class TypedRecorder: @unchecked Sendable {
  var typed: [String] = []
}

private struct TreeFactory: ModuleFactory {
  static var contract: Contract { Contract(urn: "probe:tree", summary: "Draws a tree.") }
  let tree: ViewNode
  let recorder: TypedRecorder

  func build(_ context: ModuleContext) throws -> Module {
    let view = TreeView(canvas: context.canvas, tree: tree, recorder: recorder)
    return Module(view: view, presenter: TreePresenter())
  }
}

private final class TreeView: ViperView {
  let canvas: any Canvas
  let tree: ViewNode
  let recorder: TypedRecorder

  init(canvas: any Canvas, tree: ViewNode, recorder: TypedRecorder) {
    self.canvas = canvas
    self.tree = tree
    self.recorder = recorder
  }

  func lifecycle(_ event: LifecycleEvent) {
    if event == .attach { canvas.draw(tree) }
  }

  func handle(_ event: ViewEvent) {
    guard case .type(let field, let text) = event, case .field(field, let label, _, let placeholder) = tree else {
      return
    }
    recorder.typed.append(text)
    canvas.draw(.field(id: field, label: label, value: text, placeholder: placeholder))
  }
}

private final class TreePresenter: ViperPresenter {}
