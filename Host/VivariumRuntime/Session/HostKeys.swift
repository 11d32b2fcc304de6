import ViperKit
import ViperKitHosting

/// The keys the app takes for itself outside a field, full screen and in
/// the page, written as ``ViperKit/CommandKey/name`` writes them: a
/// module's command with one of them is never run by it. The full-screen
/// app reads Ctrl-H, Ctrl-I, Ctrl-J and Ctrl-M as Backspace, Tab and
/// Enter, the bytes a terminal sends for them.
package enum HostKeys {
  /// What the app does with a key it takes.
  package enum Action: Sendable, CaseIterable {
    /// Quits the app.
    case quit
    /// Shows the keys.
    case showKeys
    /// Opens the command line.
    case openCommandLine
    /// Draws the whole screen again.
    case repaint
    /// Suspends the app (a terminal's job control).
    case suspend
    /// Backspace, as a terminal sends it.
    case backspace
    /// Tab, as a terminal sends it.
    case tab
    /// Enter, as a terminal sends it.
    case enter

    /// What it does, in a few words.
    package var does: String {
      switch self {
      case .quit: "quit"
      case .showKeys: "the keys"
      case .openCommandLine: "the command line"
      case .repaint: "draw the screen again"
      case .suspend: "suspend"
      case .backspace: "Backspace"
      case .tab: "Tab"
      case .enter: "Enter"
      }
    }
  }

  /// Each key with what the app does with it.
  package static let reserved: [(key: String, action: Action)] = [
    ("q", .quit), ("?", .showKeys), (":", .openCommandLine),
    (ctrl("c"), .quit), (ctrl("g"), .showKeys), (ctrl("p"), .openCommandLine),
    (ctrl("l"), .repaint), (ctrl("z"), .suspend),
    (ctrl("h"), .backspace), (ctrl("i"), .tab), (ctrl("j"), .enter), (ctrl("m"), .enter),
  ]

  /// How a key held with Ctrl is written, `Ctrl-` in `Ctrl-R`
  /// (``ViperKitHosting/CommandCheck/controlPrefix``).
  package static let controlPrefix = CommandCheck.controlPrefix

  /// What the app does with `key`, written as a command's key is, if it takes it.
  package static func action(of key: String) -> Action? {
    reserved.first { $0.key == key }?.action
  }

  /// What the host does with `key`, in words, if it takes it.
  package static func use(of key: String) -> String? { action(of: key)?.does }

  private static func ctrl(_ letter: Character) -> String { CommandKey.ctrl(letter).name }
}
