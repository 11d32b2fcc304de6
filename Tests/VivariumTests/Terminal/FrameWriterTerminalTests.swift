import Testing

@testable import ViperKitTestKit
@testable import VivariumTerminal

/// What a frame writes leaves the terminal showing exactly the new grid,
/// with no byte it needs not write.
@Suite("Terminal frames")
struct FrameWriterTerminalTests {
  private static let escape = "\u{1B}"
  private static let repaint = Array("\(escape)[0m\(escape)[H\(escape)[2J".utf8)

  /// Draws `grids` one after the other on a virtual terminal, checking
  /// after each that it shows that grid; returns each frame's bytes.
  @discardableResult
  private func draw(_ grids: [Grid], colour: Bool = true) throws -> [[UInt8]] {
    let writer = FrameWriter(colour: colour)
    var terminal: VirtualTerminal?
    var previous: Grid?
    var frames: [[UInt8]] = []
    for grid in grids {
      if terminal?.width != grid.width || terminal?.height != grid.height {
        terminal = VirtualTerminal(width: grid.width, height: grid.height, allowsColour: colour)
      }
      let bytes = writer.frame(from: previous, to: grid)
      try terminal!.apply(bytes)
      #expect(terminal!.shows(grid, colour: colour), "shows \(terminal!.lines), not \(grid.lines)")
      #expect(terminal!.needlessMoves == 0)
      frames.append(bytes)
      previous = grid
    }
    return frames
  }

  private func grid(_ lines: [String], width: Int = 10, style: CellStyle = .plain) -> Grid {
    var grid = Grid(width: width, height: lines.count)
    for (y, line) in lines.enumerated() { grid.put(line, x: 0, y: y, style: style) }
    return grid
  }

  @Test func aFirstFrameClearsThenDrawsEveryRow() throws {
    var first = grid(["hello", "", "  world"])
    first.put("!", x: 9, y: 2, style: CellStyle(foreground: .red, bold: true))
    let frames = try draw([first])
    #expect(frames[0].starts(with: Self.repaint))
    #expect(frames[0].suffix(6) == Array("\(Self.escape)[?25l".utf8))
  }

  @Test func identicalGridsWriteNothing() throws {
    var same = grid(["日本 ok", "é"], style: CellStyle(foreground: .green, underline: true))
    same.cursor = Grid.Point(x: 3, y: 1)
    let frames = try draw([same, same, same])
    #expect(frames[1].isEmpty)
    #expect(frames[2].isEmpty)
  }

  @Test func oneChangedCellIsACursorMoveAStyleAndItsText() throws {
    let row = "the quick brown fox jumps over it"
    let before = grid(Array(repeating: row, count: 8), width: row.count)
    var after = before
    after.put("X", x: 4, y: 1)
    let frames = try draw([before, after])
    #expect(frames[1] == Array("\(Self.escape)[2;5H\(Self.escape)[0mX".utf8))
    #expect(frames[1].count * 20 < frames[0].count)
  }

  @Test func changesAFewCellsApartAreWrittenInOneGo() throws {
    let before = grid(["abcdefghijklmnopqrst"], width: 20)
    var after = before
    after.put("X", x: 1, y: 0)
    after.put("Y", x: 3, y: 0)
    after.put("Z", x: 19, y: 0)
    let frames = try draw([before, after])
    #expect(frames[1] == Array("\(Self.escape)[1;2H\(Self.escape)[0mXcY\(Self.escape)[1;20HZ".utf8))
  }

  @Test func aStyleIsSetOnlyWhenItChanges() throws {
    let bold = CellStyle(bold: true)
    var after = Grid(width: 6, height: 1)
    after.put("ab", x: 0, y: 0, style: bold)
    after.put("cd", x: 2, y: 0, style: CellStyle(foreground: .blue, dim: true, reverse: true))
    after.put("ef", x: 4, y: 0, style: bold)
    let frames = try draw([Grid(width: 6, height: 1), after])
    let expected = "\(Self.escape)[1;1H\(Self.escape)[0;1mab\(Self.escape)[0;2;7;34mcd\(Self.escape)[0;1mef"
    #expect(frames[1] == Array(expected.utf8))
  }

  @Test func wideCharactersTakeTwoColumns() throws {
    let frames = try draw([grid(["ab"]), grid(["日本語", "🇫🇷 👍🏽"]), grid(["a本b語c", "x🇫🇷👍🏽"])])
    #expect(frames[1].starts(with: Self.repaint), "a size change repaints")
  }

  @Test func aWideCharacterOverwrittenByNarrowOnes() throws {
    var half = grid(["日本語x"])
    half.put("ab", x: 1, y: 0)
    #expect(half.line(0) == " ab 語x")
    try draw([grid(["日本語x"]), half, grid(["abcdefg"]), grid(["日本語x"])])
  }

  @Test func onlyAContinuationChangingRewritesItsWideCharacter() throws {
    let before = grid(["a日b"])
    var after = before
    after.restyle(x: 2, y: 0, width: 1) { $0.bold = true }
    let frames = try draw([before, after])
    #expect(frames[1] == Array("\(Self.escape)[1;2H\(Self.escape)[0m日".utf8))
  }

  @Test func withoutColourOnlyAttributesAreWritten() throws {
    let red = CellStyle(foreground: .red, bold: true, underline: true)
    let frames = try draw(
      [grid(["red text"], style: red), grid(["red text"], style: CellStyle(foreground: .green, bold: true))],
      colour: false)
    let text = String(decoding: frames.joined(), as: UTF8.self)
    #expect(text.contains("\(Self.escape)[0;1;4m"))
    #expect(!text.contains(";3"))
    #expect(frames[1] == Array("\(Self.escape)[1;1H\(Self.escape)[0;1mred text".utf8))
  }

  @Test func theCursorIsShownMovedAndHiddenOnlyWhenItChanges() throws {
    var shown = grid(["name: ", "x"])
    shown.cursor = Grid.Point(x: 6, y: 0)
    var typed = shown
    typed.put("J", x: 6, y: 0)
    typed.cursor = Grid.Point(x: 7, y: 0)
    var elsewhere = typed
    elsewhere.put("y", x: 0, y: 1)
    var hidden = elsewhere
    hidden.cursor = nil
    let frames = try draw([shown, typed, elsewhere, hidden, hidden])
    #expect(frames[0].suffix(6) == Array("\(Self.escape)[?25h".utf8))
    #expect(frames[1] == Array("\(Self.escape)[0mJ".utf8), "the cursor was there already")
    #expect(frames[2] == Array("\(Self.escape)[2;1H\(Self.escape)[0my\(Self.escape)[1;8H".utf8))
    #expect(frames[3] == Array("\(Self.escape)[?25l".utf8))
    #expect(frames[4].isEmpty)
  }

  @Test func theLastColumnIsWrittenWithoutWrapping() throws {
    var full = grid(["abcdefghij", "klmnopqrs日"])
    full.cursor = Grid.Point(x: 9, y: 1)
    var changed = full
    changed.put("JK", x: 8, y: 0)
    changed.put("字", x: 8, y: 1)
    try draw([full, changed])
  }

  @Test func randomEditsAlwaysLeaveTheScreenShowingTheGrid() throws {
    var random = SplitMix64(seed: 0x7E57_F4A3)
    let texts = ["a", "bc", " ", "日本", "é", "e\u{301}x", "🇫🇷", "👍🏽", "❤️", "x\u{1B}[2Jy", "한글", "\t", "ｗｉｄｅ"]
    let styles = [
      CellStyle.plain, CellStyle(foreground: .red), CellStyle(bold: true, reverse: true),
      CellStyle(foreground: .cyan, dim: true, underline: true),
    ]
    for colour in [true, false] {
      var grid = Grid(width: 12, height: 4)
      var grids: [Grid] = []
      for _ in 0..<300 {
        for _ in 0..<Int.random(in: 0...4, using: &random) {
          let x = Int.random(in: -1...12, using: &random)
          let y = Int.random(in: 0...3, using: &random)
          switch Int.random(in: 0..<10, using: &random) {
          case 0: grid.clear(x: x, y: y, width: Int.random(in: 0...5, using: &random))
          case 1: grid.restyle(x: x, y: y, width: 3) { $0 = random.pick(styles) }
          case 2: grid.cursor = random.chance(50) ? nil : Grid.Point(x: min(max(x, 0), 11), y: y)
          default: grid.put(random.pick(texts), x: x, y: y, style: random.pick(styles))
          }
        }
        grids.append(grid)
      }
      try draw(grids, colour: colour)
    }
  }
}
