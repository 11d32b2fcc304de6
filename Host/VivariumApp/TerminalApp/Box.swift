import VivariumTerminal

/// Boxes drawn over the screen: a modal, an alert, the help, a report.
enum Box {
  /// A rectangle of cells.
  struct Rect: Equatable {
    var x: Int
    var y: Int
    var width: Int
    var height: Int
  }

  /// A `width` × `height` rectangle centred in `area` (cut to fit it).
  static func centred(width: Int, height: Int, in area: Rect) -> Rect {
    let width = max(min(width, area.width), 4)
    let height = max(min(height, area.height), 3)
    return Rect(
      x: area.x + (area.width - width) / 2, y: area.y + (area.height - height) / 2, width: width, height: height)
  }

  /// Clears `rect`, draws its border with `title` in the top edge, and
  /// returns the inside.
  @discardableResult
  static func draw(_ grid: inout Grid, _ rect: Rect, title: String, style: CellStyle) -> Rect {
    let right = rect.x + rect.width - 1
    let bottom = rect.y + rect.height - 1
    for row in rect.y...bottom { grid.clear(x: rect.x, y: row, width: rect.width) }
    let horizontal = String(repeating: "─", count: rect.width - 2)
    grid.put("╭" + horizontal + "╮", x: rect.x, y: rect.y, style: Palette.dim)
    grid.put("╰" + horizontal + "╯", x: rect.x, y: bottom, style: Palette.dim)
    for row in rect.y + 1..<bottom {
      grid.put("│", x: rect.x, y: row, style: Palette.dim)
      grid.put("│", x: right, y: row, style: Palette.dim)
    }
    grid.put(" " + TextWrap.truncate(title, to: rect.width - 6) + " ", x: rect.x + 2, y: rect.y, style: style)
    return Rect(x: rect.x + 1, y: rect.y + 1, width: rect.width - 2, height: rect.height - 2)
  }

  /// `line` in rows of at most `width` columns: as it is when it fits, else
  /// broken at spaces (its own spacing kept: a table's columns stay), the
  /// rows after the first indented two columns more than the line is.
  static func wrap(_ line: String, width: Int) -> [String] {
    guard DisplayWidth.of(line) > width else { return [line] }
    let hanging = String(repeating: " ", count: line.prefix { $0 == " " }.count + 2)
    guard width - hanging.count >= 10 else { return TextWrap.lines(line, width: width) }
    var rows: [String] = []
    var rest = Substring(line)
    var lead = ""
    while DisplayWidth.of(lead) + DisplayWidth.of(rest) > width {
      let head = TextWrap.prefix(rest, columns: width - DisplayWidth.of(lead)).0
      guard !head.isEmpty else { break }
      // The last space inside the text (not its indentation), unless the cut falls on a space.
      var cut = head.endIndex
      if rest[cut] != " ", let space = head.drop(while: { $0 == " " }).lastIndex(of: " ") { cut = space }
      rows.append(lead + String(rest[..<cut]).trimmingTrailingSpaces)
      rest = rest[cut...].drop { $0 == " " }
      lead = hanging
    }
    return rows + [lead + rest]
  }
}

extension String {
  /// This text without the spaces it ends with.
  fileprivate var trimmingTrailingSpaces: String {
    var text = Substring(self)
    while text.last == " " { text = text.dropLast() }
    return String(text)
  }
}
