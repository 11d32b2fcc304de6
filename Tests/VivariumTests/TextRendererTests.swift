import Foundation
import Testing
import ViperKit
import VivariumSupport
import VivariumTerminal

@Suite("Drawing view trees as text")
@MainActor
struct TextRendererTests {
  let tree = ViewNode.stack(
    .vertical,
    [
      .heading("Items"),
      .list(
        id: "items", rows: [ListRow(id: "1", title: "Milk", detail: "3 Jan 2026", marker: Marker(.positive, "enabled"))]
      ),
      .stack(.horizontal, [.button(id: "ok", title: "OK"), .button(id: "cancel", title: "Cancel")]),
      .field(id: "name", label: "Name", value: "", placeholder: "your name"),
      .slot("wallet"),
      .notice(.negative, "Something failed."),
    ])

  @Test func plainTextShowsIdentifiersAndMarkersWithoutEscapes() {
    let text = TextRenderer(width: 40).render(tree)
    #expect(
      text == """
        Items
        ─────
        list items:
          (1) Milk          3 Jan 2026 [enabled]
        [ OK ] (ok)  [ Cancel ] (cancel)
        Name: [your name] (name)
        [slot wallet: empty]
        ✗ Something failed.

        """)
    #expect(!text.contains("\u{1B}"))
    #expect(text.split(separator: "\n").map(\.count).max() == 40)
  }

  @Test func colourOnlyWhenAsked() {
    let coloured = TextRenderer(width: 40, style: TextStyle(colour: true)).render(tree)
    #expect(coloured.contains("\u{1B}[32m[enabled]\u{1B}[0m"))
    #expect(coloured.contains("\u{1B}[31m✗ Something failed.\u{1B}[0m"))
  }

  /// On a terminal (as the injected answer says), colour unless NO_COLOR is
  /// set non-empty or TERM is dumb; never off a terminal.
  @Test func noColourEnvironmentWins() {
    let terminal: (Int32) -> Bool = { _ in true }
    #expect(TextStyle.forOutput(1, environment: [:], isTerminal: terminal).colour == true)
    #expect(TextStyle.forOutput(1, environment: ["NO_COLOR": ""], isTerminal: terminal).colour == true)
    #expect(TextStyle.forOutput(1, environment: ["NO_COLOR": "1"], isTerminal: terminal).colour == false)
    #expect(TextStyle.forOutput(1, environment: ["TERM": "dumb"], isTerminal: terminal).colour == false)
    #expect(TextStyle.forOutput(1, environment: [:], isTerminal: { _ in false }).colour == false)
  }

  @Test func longTextWrapsWithinTheWidth() {
    let lines = TextRenderer(width: 20).lines(.text("the quick brown fox jumps over the lazy dog again and again"))
    #expect(lines.allSatisfy { $0.count <= 20 })
    #expect(lines.joined(separator: " ") == "the quick brown fox jumps over the lazy dog again and again")
  }

  /// A line that already fits is kept as it is; anything else is wrapped
  /// (spaces collapsed, ends trimmed, long words cut).
  @Test(arguments: [
    ("a b", 3, ["a b"]), ("a  b", 10, ["a b"]), (" a", 10, ["a"]), ("a ", 10, ["a"]), ("abcd", 3, ["abc", "d"]),
    ("ab cd", 4, ["ab", "cd"]), ("é  b", 10, ["é b"]), ("", 5, [""]), ("a\nb", 5, ["a", "b"]),
  ])
  func wrappingKeepsOnlyWhatAlreadyFits(text: String, width: Int, lines: [String]) {
    #expect(TextWrap.lines(text, width: width) == lines)
  }

  /// Splitting a word longer than a line counted the rest of the word for
  /// every piece, so a megabyte took minutes; now each piece is cut once.
  @Test func aVeryLongWordIsCutIntoFullLines() {
    let word = String(repeating: "é", count: 1_000_000)
    let lines = TextRenderer.wrap("to " + word + " end", width: 80)
    #expect(lines.count == 12_502)
    #expect(lines.first == "to")
    #expect(lines.last == "end")
    #expect(lines.dropFirst().dropLast().allSatisfy { $0 == String(repeating: "é", count: 80) })
  }

  @Test func wrappingToNoWidthStillEnds() {
    #expect(TextRenderer.wrap("abc de", width: 0) == ["a", "b", "c", "d", "e"])
  }

  /// A row's identifier is what `select LIST ROW` takes, so it is drawn in
  /// parentheses like every other identifier, never as a position.
  @Test func rowIdentifiersAreDrawnInParentheses() {
    let rows = [ListRow(id: "2", title: "Red mug"), ListRow(id: "b-7", title: "Teapot")]
    #expect(
      TextRenderer(width: 40).lines(.list(id: "results", rows: rows)) == [
        "list results:", "  (2) Red mug", "  (b-7) Teapot",
      ])
  }

  @Test func longRowTitlesAreCutToFit() {
    let row = ListRow(id: "1", title: String(repeating: "x", count: 200), detail: "today")
    let lines = TextRenderer(width: 80).lines(.list(id: "l", rows: [row]))
    #expect(lines[1].count == 80)
    #expect(lines[1].contains("…"))
  }

  @Test func viewTreeJSONRoundTrips() throws {
    let data = try JSONEncoder().encode(tree)
    #expect(try JSONDecoder().decode(ViewNode.self, from: data) == tree)
    let text = String(decoding: data, as: UTF8.self)
    #expect(text.contains("\"kind\":\"list\""))
  }
}
