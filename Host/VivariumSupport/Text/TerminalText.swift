import ViperKit

/// Makes text that did not come from the host's own renderer harmless on a
/// terminal: every control character is shown as a visible escape instead of
/// being obeyed, so a plugin, a URN, a file name or typed text cannot move the
/// cursor, clear the screen, set the clipboard (OSC 52) or reorder what is
/// shown (bidi overrides).
///
/// This is the one rule for control characters in text the host did not
/// write, in line mode and full screen alike (a view tree is drawn through
/// ``ViewNode/terminalSafe`` in both):
///
/// - a tab is one space: it separates words, and text is wrapped and
///   indented to the window (runs of spaces close up), so no tab stop
///   could hold; a space is what a reader expects there, and what a tab
///   pasted into a field becomes too;
/// - ESC is shown as `\e`, other C0 controls as `\xNN` (`\x07`);
/// - DEL, the C1 controls U+0080–U+009F and the bidi embeddings, overrides
///   and isolates (U+202A–U+202E, U+2066–U+2069) as `\uNNNN`, which JSON
///   decodes back to the same character, so JSON text stays valid;
/// - a newline is kept only where asked: where it really is a line break
///   (view text, multi-line output); elsewhere it is `\x0A`, so a file name
///   holding one cannot forge a row of a report.
///
/// Applying it twice changes nothing more than applying it once.
package enum TerminalText {
  /// `text` with every control character made visible; newlines kept when
  /// `keepingNewlines`.
  package static func visible(_ text: String, keepingNewlines: Bool = false) -> String {
    visible(text, keepingNewlines: keepingNewlines, allowing: [])
  }

  /// `text` made visible as ``visible(_:keepingNewlines:)`` does, except the
  /// escape sequences in `allowed` (such as ``TextStyle/sequences``, the
  /// host's own colour codes), which pass through unchanged.
  package static func visible(_ text: String, keepingNewlines: Bool, allowing allowed: Set<String>) -> String {
    guard text.unicodeScalars.contains(where: { needsEscape($0, keepingNewlines: keepingNewlines) }) else {
      return text
    }
    let longest = allowed.map(\.unicodeScalars.count).max() ?? 0
    let scalars = Array(text.unicodeScalars)
    var result = String.UnicodeScalarView()
    var index = 0
    while index < scalars.count {
      let scalar = scalars[index]
      if scalar == "\u{1B}", longest > 0,
        let sequence = allowedSequence(in: scalars, at: index, allowed: allowed, longest: longest)
      {
        result.append(contentsOf: sequence.unicodeScalars)
        index += sequence.unicodeScalars.count
        continue
      }
      if scalar == "\t" {
        result.append(" ")
      } else if needsEscape(scalar, keepingNewlines: keepingNewlines) {
        result.append(contentsOf: shown(scalar).unicodeScalars)
      } else {
        result.append(scalar)
      }
      index += 1
    }
    return String(result)
  }

  /// JSON text with DEL, the C1 controls and the bidi controls written as
  /// `\uNNNN` escapes: JSONEncoder escapes only U+0000–U+001F and leaves
  /// these raw. Outside strings JSON holds none of them, so the result is the
  /// same JSON, harmless on a terminal.
  package static func json(_ text: String) -> String {
    guard text.unicodeScalars.contains(where: { needsEscape($0, keepingNewlines: true) }) else { return text }
    var result = String.UnicodeScalarView()
    for scalar in text.unicodeScalars {
      // Above U+001F, `shown` writes the `\uNNNN` form JSON reads back.
      if scalar.value >= 0x20, needsEscape(scalar, keepingNewlines: true) {
        result.append(contentsOf: shown(scalar).unicodeScalars)
      } else {
        result.append(scalar)
      }
    }
    return String(result)
  }

  /// Whether `scalar` is shown escaped.
  package static func needsEscape(_ scalar: Unicode.Scalar, keepingNewlines: Bool) -> Bool {
    switch scalar.value {
    case 0x0A: !keepingNewlines
    case 0x00...0x1F, 0x7F...0x9F, 0x202A...0x202E, 0x2066...0x2069: true
    default: false
    }
  }

  private static func shown(_ scalar: Unicode.Scalar) -> String {
    let value = scalar.value
    if value == 0x1B { return "\\e" }
    let hex = String(value, radix: 16, uppercase: true)
    if value < 0x20 { return "\\x" + String(repeating: "0", count: 2 - hex.count) + hex }
    return "\\u" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
  }

  private static func allowedSequence(
    in scalars: [Unicode.Scalar], at index: Int, allowed: Set<String>, longest: Int
  ) -> String? {
    var candidate = String.UnicodeScalarView()
    for scalar in scalars[index..<min(index + longest, scalars.count)] {
      candidate.append(scalar)
      let text = String(candidate)
      if allowed.contains(text) { return text }
    }
    return nil
  }
}

extension ViewNode {
  /// The tree with every string a plugin gave made visible by
  /// ``TerminalText``: newlines stay line breaks in text and notices, and are
  /// escaped everywhere else. Identifiers are escaped too, as drawn; slot
  /// names stay as they are, the keys the renderer draws each slot's content by.
  package var terminalSafe: ViewNode { madeVisible(identifiers: true) }

  /// The tree with every string that is drawn as text made visible as
  /// ``terminalSafe`` does, identifiers left as they are: for a host that
  /// never shows them and acts on an element by its identifier (full
  /// screen).
  package var terminalSafeText: ViewNode { madeVisible(identifiers: false) }

  private func madeVisible(identifiers: Bool) -> ViewNode {
    func line(_ text: String) -> String { TerminalText.visible(text) }
    func lines(_ text: String) -> String { TerminalText.visible(text, keepingNewlines: true) }
    func identifier(_ text: String) -> String { identifiers ? line(text) : text }
    switch self {
    case .text(let text, let tone): return .text(lines(text), tone: tone)
    case .heading(let text): return .heading(line(text))
    case .notice(let tone, let text): return .notice(tone, lines(text))
    case .button(let id, let title): return .button(id: identifier(id), title: line(title))
    case .field(let id, let label, let value, let placeholder):
      return .field(id: identifier(id), label: line(label), value: line(value), placeholder: line(placeholder))
    case .secretField(let id, let label, let length, let placeholder):
      return .secretField(id: identifier(id), label: line(label), length: length, placeholder: line(placeholder))
    case .list(let id, let rows):
      return .list(
        id: identifier(id),
        rows: rows.map { row in
          ListRow(
            id: identifier(row.id), title: line(row.title), detail: line(row.detail),
            marker: row.marker.map { Marker($0.tone, line($0.label)) })
        })
    case .slot: return self  // a contract name, validated at load, and the key to the slot's content
    case .stack(let axis, let children): return .stack(axis, children.map { $0.madeVisible(identifiers: identifiers) })
    @unknown default: return self
    }
  }
}

extension String {
  /// The string on one line with every control character made visible, for
  /// a report: see ``TerminalText/visible(_:keepingNewlines:)``.
  package var oneLineVisible: String { TerminalText.visible(self) }
}
