import Testing
import ViperKitHosting
import ViperKitTestKit

@Suite("URN parsing")
@MainActor
struct URNTests {
  @Test func parsesSegmentsAndQuery() throws {
    let urn = try ParsedURN(parsing: "profile:42?tab=posts&compact=true")
    #expect(urn.segments == ["profile", "42"])
    #expect(urn.query.map(\.name) == ["tab", "compact"])
    #expect(urn.query.map(\.value) == ["posts", "true"])
  }

  @Test func percentDecodesSegmentsAndValues() throws {
    let urn = try ParsedURN(parsing: "search:caf%C3%A9%3Ano?q=a%20b")
    #expect(urn.segments == ["search", "café:no"])
    #expect(urn.query.first?.value == "a b")
  }

  @Test func plainAndEscapedPartsDecodeAlike() throws {
    let urn = try ParsedURN(parsing: "a:b-c.d_e~f:%41%3a:1234?x=&y_1=%7E&q=red%20shoes")
    #expect(urn.segments == ["a", "b-c.d_e~f", "A:", "1234"])
    #expect(urn.query.map(\.name) == ["x", "y_1", "q"])
    #expect(urn.query.map(\.value) == ["", "~", "red shoes"])
    #expect(urn.text == "a:b-c.d_e~f:%41%3a:1234?x=&y_1=%7E&q=red%20shoes")
  }

  @Test(
    "malformed URNs are refused with the reason",
    arguments: [
      ("", "empty"),
      ("items::2", "segment 2 is empty"),
      (":items", "segment 1 is empty"),
      ("items:", "segment 2 is empty"),
      ("items:a b", "contains ' '"),
      ("items:{id}", "contains '{'"),
      ("items:%zz", "'%' not followed by two hex digits"),
      ("items:%4", "'%' not followed by two hex digits"),
      ("items:%FF", "valid UTF-8"),
      ("items?x=1&x=2", "given twice"),
      ("items?=1", "not name=value"),
      ("items?flag", "not name=value"),
      ("items?1x=1", "is not a name"),
      // Each names the part, wherever it is.
      ("items:ok:a%2", "segment 3 ('a%2') has a '%' not followed by two hex digits"),
      ("items:ok:caf\u{E9}", "segment 3 ('caf\u{E9}') contains '\u{E9}'"),
      ("items?q=a b", "the value of 'q' contains ' '"),
      ("items?q=a?b", "the value of 'q' contains '?'"),
      ("items?q=%C3", "the value of 'q' does not decode to valid UTF-8"),
      ("items?x=1&", "query part '' is not name=value"),
      ("items?x-y=1", "query name 'x-y' is not a name"),
      ("items?", "query part '' is not name=value"),
      // A ':' carrying a combining mark is one character, not a separator,
      // as it always was.
      ("items:\u{301}x", "segment 1 ('items:\u{301}x') contains ':\u{301}'"),
    ])
  func malformed(text: String, reason: String) async {
    #expect {
      try ParsedURN(parsing: text)
    } throws: { error in
      (error as? URNError)?.reason.contains(reason) == true
    }
  }

  @Test func refusesOverlongURN() {
    let text = "a:" + String(repeating: "b", count: ParsedURN.maximumLength)
    #expect(throws: URNError.self) { try ParsedURN(parsing: text) }
  }
}

@Suite("URN patterns")
@MainActor
struct URNPatternTests {
  @Test func parsesLiteralsAndPlaceholders() throws {
    let pattern = try URNPattern(parsing: "items:detail:{itemID}")
    #expect(pattern.segments == [.literal("items"), .literal("detail"), .placeholder("itemID")])
    #expect(pattern.placeholders == ["itemID"])
  }

  @Test func matchesAndBindsPlaceholders() throws {
    let pattern = try URNPattern(parsing: "users:{userID}:posts:{postID}")
    #expect(pattern.match(try ParsedURN(parsing: "users:7:posts:99")) == ["userID": "7", "postID": "99"])
    #expect(pattern.match(try ParsedURN(parsing: "users:7:likes:99")) == nil)
    #expect(pattern.match(try ParsedURN(parsing: "users:7:posts")) == nil)
  }

  @Test func sameShapeRegardlessOfPlaceholderNames() throws {
    #expect(try URNPattern(parsing: "a:{x}:c").shape == URNPattern(parsing: "a:{y}:c").shape)
    #expect(try URNPattern(parsing: "a:{x}:c").shape != URNPattern(parsing: "a:b:c").shape)
  }

  @Test(
    "malformed patterns are refused with the reason",
    arguments: [
      ("{id}:x", "first segment must be a literal"),
      ("items:item-{id}", "must be a whole placeholder"),
      ("items:{id}x", "must be a whole placeholder"),
      ("items:{}", "must be a whole placeholder"),
      ("items:{1id}", "is not a name"),
      ("items:{a}:{a}", "appears twice"),
      ("items?x=1", "no '?query'"),
      ("items::x", "segment 2 is empty"),
      ("", "empty"),
    ])
  func malformed(text: String, reason: String) async {
    #expect {
      try URNPattern(parsing: text)
    } throws: { error in
      (error as? URNError)?.reason.contains(reason) == true
    }
  }
}
