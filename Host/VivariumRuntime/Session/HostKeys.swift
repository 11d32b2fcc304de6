import ViperKit
import ViperKitHosting

/// The keys the app takes for itself outside a field, full screen and in
/// the page, written as ``ViperKit/CommandKey/name`` writes them: a
/// module's command with one of them is never run by it. The full-screen
/// app reads Ctrl-H, Ctrl-I, Ctrl-J and Ctrl-M as Backspace, Tab and
/// Enter, the bytes a terminal sends for them.
package enum HostKeys {
  /// Each key with what it does.
  package static let reserved: [(key: String, does: String)] = [
    ("q", "quit"), ("?", "the keys"), (":", "the command line"),
    (ctrl("c"), "quit"), (ctrl("g"), "the keys"), (ctrl("p"), "the command line"),
    (ctrl("l"), "draw the screen again"), (ctrl("z"), "suspend"),
    (ctrl("h"), "Backspace"), (ctrl("i"), "Tab"), (ctrl("j"), "Enter"), (ctrl("m"), "Enter"),
  ]

  /// How a key held with Ctrl is written, `Ctrl-` in `Ctrl-R`
  /// (``ViperKitHosting/CommandCheck/controlPrefix``).
  package static let controlPrefix = CommandCheck.controlPrefix

  /// What the host does with `key`, if it takes it.
  package static func use(of key: String) -> String? {
    reserved.first { $0.key == key }?.does
  }

  private static func ctrl(_ letter: Character) -> String { CommandKey.ctrl(letter).name }
}
