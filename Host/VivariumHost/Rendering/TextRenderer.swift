import ViperKit

/// Lays a view tree out as terminal lines, at most `width` columns wide
/// (escape codes aside). Interactive elements show their identifiers, which is
/// what a person types to act on them.
public struct TextRenderer: Sendable {
  /// The widest line, in columns.
  public let width: Int
  /// Colour or plain.
  public let style: TextStyle

  /// A renderer for `width` columns.
  public init(width: Int = 80, style: TextStyle = .plain) {
    self.width = max(width, 20)
    self.style = style
  }

  /// Lines drawn in place of a slot: given the slot name and the width
  /// available, the lines, or nil to draw the slot as empty.
  public typealias SlotContent = (_ name: String, _ width: Int) -> [String]?

  /// The lines for `tree`; `slots` draws what is embedded in each slot.
  public func lines(_ tree: ViewNode, slots: SlotContent? = nil) -> [String] {
    lines(tree.terminalSafe, width: width, slots: slots)
  }

  /// `tree` as text ending in a newline.
  public func render(_ tree: ViewNode) -> String {
    lines(tree).joined(separator: "\n") + "\n"
  }

  private func lines(_ node: ViewNode, width: Int, slots: SlotContent?) -> [String] {
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
      let shown = value.isEmpty ? style.dim(placeholder.isEmpty ? "…" : placeholder) : value
      return ["\(label): [\(shown)] " + style.dim("(\(id))")]
    case .list(let id, let rows):
      return [style.dim("list \(id):")] + rows.map { row($0, width: width) }
    case .slot(let name):
      return slots?(name, width) ?? [style.dim("[slot \(name): empty]")]
    case .stack(.horizontal, let children):
      let parts = children.map { lines($0, width: width, slots: slots) }
      let joined = parts.map { $0.joined(separator: " ") }.joined(separator: "  ")
      if parts.allSatisfy({ $0.count == 1 }), TextRenderer.visibleCount(joined) <= width { return [joined] }
      return parts.flatMap { $0 }
    case .stack(_, let children):
      return children.flatMap { lines($0, width: width, slots: slots) }
    @unknown default:
      return [style.dim("(an element this host cannot draw)")]
    }
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

  static func noticeMark(_ tone: Tone) -> String {
    switch tone {
    case .positive: "✓"
    case .warning: "!"
    case .negative: "✗"
    default: "i"
    }
  }

  /// `text`, cut to `width` characters with an ellipsis if longer.
  public static func truncate(_ text: String, to width: Int) -> String {
    text.count <= width ? text : String(text.prefix(max(width - 1, 0))) + "…"
  }

  /// `text` cut into lines of at most `width` characters at spaces; words
  /// longer than a line are split. Each character is counted once.
  public static func wrap(_ text: String, width: Int) -> [String] {
    let width = max(width, 1)
    var lines: [String] = []
    for paragraph in text.split(separator: "\n", omittingEmptySubsequences: false) {
      var line = ""
      var lineCount = 0
      for whole in paragraph.split(separator: " ") {
        var word = Substring(whole)
        var wordCount = word.count
        while wordCount > width {
          if lineCount > 0 {
            lines.append(line)
            (line, lineCount) = ("", 0)
          }
          let end = word.index(word.startIndex, offsetBy: width)
          lines.append(String(word[..<end]))
          (word, wordCount) = (word[end...], wordCount - width)
        }
        if lineCount == 0 {
          (line, lineCount) = (String(word), wordCount)
        } else if lineCount + 1 + wordCount <= width {
          (line, lineCount) = (line + " " + word, lineCount + 1 + wordCount)
        } else {
          lines.append(line)
          (line, lineCount) = (String(word), wordCount)
        }
      }
      lines.append(line)
    }
    return lines
  }

  /// Columns taken by `text` once ANSI escape sequences are removed.
  static func visibleCount(_ text: String) -> Int {
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
