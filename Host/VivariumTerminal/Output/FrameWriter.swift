/// Turns the difference between two frames into the bytes a VT100/xterm
/// terminal needs to show the new one: the text of changed cells, cursor
/// moves (CUP), style changes (SGR), a full clear (ED 2) and the cursor
/// shown or hidden. Nothing else is ever written, and cell text is what
/// ``Grid`` holds, already made safe.
///
/// A frame is drawn on the assumption that the terminal shows `old`
/// exactly: pass nil after anything else wrote to the terminal.
package struct FrameWriter: Sendable {
  /// Whether foreground colours are written (SGR 30–37). Attributes
  /// (bold, dim, underline, reverse) are written either way: `NO_COLOR`
  /// forbids colour only.
  package let colour: Bool

  /// A writer that writes colour only when `colour` is true.
  package init(colour: Bool) {
    self.colour = colour
  }

  /// The bytes that change a terminal showing `old` into one showing
  /// `new`. With no `old`, or one of another size, the screen is cleared
  /// and repainted; otherwise only changed cells are written, and two
  /// identical frames give no bytes at all.
  package func frame(from old: Grid?, to new: Grid) -> [UInt8] {
    var output = FrameOutput(width: new.width, colour: colour)
    output.bytes.reserveCapacity(new.width * new.height * 4 + 64)
    let previous = old.flatMap { $0.width == new.width && $0.height == new.height ? $0 : nil }
    if previous == nil {
      output.bytes.append(contentsOf: FrameOutput.repaint)
      output.pen = .plain
      output.cursor = (0, 0)
    } else if let shown = previous?.cursor.map({ clamp($0, in: new) }) {
      // The frame before ended with the cursor there.
      output.cursor = (shown.x, shown.y)
    }
    new.cells.withUnsafeBufferPointer { newCells in
      if let previous {
        previous.cells.withUnsafeBufferPointer { oldCells in
          for y in 0..<new.height { output.writeRow(y, old: oldCells, new: newCells) }
        }
      } else {
        // The cleared screen is all blank: only the rest is written.
        for y in 0..<new.height { output.writeRow(y, old: nil, new: newCells) }
      }
    }
    output.finish(cursor: new.cursor.map { clamp($0, in: new) }, old: previous?.cursor, repainted: previous == nil)
    return output.bytes
  }

  private func clamp(_ point: Grid.Point, in grid: Grid) -> Grid.Point {
    Grid.Point(x: min(max(point.x, 0), grid.width - 1), y: min(max(point.y, 0), grid.height - 1))
  }
}

/// The bytes of one frame as they are written, and what the terminal's
/// cursor and pen are after them.
private struct FrameOutput {
  /// Reset, home, clear the screen.
  static let repaint: [UInt8] = Array("\u{1B}[0m\u{1B}[H\u{1B}[2J".utf8)
  /// The most unchanged columns written through to join two runs.
  static let longestGap = 8

  let width: Int
  let colour: Bool
  var bytes: [UInt8] = []
  /// The style last written, nil before any.
  var pen: CellStyle?
  /// The cursor's column and row, nil when unknown (after the last column,
  /// the terminal waits to wrap).
  var cursor: (x: Int, y: Int)?

  init(width: Int, colour: Bool) {
    self.width = width
    self.colour = colour
  }

  /// Writes the cells of row `y` that differ from `old` (blank when nil).
  mutating func writeRow(_ y: Int, old: UnsafeBufferPointer<Cell>?, new: UnsafeBufferPointer<Cell>) {
    let row = y * width
    let colour = colour
    func changed(_ x: Int) -> Bool {
      let cell = new[row + x]
      guard let old else { return cell.text != " " || FrameOutput.shown(cell.style, colour) != .plain }
      let before = old[row + x]
      return cell.text != before.text
        || FrameOutput.shown(cell.style, colour) != FrameOutput.shown(before.style, colour)
    }
    var x = 0
    while x < width {
      guard changed(x) else {
        x += 1
        continue
      }
      // A changed continuation is written from its wide character.
      var column = x > 0 && new[row + x].isContinuation && !new[row + x - 1].isContinuation ? x - 1 : x
      move(to: column, y)
      while column < width {
        column = write(new, row: row, x: column)
        cursor = column < width ? (column, y) : nil
        guard column < width, !changed(column) else { continue }
        guard let next = nextChange(after: column, changed), joins(new, row: row, from: column, to: next, y: y)
        else { break }
      }
      x = column
    }
  }

  /// The first changed column after `x`, looking no further than a gap
  /// worth joining.
  private func nextChange(after x: Int, _ changed: (Int) -> Bool) -> Int? {
    var next = x + 1
    while next < min(width, x + FrameOutput.longestGap + 1) {
      if changed(next) { return next }
      next += 1
    }
    return nil
  }

  /// Whether writing the unchanged cells `from..<to` again is cheaper than
  /// moving the cursor over them: they must need no style change.
  private func joins(_ cells: UnsafeBufferPointer<Cell>, row: Int, from: Int, to: Int, y: Int) -> Bool {
    var cost = 0
    for x in from..<to {
      let cell = cells[row + x]
      if cell.isContinuation { continue }
      if shown(cell.style) != pen { return false }
      cost += cell.text.utf8.count
    }
    return cost <= 4 + digits(y + 1) + digits(to + 1)
  }

  /// Writes the cell at `x` (with its continuation when wide) and returns
  /// the column after it.
  private mutating func write(_ cells: UnsafeBufferPointer<Cell>, row: Int, x: Int) -> Int {
    let cell = cells[row + x]
    setPen(shown(cell.style))
    if cell.isContinuation {
      // Only a malformed grid has one here: a space keeps columns aligned.
      bytes.append(0x20)
      return x + 1
    }
    bytes.append(contentsOf: cell.text.utf8)
    return x + 1 < width && cells[row + x + 1].isContinuation ? x + 2 : x + 1
  }

  /// Ends the frame with the cursor where `point` says, shown, or hidden
  /// when nil; only what changed since `old` unless `repainted`.
  mutating func finish(cursor point: Grid.Point?, old: Grid.Point?, repainted: Bool) {
    if let point {
      move(to: point.x, point.y)
      if repainted || old == nil { bytes.append(contentsOf: [0x1B, 0x5B, 0x3F, 0x32, 0x35, 0x68]) }
    } else if repainted || old != nil {
      bytes.append(contentsOf: [0x1B, 0x5B, 0x3F, 0x32, 0x35, 0x6C])
    }
  }

  /// CUP to column `x`, row `y` unless the cursor is there already.
  private mutating func move(to x: Int, _ y: Int) {
    if let cursor, cursor.x == x, cursor.y == y { return }
    bytes.append(0x1B)
    bytes.append(0x5B)
    appendNumber(y + 1)
    bytes.append(0x3B)
    appendNumber(x + 1)
    bytes.append(0x48)
    cursor = (x, y)
  }

  /// SGR to `style` unless it is the pen already.
  private mutating func setPen(_ style: CellStyle) {
    if pen == style { return }
    pen = style
    bytes.append(contentsOf: [0x1B, 0x5B, 0x30])
    if style.bold { bytes.append(contentsOf: [0x3B, 0x31]) }
    if style.dim { bytes.append(contentsOf: [0x3B, 0x32]) }
    if style.underline { bytes.append(contentsOf: [0x3B, 0x34]) }
    if style.reverse { bytes.append(contentsOf: [0x3B, 0x37]) }
    if let foreground = style.foreground { bytes.append(contentsOf: [0x3B, 0x33, 0x30 + foreground.rawValue]) }
    bytes.append(0x6D)
  }

  /// `style` as drawn: without its colour when colour is off.
  private func shown(_ style: CellStyle) -> CellStyle {
    FrameOutput.shown(style, colour)
  }

  /// `style` as drawn: without its colour unless `colour`.
  private static func shown(_ style: CellStyle, _ colour: Bool) -> CellStyle {
    guard !colour, style.foreground != nil else { return style }
    var style = style
    style.foreground = nil
    return style
  }

  private mutating func appendNumber(_ number: Int) {
    if number >= 10 { appendNumber(number / 10) }
    bytes.append(0x30 + UInt8(number % 10))
  }

  private func digits(_ number: Int) -> Int {
    number < 10 ? 1 : 1 + digits(number / 10)
  }
}
