import Testing

@testable import VivariumTerminal

/// Text takes the columns a terminal gives it, and nothing put in a grid
/// can reach the terminal as a control sequence.
@Suite("Terminal grid")
struct GridTerminalTests {
  @Test(
    arguments: [
      ("a", 1), ("\u{E9}", 1), ("e\u{301}", 1), ("日", 2), ("한", 2), ("ｗ", 2), ("👍", 2), ("👍🏽", 2),
      ("🇫🇷", 2), ("❤️", 2), ("❤", 1), ("→", 1), ("Ω", 1),
    ] as [(Character, Int)])
  func charactersTakeTheirColumns(character: Character, columns: Int) {
    #expect(DisplayWidth.of(character) == columns)
  }

  @Test func textTakesTheSumOfItsCharacters() {
    #expect(DisplayWidth.of("ab日本e\u{301}🇫🇷") == 9)
    #expect(DisplayWidth.of("") == 0)
  }

  @Test func aWideCharacterTakesItsCellAndAContinuation() {
    var grid = Grid(width: 6, height: 1)
    #expect(grid.put("a日b", x: 0, y: 0) == 4)
    #expect(grid[x: 1, y: 0].text == "日")
    #expect(grid[x: 2, y: 0].isContinuation)
    #expect(grid[x: 3, y: 0].text == "b")
    #expect(grid.line(0) == "a日b")
  }

  @Test func combiningMarksStayWithTheirLetter() {
    var grid = Grid(width: 4, height: 1)
    #expect(grid.put("e\u{301}x", x: 0, y: 0) == 2)
    #expect(grid[x: 0, y: 0].text == "e\u{301}")
    grid.put("\u{301}", x: 2, y: 0)
    #expect(grid[x: 2, y: 0].text == "\u{25CC}\u{301}", "a lone mark is drawn on a dotted circle")
  }

  @Test func aWideCharacterNotFittingLeavesASpace() {
    var grid = Grid(width: 4, height: 1)
    #expect(grid.put("abc日", x: 0, y: 0) == 4)
    #expect(grid[x: 3, y: 0].text == " ")
    #expect(!grid.cells.contains { $0.text == "日" })
    grid.put("日本", x: 0, y: 0, limit: 3)
    #expect(grid.line(0) == "日")
    #expect(grid[x: 2, y: 0].text == " ")
  }

  @Test func controlCharactersAndEscapeBecomeReplacementCharacters() {
    var grid = Grid(width: 12, height: 1)
    grid.put("a\u{1B}[2J\tb\r\n\u{7}\u{9B}\u{202E}\u{200B}", x: 0, y: 0)
    #expect(grid.line(0) == "a\u{FFFD}[2J\u{FFFD}b\u{FFFD}\u{FFFD}\u{FFFD}\u{FFFD}\u{FFFD}")
    #expect(!grid.cells.contains { $0.text.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x9B } })
  }

  @Test func overwritingHalfAWideCharacterBlanksTheOtherHalf() {
    var grid = Grid(width: 6, height: 1)
    grid.put("日本語", x: 0, y: 0)
    grid.put("x", x: 1, y: 0)
    #expect(grid[x: 0, y: 0].text == " ")
    grid.put("y", x: 2, y: 0)
    #expect(grid[x: 3, y: 0].text == " ")
    #expect(grid.line(0) == " xy 語")
    grid.clear(x: 5, y: 0, width: 1)
    #expect(grid[x: 4, y: 0].text == " ")
  }

  @Test func aWideCharacterOverAnotherOneColumnOnBlanksItsRest() {
    var grid = Grid(width: 5, height: 1)
    grid.put("a日b", x: 0, y: 0)
    grid.put("本", x: 0, y: 0)
    #expect(grid.line(0) == "本 b")
    #expect(!grid[x: 2, y: 0].isContinuation)
  }

  @Test func aWideCharacterHalfOffTheLeftEdgeLeavesASpace() {
    var grid = Grid(width: 4, height: 1)
    grid.put("abcd", x: 0, y: 0)
    #expect(grid.put("日x", x: -1, y: 0) == 2)
    #expect(grid.line(0) == " xcd")
  }
}

extension GridTerminalTests {
  @Test func wrappingCountsColumnsNotCharacters() {
    #expect(TextWrap.lines("日本語 abc", width: 4) == ["日本", "語", "abc"])
    #expect(TextWrap.lines("日本", width: 1) == ["日", "本"])
    #expect(TextWrap.truncate("日本語です", to: 5) == "日本…")
  }
}
