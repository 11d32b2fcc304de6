import ViperKit
import VivariumRuntime
import VivariumSupport
import VivariumTerminal

/// The key help `?` shows, and the hints on the status line.
enum KeyHelp {
  /// The help: the app's keys, then the commands the modules on screen
  /// offer, then how the help closes.
  static func lines(with commands: [ScreenCommand]) -> [String] {
    keys + lines(of: commands) + [""] + footer
  }

  /// The app's own keys.
  static let keys = [
    "Tab, Shift-Tab     next, previous element (buttons, list rows, fields)",
    "↑ ↓ ← →            to the nearest element that way (↓ from a tab header into",
    "                   its tab, ↑ back); ← → move the cursor in a field",
    "Enter              tap the button, open the row; in a field, go to the next element",
    "PgUp PgDn          a page up or down a list or the screen",
    "Home End           first or last row of a list; in a field, its start or end",
    "type, paste        edit the focused field in place; Backspace, Delete",
    "Esc                in a field, leave it: the keys below act (Enter edits it again);",
    "                   else back: close the box, the modal, or the screen on top",
    ":, Ctrl-P          command line: open URN, tree, routes, plugins, log, quit",
    "                   COMMAND, a module's command (↑ ↓ history, Tab completes",
    "                   commands, URNs, addresses;",
    "                   the bottom line names the focused element's address)",
    "?, Ctrl-G          this help",
    "mouse              click an element to act on it; the wheel scrolls",
    "Ctrl-L             draw the whole screen again",
    "Ctrl-Z             suspend (fg to come back)",
    "q, Ctrl-C          quit",
    "in a question      ← → or Tab move between its answers, Enter gives the",
    "                   marked one, Esc the one that does not go ahead",
  ]

  /// How the help ends.
  static let footer = [
    "Ctrl-P, Ctrl-G and Ctrl-C work everywhere, in a field too.",
    "Esc or any key closes this help.",
  ]

  /// The help's lines for the commands the modules on screen offer: each
  /// key, what the command does, its id and its plugin, and what takes
  /// its key instead when one does; none when they offer none.
  private static func lines(of commands: [ScreenCommand]) -> [String] {
    guard !commands.isEmpty else { return [] }
    return ["", "Commands of this screen (the key outside a field, or :COMMAND):"]
      + commands.map { command in
        let key = command.key ?? ""
        let conflict = command.conflictText.map { "; conflicting: \($0)" } ?? ""
        return
          (key + String(repeating: " ", count: max(1, 19 - key.count))
          + "\(command.title) (:\(command.id), \(command.plugin)\(conflict))").oneLineVisible
      }
  }

  /// The key a key event is, as a command's key is written (`r`,
  /// `Ctrl-R`); nil for one no command can have.
  static func commandKey(_ key: KeyEvent) -> String? {
    switch key {
    case .character(let character): String(character)
    case .control(let letter): CommandKey.ctrl(letter).name
    default: nil
    }
  }

  /// The keys that apply to what is focused; `editing` says whether a
  /// focused field takes the keys typed.
  static func hints(for kind: Hotspot.Kind?, editing: Bool) -> String {
    switch kind {
    case .button?: "Enter tap · Tab/arrows move · Esc back · : command · ? keys · q quit"
    case .row?: "Enter select · arrows PgUp PgDn move · Esc back · : command · ? keys · q quit"
    case .field? where editing: "Esc leave field · Ctrl-P command · Ctrl-G keys · Ctrl-C quit"
    case .field?: "Enter edit · Tab move · Esc back · : command · ? keys · q quit"
    case nil: "Esc back · : command · ? keys · q quit"
    }
  }
}
