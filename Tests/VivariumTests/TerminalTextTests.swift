import Foundation
import Testing
import ViperKit
import ViperKitHosting
import ViperKitTestKit
import VivariumSupport
import VivariumTools

/// Text a plugin, a URN, a file name or a person gave reaches the terminal
/// visible, never obeyed.
@Suite("Making control characters visible")
@MainActor
struct TerminalTextTests {
  @Test(
    arguments: [
      ("\u{1B}]52;c;aGk=\u{07}\u{1B}[2J", "\\e]52;c;aGk=\\x07\\e[2J"),
      ("tab\there", "tab here"),
      ("cr\rline", "cr\\x0Dline"),
      ("del\u{7F}", "del\\u007F"),
      ("csi\u{9B}2J", "csi\\u009B2J"),
      ("\u{202E}txt.exe", "\\u202Etxt.exe"),
      ("isolate\u{2066}x\u{2069}", "isolate\\u2066x\\u2069"),
      ("one\ntwo", "one\\x0Atwo"),
      ("café ✓ 日本", "café ✓ 日本"),
    ])
  func controlsAreShownEscaped(raw: String, shown: String) {
    #expect(TerminalText.visible(raw) == shown)
  }

  @Test func newlinesStayOnlyWhereAsked() {
    #expect(TerminalText.visible("a\nb\u{1B}", keepingNewlines: true) == "a\nb\\e")
    #expect(TerminalText.visible("a\nb") == "a\\x0Ab")
  }

  @Test func applyingItTwiceChangesNothingMore() {
    let once = TerminalText.visible("\u{1B}[2J\u{9B}\n\\e")
    #expect(TerminalText.visible(once) == once)
  }

  @Test func onlyTheAllowedSequencesPass() {
    let text = "\u{1B}[32mok\u{1B}[0m \u{1B}[2J \u{1B}[32"
    let shown = TerminalText.visible(text, keepingNewlines: false, allowing: TextStyle.sequences)
    #expect(shown == "\u{1B}[32mok\u{1B}[0m \\e[2J \\e[32")
  }

  /// What a console writes may be JSON: the escapes it makes of the controls
  /// JSONEncoder leaves raw decode back to the same text.
  @Test func jsonStaysValidAndTheSame() throws {
    let original = ["name": "a\u{7F}b\u{85}c\u{202E}d\u{1B}"]
    let json = String(decoding: try JSONEncoder().encode(original), as: UTF8.self)
    let shown = TerminalText.visible(json)
    #expect(!shown.unicodeScalars.contains { $0.value == 0x7F || (0x80...0x9F).contains($0.value) })
    #expect(try JSONDecoder().decode([String: String].self, from: Data(shown.utf8)) == original)
  }

  @Test func everyStringOfAViewTreeIsDrawnEscaped() {
    let evil = "x\u{1B}[2J\u{07}"
    let tree = ViewNode.stack(
      .vertical,
      [
        .heading(evil), .text(evil + "\nsecond"), .notice(.info, evil),
        .button(id: evil, title: evil),
        .field(id: "f", label: evil, value: evil, placeholder: evil),
        .field(id: "g", label: evil, value: "", placeholder: evil),
        .list(id: evil, rows: [ListRow(id: evil, title: evil, detail: evil, marker: Marker(.positive, evil))]),
      ])
    for colour in [false, true] {
      let text = TextRenderer(width: 200, style: TextStyle(colour: colour)).render(tree)
      let withoutOwnCodes = TextStyle.sequences.reduce(text) { $0.replacingOccurrences(of: $1, with: "") }
      #expect(!withoutOwnCodes.contains("\u{1B}"))
      #expect(!text.contains("\u{07}"))
      #expect(text.contains("x\\e[2J\\x07"))
    }
    // A newline in text is still a line break.
    #expect(TextRenderer(width: 80).lines(.text("one\ntwo")) == ["one", "two"])
  }

  @Test func reportsShowAFileNameOnOneLine() {
    let path = "/plugins/evil\n  loaded    fake.so\u{1B}[2J"
    let report = CheckReport(
      strictness: 1,
      plugins: [
        .init(path: path, results: [CheckResult(check: "load.open", status: .failed, module: nil, message: path)])
      ])
    let text = report.text(style: .plain)
    #expect(!text.contains("\u{1B}"))
    #expect(!text.split(separator: "\n").contains { $0.hasPrefix("  loaded") })
    #expect(text.contains("evil\\x0A  loaded    fake.so\\e[2J"))
  }
}
