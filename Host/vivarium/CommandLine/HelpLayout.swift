import Foundation
import VivariumSupport

/// Lays out help text at most ``width`` columns wide: paragraphs, a usage
/// line broken between options, and two-column tables with hanging indents.
enum HelpLayout {
  /// The widest help line.
  static let width = 80

  /// `text` re-flowed: lines within a paragraph joined, paragraphs (separated
  /// by an empty line) wrapped at ``width``.
  static func paragraphs(_ text: String) -> String {
    text.split(separator: "\n\n", omittingEmptySubsequences: false).map { paragraph in
      let joined = paragraph.split(separator: "\n").joined(separator: " ")
      return TextRenderer.wrap(joined, width: width).joined(separator: "\n")
    }.joined(separator: "\n\n")
  }

  /// `Usage: SYNOPSIS`, broken between options (never inside `[…]`) and
  /// continued under the command name.
  static func usage(_ synopsis: String) -> String {
    var words: [String] = []
    var depth = 0
    for token in synopsis.split(separator: " ") {
      if depth > 0, let last = words.popLast() {
        words.append(last + " " + token)
      } else {
        words.append(String(token))
      }
      depth += token.filter { $0 == "[" }.count - token.filter { $0 == "]" }.count
    }
    let head = "Usage: "
    let indent = String(repeating: " ", count: head.count + (words.first.map { $0.count + 1 } ?? 0))
    var lines: [String] = []
    var line = head
    for word in words {
      if line == head || line == indent {
        line += word
      } else if line.count + 1 + word.count <= width {
        line += " " + word
      } else {
        lines.append(line)
        line = indent + word
      }
    }
    lines.append(line)
    return lines.joined(separator: "\n")
  }

  /// Rows of `label` and `text`: labels indented by `indent`, texts wrapped
  /// in a column after the longest label.
  static func table(_ rows: [(label: String, text: String)], indent: Int = 2) -> String {
    let column = indent + (rows.map(\.label.count).max() ?? 0) + 2
    return rows.flatMap { label, text in
      TextRenderer.wrap(text, width: width - column).enumerated().map { index, line in
        let left = index == 0 ? String(repeating: " ", count: indent) + label : ""
        return left.padding(toLength: column, withPad: " ", startingAt: 0) + line
      }
    }.joined(separator: "\n")
  }
}
