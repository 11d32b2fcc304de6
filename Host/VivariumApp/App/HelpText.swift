/// The key help `?` shows, and the hints on the status line.
enum HelpText {
  static let lines = [
    "Tab, Shift-Tab     next, previous element (buttons, list rows, fields)",
    "↑ ↓ ← →            move between elements; ← → move the cursor in a field",
    "Enter              tap the button, open the row, leave the field",
    "PgUp PgDn          a page up or down a list or the screen",
    "Home End           first or last row of a list; in a field, its start or end",
    "Esc                back: close the box, the modal, or the screen on top",
    "type, paste        edit the focused field in place; Backspace, Delete",
    ":                  command line: open URN, tree, routes, plugins, log, quit",
    "                   (↑ ↓ history, Tab completes commands, URNs, addresses)",
    "?                  this help",
    "mouse              click an element to act on it; the wheel scrolls",
    "Ctrl-L             draw the whole screen again",
    "Ctrl-Z             suspend (fg to come back)",
    "q, Ctrl-C          quit",
    "",
    "Esc or any key closes this help.",
  ]

  /// The keys that apply to what is focused.
  static func hints(for kind: Hotspot.Kind?) -> String {
    switch kind {
    case .button?: "Enter tap · Tab/arrows move · Esc back · ? keys · q quit"
    case .row?: "Enter select · arrows PgUp PgDn move · Esc back · ? keys · q quit"
    case .field?: "type to edit · Enter/Tab/arrows move · Esc back · Ctrl-C quit"
    case nil: "Esc back · : command · ? keys · q quit"
    }
  }
}
