@testable import VivariumTerminal

/// A terminal screen that understands exactly what ``FrameWriter`` may
/// write: CUP, SGR 0/1/2/4/7/30–37, ED 2, cursor show/hide and UTF-8 text
/// (wide characters take two columns; writing over half of one blanks
/// it, as xterm does). Any other byte, a write past the last column (a
/// wrap) or a clear with a style set is an error.
struct VirtualTerminal {
  /// What the bytes did that a frame never does.
  struct Failure: Error, CustomStringConvertible {
    /// What and where.
    let description: String
  }

  let width: Int
  let height: Int
  /// Row by row.
  private(set) var cells: [Cell]
  /// The cursor, nil until first moved; its column is `width` after
  /// writing the last column.
  private(set) var cursor: Grid.Point?
  private(set) var cursorVisible = true
  private(set) var pen = CellStyle.plain
  /// Whether a colour (SGR 30–37) may be set.
  let allowsColour: Bool
  /// How many CUPs with a position moved the cursor where the writer knew
  /// it already was (the cursor was shown, or placed by the same bytes).
  private(set) var needlessMoves = 0
  private var positionKnown = false

  /// A screen of `width` × `height` cells holding `?` until drawn on.
  init(width: Int, height: Int, allowsColour: Bool = true) {
    self.width = width
    self.height = height
    self.allowsColour = allowsColour
    cells = Array(repeating: Cell("?"), count: width * height)
  }

  /// Interprets `bytes`, stopping at the first that a frame never writes.
  mutating func apply(_ bytes: [UInt8]) throws {
    var index = 0
    positionKnown = cursorVisible
    while index < bytes.count {
      if bytes[index] == 0x1B {
        index = try sequence(bytes, at: index)
        continue
      }
      var end = index
      while end < bytes.count, bytes[end] != 0x1B { end += 1 }
      guard let text = String(validating: bytes[index..<end], as: UTF8.self) else {
        throw Failure(description: "not UTF-8 at byte \(index)")
      }
      for character in text { try write(character) }
      index = end
    }
  }

  /// Whether the screen shows `grid`: every cell's text and style (a
  /// continuation by its text only: the terminal draws it with its wide
  /// character), the cursor where the grid wants it, or hidden.
  func shows(_ grid: Grid, colour: Bool = true) -> Bool {
    guard grid.width == width, grid.height == height else { return false }
    for (index, cell) in grid.cells.enumerated() {
      var style = cell.style
      if !colour { style.foreground = nil }
      guard cells[index].text == cell.text, cell.isContinuation || cells[index].style == style else { return false }
    }
    guard let point = grid.cursor else { return !cursorVisible }
    return cursorVisible && cursor == point
  }

  /// Rows as text, for failure messages.
  var lines: [String] {
    (0..<height).map { y in (0..<width).map { cells[y * width + $0].text }.joined() }
  }

  private mutating func sequence(_ bytes: [UInt8], at start: Int) throws -> Int {
    guard start + 1 < bytes.count, bytes[start + 1] == UInt8(ascii: "[") else {
      throw Failure(description: "ESC not followed by [ at byte \(start)")
    }
    var end = start + 2
    while end < bytes.count, !(0x40...0x7E).contains(bytes[end]) { end += 1 }
    guard end < bytes.count else { throw Failure(description: "unfinished sequence at byte \(start)") }
    let parameters = String(decoding: bytes[start + 2..<end], as: UTF8.self)
    let final = Character(Unicode.Scalar(bytes[end]))
    switch (final, parameters) {
    case ("h", "?25"): cursorVisible = true
    case ("l", "?25"): cursorVisible = false
    case ("J", "2"):
      guard pen == .plain else { throw Failure(description: "screen cleared with a style set") }
      cells = Array(repeating: .blank, count: width * height)
    case ("H", _): try move(parameters)
    case ("m", _): try setPen(parameters)
    default: throw Failure(description: "unexpected sequence ESC[\(parameters)\(final)")
    }
    return end + 1
  }

  private mutating func move(_ parameters: String) throws {
    let numbers = parameters.isEmpty ? [1, 1] : parameters.split(separator: ";").compactMap { Int($0) }
    guard numbers.count == 2, (1...height).contains(numbers[0]), (1...width).contains(numbers[1]) else {
      throw Failure(description: "bad CUP ESC[\(parameters)H")
    }
    let point = Grid.Point(x: numbers[1] - 1, y: numbers[0] - 1)
    if positionKnown, point == cursor, !parameters.isEmpty { needlessMoves += 1 }
    cursor = point
    positionKnown = true
  }

  private mutating func setPen(_ parameters: String) throws {
    let codes = parameters.split(separator: ";", omittingEmptySubsequences: false).map { Int($0) }
    guard codes.first == 0 else { throw Failure(description: "SGR not starting with a reset: \(parameters)") }
    var style = CellStyle.plain
    for code in codes.dropFirst() {
      switch code {
      case 1: style.bold = true
      case 2: style.dim = true
      case 4: style.underline = true
      case 7: style.reverse = true
      case .some(let colour) where (30...37).contains(colour) && allowsColour:
        style.foreground = CellStyle.Colour(rawValue: UInt8(colour - 30))
      default: throw Failure(description: "unexpected SGR code in \(parameters)")
      }
    }
    pen = style
  }

  private mutating func write(_ character: Character) throws {
    let columns = DisplayWidth.of(character)
    guard var cursor else { throw Failure(description: "\(character) written before the cursor was placed") }
    guard cursor.x + columns <= width else {
      throw Failure(description: "\(character) written at column \(cursor.x) would wrap")
    }
    defer { self.cursor = cursor }
    let row = cursor.y * width
    for x in cursor.x..<cursor.x + columns {
      if cells[row + x].isContinuation, x > 0 { cells[row + x - 1].text = " " }
      if x + 1 < width, cells[row + x + 1].isContinuation { cells[row + x + 1].text = " " }
    }
    cells[row + cursor.x] = Cell(String(character), style: pen)
    if columns == 2 { cells[row + cursor.x + 1] = Cell("", style: pen) }
    cursor.x += columns
  }
}
