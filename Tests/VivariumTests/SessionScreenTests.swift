import Testing

@testable import VivariumRuntime
@testable import VivariumSupport

/// What a session draws is what the person types: headers that fit the
/// line, and identifiers and hints that work as drawn.
@Suite("Session screens")
@MainActor
struct SessionScreenTests {
  private func demoSession() throws -> Session {
    let runtime = HostRuntime(catalog: BuildProducts.demoCatalog, services: try TestServices.make())
    return Session(
      runtime: runtime, renderer: TextRenderer(), plugins: "plugins", routes: "routes", scheme: nil,
      settleLimit: TestServices.settleLimit)
  }

  @Test func aShortTrailIsShownWhole() {
    #expect(
      SessionHeader.line([["a:a", "b:b"], ["c:c"]], width: 40) { $0 }
        == "── a:a › b:b ▸ [modal] c:c " + String(repeating: "─", count: 13))
  }

  @Test func aLongTrailKeepsBothEndsAndCountsTheMiddle() {
    let urns = (1...10_000).map { "s:\($0)" }
    let header = SessionHeader.line([urns, ["m:1"]], width: 60) { $0 }
    #expect(header.count == 60)
    #expect(header.hasPrefix("── s:1 › s:2 › "))
    #expect(header.contains(" more … › s:"))
    #expect(header.hasSuffix(" › s:10000 ▸ [modal] m:1 "))
    let shown = header.split(separator: " ").filter { $0.hasPrefix("s:") || $0.hasPrefix("m:") }.count
    let counted = header.split(separator: "…")[1].split(separator: " ")[0].filter(\.isNumber)
    #expect(shown + (Int(counted) ?? 0) == 10_001, "\(header)")
  }

  /// Every step drew the header from the whole stack, so a session of many
  /// pushes slowed down step after step; only the screens shown are named now.
  @Test func theHeaderLooksOnlyAtTheScreensItShows() {
    var named = 0
    let header = SessionHeader.line([Array(1...100_000), [1, 2]], width: 80) { number in
      named += 1
      return "s:\(number)"
    }
    #expect(header.hasSuffix(" › s:100000 ▸ [modal] s:1 › s:2 ──"))
    #expect(named < 100, "named \(named) screens")
  }

  @Test func twoScreensTooWideForTheLineAreCutNotCounted() {
    let header = SessionHeader.line([["a:" + String(repeating: "x", count: 50), "b:b"]], width: 40) { $0 }
    #expect(header == "── a:" + String(repeating: "x", count: 33) + "… ")
  }

  @Test func aSingleURNWiderThanTheLineIsCut() {
    let header = SessionHeader.line([[String(repeating: "x", count: 500)]], width: 40) { $0 }
    #expect(header == "── " + String(repeating: "x", count: 35) + "… ")
  }

  @Test(arguments: [(0, "0"), (999, "999"), (1_000, "1,000"), (9_996, "9,996"), (1_234_567, "1,234,567")])
  func countsAreGroupedByThousands(count: Int, text: String) {
    #expect(SessionHeader.grouped(count) == text)
  }

  /// Every header repeated the whole stack: 10,000 pushes printed 957 MB.
  @Test func manyPushesPrintABoundedHeaderEachTime() async throws {
    let probes = try ProbeHost()
    let session = Session(
      runtime: probes.runtime, renderer: TextRenderer(width: 80), plugins: "", routes: "", scheme: nil)
    _ = await session.execute("open probe:parent")
    var printed = 0
    for number in 1...1_000 {
      let step = await session.execute("open probe:child:\(number)")
      #expect(step.errors.isEmpty)
      printed += step.output.reduce(0) { $0 + $1.utf8.count }
    }
    #expect(probes.runtime.layers.map(\.count) == [1_001])
    let header = try #require(await session.execute("screen").output.first)
    #expect(header.count == 80)
    #expect(header.hasPrefix("── probe:parent › … 998 more … › probe:child:999 › probe:child:1000 ─"))
    #expect(printed < 1_000 * 400, "each step prints a header and a short screen")
  }

  /// The hint listed `next` for `tap tabs/nxt`, and `tap next` then failed.
  @Test func aHintNamesElementsByTheirFullAddress() async throws {
    let session = try demoSession()
    try await session.runtime.open("dashboard:home?user=ada/products:search")
    let step = await session.execute("tap tabs/nxt")
    let error = try #require(step.errors.first)
    #expect(error.contains("'tabs/nxt'"), "the address refused: \(error)")
    // The buttons there are, each by its full address.
    let words = error.split(whereSeparator: { " ,;".contains($0) }).map(String.init)
    let suggested = words.filter { $0.hasPrefix("tabs/") }
    try #require(!suggested.isEmpty, "\(error)")
    #expect(suggested.contains("tabs/next") && !words.contains("next"), "not by its own id alone: \(error)")
    #expect(await session.execute("tap \(suggested[0])").errors.isEmpty)
    let rows = await session.execute("select tabs/results 999").errors.first ?? ""
    #expect(rows.contains("'tabs/results'") && rows.contains("'999'"), "the list and the row: \(rows)")
  }

  /// Rows were drawn as `2. Red mug`, so `select results 1` looked right and failed.
  @Test func theRowIdentifiersDrawnAreTheOnesSelectTakes() async throws {
    let session = try demoSession()
    try await session.runtime.open("dashboard:home?user=ada/products:search")
    _ = await session.execute("type tabs/query mug")
    let screen = await session.execute("tap tabs/search").output
    let drawn = screen.compactMap { line -> String? in
      guard line.hasPrefix("│   ("), let close = line.firstIndex(of: ")") else { return nil }
      return String(line[line.index(line.startIndex, offsetBy: 5)..<close])
    }
    #expect(!drawn.isEmpty, "\(screen.joined(separator: "\n"))")
    for id in drawn {
      #expect(await session.execute("select tabs/results \(id)").errors.isEmpty, "row (\(id))")
    }
  }
}
