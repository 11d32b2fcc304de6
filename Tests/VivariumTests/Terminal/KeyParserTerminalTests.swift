import Testing

@testable import ViperKitTestKit
@testable import VivariumTerminal

/// Bytes from the terminal become the keys that were pressed, however
/// they are split, and no input crashes the parser or leaks a sequence
/// as text.
@Suite("Terminal keys")
struct KeyParserTerminalTests {
  /// Every sequence and what it is.
  static let sequences: [(String, [KeyEvent])] = [
    ("a", [.character("a")]), ("\u{E9}", [.character("\u{E9}")]), ("日", [.character("日")]),
    ("👍", [.character("👍")]),
    ("\r", [.enter]), ("\n", [.enter]), ("\t", [.tab]), ("\u{7F}", [.backspace]), ("\u{8}", [.backspace]),
    ("\u{1}", [.control("a")]), ("\u{3}", [.control("c")]), ("\u{1A}", [.control("z")]),
    ("\u{1B}[A", [.up]), ("\u{1B}[B", [.down]), ("\u{1B}[C", [.right]), ("\u{1B}[D", [.left]),
    ("\u{1B}OA", [.up]), ("\u{1B}OB", [.down]), ("\u{1B}OC", [.right]), ("\u{1B}OD", [.left]),
    ("\u{1B}[H", [.home]), ("\u{1B}[F", [.end]), ("\u{1B}OH", [.home]), ("\u{1B}OF", [.end]),
    ("\u{1B}[1~", [.home]), ("\u{1B}[7~", [.home]), ("\u{1B}[4~", [.end]), ("\u{1B}[8~", [.end]),
    ("\u{1B}[5~", [.pageUp]), ("\u{1B}[6~", [.pageDown]), ("\u{1B}[3~", [.delete]), ("\u{1B}[Z", [.backTab]),
    ("\u{1B}[1;5C", [.right]), ("\u{1B}[1;2A", [.up]), ("\u{1B}[3;5~", [.delete]),
    ("\u{1B}a", [.escape, .character("a")]), ("\u{1B}\u{1B}[A", [.escape, .up]),
    ("\u{1B}[200~hi\r\u{1B}[A\u{3}\u{1B}[201~", [.paste("hi\r\u{1B}[A\u{3}")]),
    ("\u{1B}[<0;1;1M", [.mouse(MouseEvent(kind: .press(button: 0), x: 0, y: 0))]),
    ("\u{1B}[<2;80;24m", [.mouse(MouseEvent(kind: .release(button: 2), x: 79, y: 23))]),
    ("\u{1B}[<32;5;6M", [.mouse(MouseEvent(kind: .drag(button: 0), x: 4, y: 5))]),
    ("\u{1B}[<64;3;4M", [.mouse(MouseEvent(kind: .wheelUp, x: 2, y: 3))]),
    ("\u{1B}[<65;3;4M", [.mouse(MouseEvent(kind: .wheelDown, x: 2, y: 3))]),
    (
      "\u{1B}[<28;10;2M",
      [.mouse(MouseEvent(kind: .press(button: 0), x: 9, y: 1, shift: true, alt: true, control: true))]
    ),
    ("\u{1B}[2~", [.unknown("\\e[2~")]), ("\u{1B}[15;2~", [.unknown("\\e[15;2~")]),
    ("\u{1B}[?1;2c", [.unknown("\\e[?1;2c")]), ("\u{1B}[<66;1;1M", [.unknown("\\e[<66;1;1M")]),
    ("\u{1B}OP", [.unknown("\\eOP")]), ("\u{1B}[1\rx", [.unknown("\\e[1"), .enter, .character("x")]),
    ("\u{0}\u{1C}", [.unknown("\\x00"), .unknown("\\x1C")]), ("\u{85}", [.unknown("\\xC2\\x85")]),
  ]

  /// The events of `text`'s bytes fed at once, then flushed.
  private func events(_ bytes: [UInt8], splitAt cuts: [Int] = []) -> [KeyEvent] {
    var parser = KeyParser()
    var events: [KeyEvent] = []
    var start = 0
    for cut in cuts + [bytes.count] {
      events += parser.feed(bytes[start..<cut])
      start = cut
    }
    events += parser.flush()
    #expect(!parser.isWaitingForMore)
    return events
  }

  @Test(arguments: sequences.indices)
  func eachSequenceIsItsKey(index: Int) {
    let (text, expected) = Self.sequences[index]
    var parser = KeyParser()
    #expect(parser.feed(Array(text.utf8)) == expected, "\(text.debugDescription)")
    #expect(!parser.isWaitingForMore, "\(text.debugDescription)")
  }

  @Test func everySequenceSplitAtEveryByteIsTheSame() {
    for (text, expected) in Self.sequences {
      let bytes = Array(text.utf8)
      for cut in 0...bytes.count {
        #expect(events(bytes, splitAt: [cut]) == expected, "\(text.debugDescription) cut at \(cut)")
      }
      #expect(events(bytes, splitAt: Array(0...bytes.count)) == expected, "\(text.debugDescription) bytewise")
    }
  }

  @Test func aLoneEscapeIsEscapeOnlyOnceFlushed() {
    var parser = KeyParser()
    #expect(parser.feed([0x1B]).isEmpty)
    #expect(parser.isWaitingForMore)
    #expect(parser.flush() == [.escape])
    #expect(!parser.isWaitingForMore)
    #expect(parser.feed([0x1B]).isEmpty)
    #expect(parser.feed(Array("[A".utf8)) == [.up])
  }

  @Test func anUnfinishedSequenceFlushedIsItsParts() {
    #expect(events(Array("\u{1B}[1;5".utf8)) == [.escape] + "[1;5".map { KeyEvent.character($0) })
    #expect(events(Array("\u{1B}O".utf8)) == [.escape, .character("O")])
    #expect(events([0xE6, 0x97]) == [.character("\u{FFFD}")])
  }

  @Test func scalarsReadTogetherAreOneCharacter() {
    #expect(events(Array("e\u{301}👍🏽🇫🇷".utf8)) == [.character("e\u{301}"), .character("👍🏽"), .character("🇫🇷")])
  }

  @Test func aCharacterSplitAcrossReadsWaitsForItsRest() {
    var parser = KeyParser()
    #expect(parser.feed([0x61, 0xF0, 0x9F]) == [.character("a")])
    #expect(parser.isWaitingForMore)
    #expect(parser.feed([0x91, 0x8D]) == [.character("👍")])
    #expect(!parser.isWaitingForMore)
  }

  @Test func invalidUTF8IsReplacementCharacters() {
    let expected = "\u{FFFD}a\u{FFFD}(\u{FFFD}\u{FFFD}\u{FFFD}".map { KeyEvent.character($0) }
    #expect(events([0xFF, 0x61, 0xC3, 0x28, 0xED, 0xA0, 0x80]) == expected)
  }

  @Test func aPasteSpanningReadsIsOnePaste() {
    var parser = KeyParser()
    #expect(parser.feed(Array("x\u{1B}[200~line one\r".utf8)) == [.character("x")])
    #expect(parser.isWaitingForMore)
    #expect(parser.feed(Array("\u{3}q\u{1B}[20".utf8)).isEmpty)
    #expect(parser.feed(Array("1~y".utf8)) == [.paste("line one\r\u{3}q"), .character("y")])
    #expect(!parser.isWaitingForMore)
  }

  @Test func aPasteIsCutAt64KiB() {
    var parser = KeyParser()
    var events = parser.feed(Array("\u{1B}[200~".utf8))
    let chunk = Array(String(repeating: "日本語", count: 1000).utf8)
    for _ in 0..<30 { events += parser.feed(chunk) }
    events += parser.feed(Array("\u{1B}[201~z".utf8))
    guard case .paste(let text) = events.first else {
      Issue.record("no paste: \(events.prefix(2))")
      return
    }
    #expect(text.utf8.count <= KeyParser.pasteLimit)
    #expect(text.utf8.count > KeyParser.pasteLimit - 4)
    #expect(!text.contains("\u{FFFD}"))
    #expect(events.dropFirst() == [.character("z")])
  }

  /// A sequence with no end in sight is given up at its longest: what came
  /// so far is unknown, and what follows is read as keys and text again.
  @Test func anOverlongSequenceIsGivenUpAndWhatFollowsIsRead() {
    let digits = String(repeating: "1;", count: 100)
    let events = events(Array("\u{1B}[\(digits)Ax".utf8))
    let given = "\u{1B}[" + String(digits.prefix(EscapeSequence.longest - 2))
    #expect(events.first == .unknown(EscapeSequence.printable(Array(given.utf8))))
    let rest = String(digits.dropFirst(EscapeSequence.longest - 2)) + "Ax"
    #expect(Array(events.dropFirst()) == rest.map { KeyEvent.character($0) })
  }

  /// An escape sequence that never ends does not swallow the key after it,
  /// however long it runs: `q` after 200 KB of one is `q`.
  @Test func theKeyAfterAnUnterminatedSequenceIsThatKey() {
    var parser = KeyParser()
    var events = parser.feed(Array("\u{1B}[".utf8))
    let parameters = Array(String(repeating: "1;", count: 100_000).utf8)
    for start in stride(from: 0, to: parameters.count, by: 4096) {
      events += parser.feed(parameters[start..<min(start + 4096, parameters.count)])
    }
    events += parser.feed(Array("q".utf8))
    #expect(events.last == .character("q"))
    #expect(!parser.isWaitingForMore)
    // Cut by the next ESC, it is given up there too.
    #expect(self.events(Array("\u{1B}[12\u{1B}q".utf8)) == [.unknown("\\e[12"), .escape, .character("q")])
    #expect(self.events(Array("\u{1B}[12\u{3}".utf8)) == [.unknown("\\e[12"), .control("c")])
  }

  /// 200 KB of random bytes, then Ctrl-C and `q`: both come through, read
  /// in pieces as a terminal sends them.
  @Test func theQuitKeysComeThroughAfterRandomBytes() {
    var random = SplitMix64(seed: 0x51_5549_54)
    var parser = KeyParser()
    var events: [KeyEvent] = []
    var bytes = (0..<200_000).map { _ in UInt8.random(in: 0...255, using: &random) }
    // Not inside a bracketed paste: there Ctrl-C is text pasted.
    bytes += Array("\u{1B}[201~".utf8)
    for start in stride(from: 0, to: bytes.count, by: 4096) {
      events += parser.feed(bytes[start..<min(start + 4096, bytes.count)])
    }
    events += parser.feed([0x03, UInt8(ascii: "q")])
    #expect(events.suffix(2) == [.control("c"), .character("q")])
    #expect(!parser.isWaitingForMore)
  }

  @Test func randomBytesNeverCrashOrStayWaiting() {
    var random = SplitMix64(seed: 0x4B45_5953)
    let pieces: [[UInt8]] = [
      [0x1B], [0x1B, 0x5B], [0x1B, 0x4F], Array("[200~".utf8), Array("\u{1B}[201~".utf8), Array("<0;1;".utf8),
      [0xE6, 0x97], [0xF0], [0x80], Array("1;5".utf8), [0x7E], [0x4D],
    ]
    for _ in 0..<3000 {
      var parser = KeyParser()
      for _ in 0..<Int.random(in: 1...6, using: &random) {
        var bytes: [UInt8] = []
        for _ in 0..<Int.random(in: 0...24, using: &random) {
          if random.chance(30) {
            bytes += random.pick(pieces)
          } else {
            bytes.append(UInt8.random(in: 0...255, using: &random))
          }
        }
        for event in parser.feed(bytes) { check(event) }
      }
      for event in parser.flush() { check(event) }
      #expect(!parser.isWaitingForMore)
    }
  }

  /// No event carries a control character except a paste's text.
  private func check(_ event: KeyEvent) {
    switch event {
    case .character(let character):
      #expect(!character.unicodeScalars.contains { $0.value < 0x20 || (0x7F..<0xA0).contains($0.value) })
    case .unknown(let text): #expect(!text.unicodeScalars.contains { $0.value < 0x20 || $0.value >= 0x7F })
    default: break
    }
  }
}
