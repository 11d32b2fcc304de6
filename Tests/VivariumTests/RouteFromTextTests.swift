import Testing
import ViperKit
import ViperKitHosting

@testable import VivariumLoading

/// Routing a URN from its text (RouteTable.resolve(text:)) must answer as
/// routing it parsed does, whatever the text: the same entry, the same
/// bindings, the same error.
@Suite("Routing from the text")
struct RouteFromTextTests {
  /// Valid and invalid texts, plain and percent-encoded, with and without
  /// a query, each at the edge of a rule of the URN syntax.
  static let texts = [
    "items:list", "items:detail:new", "items:detail:7", "items:detail:7?x=1", "a", "a:b?x=", "a:b?x=1&xy=2",
    "a:b?xy=1&x=2", "a:b?x_1=%C3%A9", "a:b?x=%F0%9F%98%80", "a:b?x=%41%42", "a:%41", "caf%C3%A9:x", "cafe%CC%81:x",
    "%E2%84%AA:x", "", "a::b", ":a", "a:", "a:b?", "a:b?=1", "a:b?1x=2", "a:b?x=1&", "a:b?x", "a:b?x=1&x=2",
    "a:b?x=1=2", "a b", "é:x", "a:b?x=%", "a:b?x=%4", "a:b?x=%G1", "a:b?x=%FF", "a:b?x=%C3", "a:b?x=%E0%80%80",
    "a:b?x=%ED%A0%80", "a:b?x=%F4%90%80%80", "a:b?x=%C0%AF", "a:b?x=a?b", "a:b#c", "a:%3A:b",
    String(repeating: "a", count: ParsedURN.maximumLength + 1),
  ]

  @Test(arguments: texts)
  func plainPathLengthAgreesWithTheParser(_ text: String) throws {
    let parsed = try? ParsedURN(parsing: text)
    guard let length = ParsedURN.plainPathLength(of: text) else {
      // Not plain: invalid, or some segment is percent-encoded.
      #expect(parsed == nil || text.prefix { $0 != "?" }.contains("%"))
      return
    }
    let urn = try #require(parsed, "\(text) is plain, yet does not parse")
    #expect(String(decoding: text.utf8.prefix(length), as: UTF8.self) == urn.segments.joined(separator: ":"))
  }

  /// A table with more namespaces than a node compares in turn (so the
  /// root indexes them), literals beside placeholders, a conflict, and
  /// literals that are canonically equivalent but written differently.
  private func table() throws -> RouteTable<String> {
    var patterns = (0...RouteTrie.comparedInTurn).map { "ns\($0):screen:{id}" }
    patterns += [
      "items:detail:{id}", "items:detail:new", "items:{kind}:7:{x}", "a:{x}", "a:{y}", "caf%C3%A9:{z}",
      "%E2%84%AA:list", "users:{userID}:posts:{postID}",
    ]
    var table = RouteTable<String>()
    for pattern in patterns { table.insert(try URNPattern(parsing: pattern), pattern) }
    return table
  }

  @Test(
    arguments: texts + [
      "ns3:screen:9", "ns8:screen:x?q=%20", "ns9:screen:1", "items:detail:new:x", "items:detail:7:1", "a:c",
      "cafe%CC%81:1", "K:list", "users:7:posts:99?x=1", "users:7:likes:99", "nowhere:1",
    ])
  func resolvingTheTextAnswersAsResolvingItParsed(_ text: String) throws {
    let table = try table()
    let parsed: ParsedURN
    do {
      parsed = try ParsedURN(parsing: text)
    } catch {
      #expect(throws: error) { try table.resolve(text: text) }
      return
    }
    switch (table.resolve(parsed), try table.resolve(text: text)) {
    case (.matched(let entry, let bindings), .matched(let routed)):
      #expect(table.entries[routed.entry].pattern == entry.pattern)
      #expect(routed.text == text)
      #expect(table.bindings(of: routed) == bindings)
      let query = table.arguments(of: routed).query
      #expect(query.map(\.name) == parsed.query.map(\.name))
      #expect(query.map(\.value) == parsed.query.map(\.value))
    case (.conflict(let parsedEntries), .conflict(let entries)):
      #expect(entries.map(\.value) == parsedEntries.map(\.value))
    case (.notFound, .notFound): break
    case (let fromParsed, let fromText):
      Issue.record("\(text): parsed \(fromParsed), from the text \(fromText)")
    }
  }

  @Test func canonicallyEquivalentSegmentsMatchTheSameLiteral() throws {
    let table = try table()
    // é composed (the pattern) and decomposed (the URN), and the Kelvin
    // sign and K: equal as Strings, so equal as segments.
    guard case .matched(let routed) = try table.resolve(text: "cafe%CC%81:1") else {
      Issue.record("cafe%CC%81:1 found nothing")
      return
    }
    #expect(table.entries[routed.entry].value == "caf%C3%A9:{z}")
    guard case .matched(let kelvin) = try table.resolve(text: "K:list") else {
      Issue.record("K:list found nothing")
      return
    }
    #expect(table.entries[kelvin.entry].value == "%E2%84%AA:list")
  }
}
