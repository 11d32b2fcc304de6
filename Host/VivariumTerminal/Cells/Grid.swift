/// A frame of the terminal as cells: what the app draws, what tests read,
/// and what ``FrameWriter`` compares with the frame before. Nothing put in
/// a grid can reach the terminal as a control sequence: control and bidi
/// override characters become U+FFFD.
package struct Grid: Equatable, Sendable {
  /// A cell position, 0-based.
  package struct Point: Hashable, Sendable {
    /// The column.
    package var x: Int
    /// The row.
    package var y: Int

    /// The cell at column `x`, row `y`.
    package init(x: Int, y: Int) {
      self.x = x
      self.y = y
    }
  }

  /// Columns.
  package let width: Int
  /// Rows.
  package let height: Int
  /// Row by row.
  package private(set) var cells: [Cell]
  /// Where the terminal's cursor shows (a field being edited), or nil to
  /// hide it.
  package var cursor: Point?

  /// A blank grid of `width` × `height` cells (each at least 1).
  package init(width: Int, height: Int) {
    self.width = max(width, 1)
    self.height = max(height, 1)
    cells = Array(repeating: .blank, count: self.width * self.height)
  }

  /// The cell at column `x`, row `y`.
  package subscript(x x: Int, y y: Int) -> Cell {
    cells[y * width + x]
  }

  /// Writes `text` from column `x` of row `y`, in `style`, stopping before
  /// column `limit` (the grid's width unless given): a wide character that
  /// does not fit leaves a space. Returns the column after the last one
  /// written. Text outside the grid is dropped.
  @discardableResult
  package mutating func put(_ text: some StringProtocol, x: Int, y: Int, style: CellStyle = .plain, limit: Int? = nil)
    -> Int
  {
    guard y >= 0, y < height else { return x }
    let end = min(limit ?? width, width)
    var column = x
    for character in text {
      guard column < end else { break }
      let (shown, columns) = Grid.safe(character)
      if columns == 2, column + 1 >= end {
        if column >= 0 { set(Cell(" ", style: style), x: column, y: y) }
        column += 1
        break
      }
      if column >= 0 {
        set(Cell(shown, style: style), x: column, y: y)
        if columns == 2 { set(Cell("", style: style), x: column + 1, y: y) }
      } else if columns == 2, column == -1 {
        set(Cell(" ", style: style), x: 0, y: y)
      }
      column += columns
    }
    return column
  }

  /// Blanks `width` cells from column `x` of row `y` with spaces in `style`.
  package mutating func clear(x: Int, y: Int, width count: Int, style: CellStyle = .plain) {
    guard y >= 0, y < height else { return }
    for column in max(x, 0)..<max(min(x + count, width), max(x, 0)) { set(Cell(" ", style: style), x: column, y: y) }
  }

  /// Changes the style of `width` cells from column `x` of row `y`, keeping
  /// their text.
  package mutating func restyle(x: Int, y: Int, width count: Int, _ change: (inout CellStyle) -> Void) {
    guard y >= 0, y < height else { return }
    for column in max(x, 0)..<max(min(x + count, width), max(x, 0)) { change(&cells[y * width + column].style) }
  }

  /// Row `y` as text, wide characters once, trailing spaces removed.
  package func line(_ y: Int) -> String {
    var text = ""
    for x in 0..<width { text += self[x: x, y: y].text }
    while text.last == " " { text.removeLast() }
    return text
  }

  /// Every row as text (see ``line(_:)``).
  package var lines: [String] { (0..<height).map(line) }

  /// Puts `cell` at `x`, `y`, blanking the other half of any wide character
  /// it overwrites half of. A continuation is put right after its wide
  /// character, whose left half is then already in place.
  private mutating func set(_ cell: Cell, x: Int, y: Int) {
    let index = y * width + x
    if cells[index].isContinuation, x > 0, !cell.isContinuation {
      cells[index - 1].text = " "
    }
    if x + 1 < width, cells[index + 1].isContinuation {
      cells[index + 1].text = " "
    }
    cells[index] = cell
  }

  /// What is drawn for `character` and the columns it takes: control, bidi
  /// override and format characters (zero width: ZWJ, ZWSP, BOM, soft
  /// hyphen, which terminals disagree on) become U+FFFD; a combining mark
  /// with nothing to combine with is drawn on a dotted circle.
  static func safe(_ character: Character) -> (String, Int) {
    guard let first = character.unicodeScalars.first else { return ("\u{FFFD}", 1) }
    for scalar in character.unicodeScalars where isUnsafe(scalar) { return ("\u{FFFD}", 1) }
    switch first.properties.generalCategory {
    case .nonspacingMark, .enclosingMark, .spacingMark: return ("\u{25CC}" + String(character), 1)
    case .format: return ("\u{FFFD}", 1)
    default: return (String(character), DisplayWidth.of(character))
    }
  }

  private static func isUnsafe(_ scalar: Unicode.Scalar) -> Bool {
    switch scalar.value {
    case 0..<0x20, 0x7F..<0xA0, 0x202A...0x202E, 0x2066...0x2069, 0x2028, 0x2029: true
    default: false
    }
  }
}
