import Foundation
import ViperKit
import VivariumRuntime

/// The full-screen app over a session: keys in, frames out. It holds what
/// the terminal shows beyond the modules' own state (focus, the field being
/// edited, scroll positions, overlays, the command line, the message line)
/// and draws a ``Grid``; it never touches the terminal, so tests drive it
/// with key events and read the grid (the loop in ``AppLoop`` connects it
/// to a real terminal).
@MainActor
package final class TerminalApp {
  /// What the loop does after a key.
  package enum Action: Equatable, Sendable {
    /// Draw the next frame.
    case redraw
    /// Repaint the whole terminal (Ctrl-L).
    case repaint
    /// Stop the process as Ctrl-Z does; continue drawing after `fg`.
    case suspend
    /// End the app.
    case quit
  }

  /// A box over the screen.
  enum Overlay: Equatable {
    case help
    case report(title: String, lines: [String])
  }

  /// The line above the status line: a notice, a problem or an error, shown
  /// for ``messageSeconds``.
  struct Message: Equatable {
    let tone: Tone
    let text: String
    let shown: Double
  }

  /// The session the app drives.
  package let session: Session
  var runtime: HostRuntime { session.runtime }
  /// The app's name for the header.
  let name: String
  /// URN patterns the catalog routes, for completion.
  let patterns: [String]
  /// Seconds on a monotonic clock; a test may set its own.
  let now: () -> Double
  /// The terminal's width in columns.
  package private(set) var width: Int
  /// The terminal's height in rows.
  package private(set) var height: Int

  var focus: FocusKey?
  /// The node focus belongs to, and focus remembered per screen left.
  var focusOwner: ObjectIdentifier?
  var focusMemory: [ObjectIdentifier: FocusKey] = [:]
  /// Where the focus was among the hotspots, for when its element goes.
  var focusIndex = 0
  /// Where the arrow keys move the focus.
  var focusSearch = FocusSearch()
  /// Whether focus moved by a key since the last frame (scroll to it).
  var focusMoved = true
  /// The editor of the focused field, and the value the module last drew in it.
  var editor: FieldEditor?
  var editorDrawn: String?
  /// Whether the focused field takes the keys typed: true when focus
  /// arrives on it; Esc leaves it (the field stays focused, and `:`, `?`
  /// and `q` act again), Enter takes it up again.
  var editing = true
  /// Secret text typed per field address: the module never draws it back.
  var secrets: [String: String] = [:]
  /// Scroll offsets per pane (keyed by the pane's module).
  var offsets: [ObjectIdentifier: Int] = [:]
  var overlay: Overlay?
  var overlayOffset = 0
  var commandLine = CommandLine()
  var commandActive = false
  var message: Message?
  /// Whether the focused answer of the question on screen is the one that
  /// goes ahead; the other, which does not, is focused first.
  var questionConfirms = false
  /// Hotspots of the interactive pane as drawn last, in grid coordinates.
  var drawnHotspots: [Hotspot] = []
  /// Whether the screen may have changed since the last frame (a key acted,
  /// a module's work drew): the next key lays it out again first.
  var stale = false
  /// The interactive pane as drawn last: its node, rows on screen, page height.
  var activePane: (id: ObjectIdentifier, top: Int, rows: Int, height: Int)?

  /// Pages laid out lately, newest last (see ``layout(_:)``).
  var layouts: [(key: LayoutKey, page: Page)] = []
  /// How many pages were laid out: what keys cost, for tests.
  var layoutsMade = 0
  /// The most pages kept laid out.
  static let layoutsKept = 4

  /// How long a message stays, in seconds.
  static let messageSeconds = 5.0
  /// The smallest window drawn.
  static let minimumSize = (width: 40, height: 10)

  /// An app over `session`, `width` × `height` cells; `name` heads the
  /// screen; `now` is a monotonic clock in seconds.
  package init(
    session: Session, name: String, width: Int, height: Int,
    now: @escaping () -> Double = { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }
  ) {
    self.session = session
    self.name = name
    self.width = width
    self.height = height
    self.now = now
    patterns = session.runtime.catalog.routes.map(\.pattern.description)
    // The host's hints name the app's own commands (':routes').
    session.runtime.services.invocation.place = .fullScreen
  }

  /// The terminal's new size.
  package func resize(width: Int, height: Int) {
    self.width = width
    self.height = height
    focusMoved = true
  }

  /// Says the modules' screen changed without a key (their work drew).
  package func screenChanged() { stale = true }

  /// Shows `text` on the message line, in place of what was there.
  package func say(_ text: String, tone: Tone) {
    message = Message(tone: tone, text: text, shown: now())
  }

  /// When the app next needs a frame without input: a spinner turning, a
  /// message to clear. Nil if nothing changes by itself.
  package func nextFrameDue() -> Double? {
    var due: [Double] = []
    if isWorking { due.append(now() + 0.1) }
    if let message { due.append(message.shown + seconds(showing: message)) }
    return due.min()
  }

  /// How long `message` stays: ``messageSeconds``, and 2 more for each
  /// further row it takes.
  func seconds(showing message: Message) -> Double {
    TerminalApp.messageSeconds + 2 * Double(messageRows(message).count - 1)
  }

  /// Whether any module has work in flight (not a timer waiting).
  var isWorking: Bool { runtime.work.isAnyActive }

  /// The spinner's frame now.
  var spinner: String {
    let frames = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"]
    return frames[Int(now() * 10) % frames.count]
  }
}

/// What a page is laid out from: the composed screen, the width, and the
/// focus, the editor and the spinner it shows.
struct LayoutKey: Equatable {
  let screen: ComposedScreen
  let width: Int
  let focus: FocusKey?
  let editor: FieldEditor?
  let spinner: String
}
