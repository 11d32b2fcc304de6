import ViperKit
import VivariumTerminal

/// Lays a view tree out as terminal lines, at most `width` columns wide
/// (escape codes aside). Interactive elements show their identifiers, which is
/// what a person types to act on them.
package struct TextRenderer: Sendable {
  /// The widest line, in columns.
  package let width: Int
  /// Colour or plain.
  package let style: TextStyle

  /// The narrowest a renderer draws, in columns.
  package static let minimumWidth = 20

  /// A renderer for `width` columns (at least ``minimumWidth``).
  package init(width: Int = 80, style: TextStyle = .plain) {
    self.width = max(width, TextRenderer.minimumWidth)
    self.style = style
  }

  /// Lines drawn in place of a slot: given the slot name and the width
  /// available, the lines, or nil to draw the slot as empty.
  package typealias SlotContent = (_ name: String, _ width: Int) -> [String]?

  /// Draws in place of a slot: given the slot name, the width available and
  /// the prefix every line starts with, appends its lines to `output`, each
  /// after the prefix; returns false to draw the slot as empty.
  package typealias SlotDrawing = (_ name: String, _ width: Int, _ prefix: String, _ output: inout [String]) -> Bool

  /// The lines for `tree`; `slots` draws what is embedded in each slot.
  package func lines(_ tree: ViewNode, slots: SlotContent? = nil) -> [String] {
    var output: [String] = []
    draw(tree, prefix: "", into: &output) { name, width, prefix, output in
      guard let lines = slots?(name, width) else { return false }
      output += lines.map { prefix + $0 }
      return true
    }
    return output
  }

  /// Appends the lines for `tree` to `output`, each after `prefix` (the
  /// frames around it, already drawn once by the caller); `slots` draws what
  /// is embedded in each slot. Nested modules pass their prefix down instead
  /// of prefixing the lines they get back, so each line is built once however
  /// deep it is.
  package func draw(_ tree: ViewNode, prefix: String, into output: inout [String], slots: SlotDrawing?) {
    draw(tree.terminalSafe, width: width, prefix: prefix, into: &output, slots: slots)
  }

  /// `tree` as text ending in a newline.
  package func render(_ tree: ViewNode) -> String {
    lines(tree).joined(separator: "\n") + "\n"
  }

  private func draw(_ node: ViewNode, width: Int, prefix: String, into output: inout [String], slots: SlotDrawing?) {
    switch node {
    case .slot(let name):
      if slots?(name, width, prefix, &output) != true { output.append(prefix + style.dim("[slot \(name): empty]")) }
    case .stack(.horizontal, let children):
      let parts = children.map { child in
        var lines: [String] = []
        draw(child, width: width, prefix: "", into: &lines, slots: slots)
        return lines
      }
      let joined = parts.map { $0.joined(separator: " ") }.joined(separator: "  ")
      if parts.allSatisfy({ $0.count == 1 }), TextRenderer.visibleCount(joined) <= width {
        output.append(prefix + joined)
      } else {
        for line in parts.joined() { output.append(prefix + line) }
      }
    case .stack(_, let children):
      for child in children { draw(child, width: width, prefix: prefix, into: &output, slots: slots) }
    default:
      for line in lines(node, width: width) { output.append(prefix + line) }
    }
  }

  /// The lines of an element that holds no slot.
  private func lines(_ node: ViewNode, width: Int) -> [String] {
    switch node {
    case .heading(let text):
      let title = TextRenderer.truncate(text, to: width)
      return [style.bold(title), String(repeating: "─", count: title.count)]
    case .text(let text, let tone):
      return TextRenderer.wrap(text, width: width).map { style.tone(tone, $0) }
    case .notice(let tone, let text):
      let mark = TextRenderer.noticeMark(tone)
      return TextRenderer.wrap(text, width: width - 2).enumerated().map { index, line in
        style.tone(tone, (index == 0 ? mark + " " : "  ") + line)
      }
    case .button(let id, let title):
      return [button(id, title)]
    case .field(let id, let label, let value, let placeholder):
      return [field(id, label, value, placeholder)]
    case .secretField(let id, let label, let length, let placeholder):
      let dots = min(max(length, 0), TextRenderer.longestSecret)
      return [field(id, label, String(repeating: "•", count: dots), placeholder)]
    case .list(let id, let rows):
      return [style.dim("list \(id):")] + rows.map { row($0, width: width) }
    case .slot, .stack:
      var output: [String] = []
      draw(node, width: width, prefix: "", into: &output, slots: nil)
      return output
    @unknown default:
      return [style.dim("(an element this host cannot draw)")]
    }
  }

  /// The most dots a secret field draws: a longer length is a plugin's
  /// mistake, not allowed to fill memory with dots (a negative one draws none).
  package static let longestSecret = 1_000

  /// `Label: [value] (id)`, the placeholder dimmed when the value is empty.
  private func field(_ id: String, _ label: String, _ value: String, _ placeholder: String) -> String {
    let shown = value.isEmpty ? style.dim(placeholder.isEmpty ? "…" : placeholder) : value
    return "\(label): [\(shown)] " + style.dim("(\(id))")
  }

  private func button(_ id: String, _ title: String) -> String {
    "[ \(style.bold(title)) ]" + style.dim(" (\(id))")
  }

  private func row(_ row: ListRow, width: Int) -> String {
    let marker = row.marker.map { " " + style.tone($0.tone, "[\($0.label)]") } ?? ""
    let markerWidth = row.marker.map { $0.label.count + 3 } ?? 0
    let prefix = "  (\(row.id)) "
    let detail = row.detail.isEmpty ? "" : "  " + row.detail
    let room = width - prefix.count - markerWidth - detail.count
    let title = TextRenderer.truncate(row.title, to: max(room, 8))
    let padding = String(repeating: " ", count: max(0, room - title.count))
    guard !detail.isEmpty || !marker.isEmpty else { return prefix + title }
    return prefix + title + padding + style.dim(detail) + marker
  }

  /// The mark a notice of `tone` starts with: ✓, !, ✗ or i.
  package static func noticeMark(_ tone: Tone) -> String {
    switch tone {
    case .positive: "✓"
    case .warning: "!"
    case .negative: "✗"
    default: "i"
    }
  }

  /// `text`, cut to `width` characters with an ellipsis if longer.
  package static func truncate(_ text: String, to width: Int) -> String {
    text.count <= width ? text : String(text.prefix(max(width - 1, 0))) + "…"
  }

  /// `text` cut into lines of at most `width` columns at spaces; words
  /// longer than a line are split (``TextWrap``: a wide character counts two).
  package static func wrap(_ text: String, width: Int) -> [String] {
    TextWrap.lines(text, width: width)
  }

  /// Columns taken by `text` once ANSI escape sequences are removed.
  package static func visibleCount(_ text: String) -> Int {
    var count = 0
    var inEscape = false
    for character in text {
      if inEscape {
        if character == "m" { inEscape = false }
      } else if character == "\u{1B}" {
        inEscape = true
      } else {
        count += 1
      }
    }
    return count
  }
}
