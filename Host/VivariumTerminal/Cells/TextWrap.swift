/// Text cut into lines of at most a number of columns, at spaces; a word
/// wider than a line is split. Columns are display columns: a CJK character
/// or an emoji counts two.
package enum TextWrap {
  /// `text` in lines of at most `width` columns (at least 1; a wide
  /// character alone on a line of 1 takes its 2); each line break in it
  /// starts a new line.
  package static func lines(_ text: String, width: Int) -> [String] {
    let width = max(width, 1)
    if fitsAsItIs(text, width: width) { return [text] }
    var lines: [String] = []
    for paragraph in text.split(separator: "\n", omittingEmptySubsequences: false) {
      var line = ""
      var used = 0
      for word in paragraph.split(separator: " ") {
        var piece = Substring(word)
        var columns = DisplayWidth.of(piece)
        while columns > width {
          if used > 0 {
            lines.append(line)
            (line, used) = ("", 0)
          }
          var (head, headColumns) = prefix(piece, columns: width)
          if head.isEmpty {
            // One character wider than the line: it takes a line of its own.
            head = piece.prefix(1)
            headColumns = DisplayWidth.of(head)
            if head.endIndex == piece.endIndex { break }
          }
          lines.append(String(head))
          piece = piece[head.endIndex...]
          columns -= headColumns
        }
        if used == 0 {
          (line, used) = (String(piece), columns)
        } else if used + 1 + columns <= width {
          (line, used) = (line + " " + piece, used + 1 + columns)
        } else {
          lines.append(line)
          (line, used) = (String(piece), columns)
        }
      }
      lines.append(line)
    }
    return lines
  }

  /// Whether `text` is one line of printable ASCII, words one space apart,
  /// no wider than `width`: what wrapping leaves as it is, found without
  /// measuring characters (a report wraps hundreds of such cells).
  private static func fitsAsItIs(_ text: String, width: Int) -> Bool {
    let utf8 = text.utf8
    guard utf8.count <= width, utf8.first != 0x20, utf8.last != 0x20 else { return false }
    var previous: UInt8 = 0
    for byte in utf8 {
      guard (0x20...0x7E).contains(byte), byte != 0x20 || previous != 0x20 else { return false }
      previous = byte
    }
    return true
  }

  /// The longest start of `text` at most `columns` wide, and its width.
  package static func prefix(_ text: Substring, columns: Int) -> (Substring, Int) {
    var used = 0
    var end = text.startIndex
    while end < text.endIndex {
      let next = DisplayWidth.of(text[end])
      guard used + next <= columns else { break }
      used += next
      end = text.index(after: end)
    }
    return (text[..<end], used)
  }

  /// `text` cut to `columns` with an ellipsis if wider.
  package static func truncate(_ text: String, to columns: Int) -> String {
    guard DisplayWidth.of(text) > columns else { return text }
    guard columns > 1 else { return columns == 1 ? "…" : "" }
    return String(prefix(text[...], columns: columns - 1).0) + "…"
  }
}
