import Testing
import ViperKit
import ViperKitHosting
import ViperKitTestKit

@testable import VivariumLoading
@testable import VivariumTools

@Suite("Route table")
@MainActor
struct RouteTableTests {
  private func table(_ patterns: [String]) throws -> RouteTable<String> {
    var table = RouteTable<String>()
    for pattern in patterns { table.insert(try URNPattern(parsing: pattern), pattern) }
    return table
  }

  private func resolved(_ table: RouteTable<String>, _ urn: String) throws -> String? {
    if case .matched(let entry, _) = table.resolve(try ParsedURN(parsing: urn)) { return entry.value }
    return nil
  }

  @Test func literalBeatsPlaceholderWhicheverIsRegisteredFirst() throws {
    for order in [["items:detail:{id}", "items:detail:new"], ["items:detail:new", "items:detail:{id}"]] {
      let table = try table(order)
      #expect(try resolved(table, "items:detail:new") == "items:detail:new")
      #expect(try resolved(table, "items:detail:5") == "items:detail:{id}")
    }
  }

  @Test func backtracksWhenTheLiteralBranchDeadEnds() throws {
    let table = try table(["a:b:c", "a:{x}:d"])
    #expect(try resolved(table, "a:b:d") == "a:{x}:d")
    #expect(try resolved(table, "a:b:c") == "a:b:c")
  }

  @Test func bindsPlaceholders() throws {
    let table = try table(["profile:{userID}"])
    guard case .matched(_, let bindings) = table.resolve(try ParsedURN(parsing: "profile:ada")) else {
      Issue.record("profile:ada did not match")
      return
    }
    #expect(bindings == ["userID": "ada"])
  }

  @Test func unknownURNIsNotFound() throws {
    let table = try table(["items:list"])
    for urn in ["items", "items:list:extra", "other:list"] {
      guard case .notFound = table.resolve(try ParsedURN(parsing: urn)) else {
        Issue.record("\(urn) should not resolve")
        continue
      }
    }
  }

  @Test func patternsOverlappingPartlyNameAURNBothAnswerAndTheWinner() throws {
    for order in [["items:{kind}:7", "items:detail:{itemID}"], ["items:detail:{itemID}", "items:{kind}:7"]] {
      let overlaps = try table(order + ["items:list"]).overlaps
      #expect(overlaps.map(\.example) == ["items:detail:7"])
      #expect(overlaps.map(\.winner.value) == ["items:detail:{itemID}"])
      #expect(overlaps.map(\.loser.value) == ["items:{kind}:7"])
    }
    let deeper = try table(["a:{x}:b:{y}", "a:c:{z}:{w}"]).overlaps
    #expect(deeper.map { "\($0.winner.value) \($0.example)" } == ["a:c:{z}:{w} a:c:b:1"])
  }

  @Test func aSpecialCaseAFullOverlapAndATakenURNAreNoPartialOverlap() throws {
    #expect(try table(["items:detail:new", "items:detail:{id}", "items:{a}:{b}"]).overlaps.isEmpty)
    #expect(try table(["items:{a}:7", "items:{b}:7"]).overlaps.isEmpty, "a full overlap is a conflict")
    #expect(try table(["a:{x}:7", "a:b:{y}", "a:b:7"]).overlaps.isEmpty, "a:b:7 goes to a third pattern")
    #expect(try table(["a:{x}:7", "a:b:{y}:z"]).overlaps.isEmpty, "of different lengths")
  }

  @Test func vivariumPluginsReportsAnOverlapAsAWarning() throws {
    let recorder = ProbeRecorder()
    let factories: [any ModuleFactory] = ["items:{kind}:7", "items:detail:{itemID}"].map {
      ProbeFactory(contract: Contract(urn: $0, summary: "Items."), recorder: recorder).factory
    }
    let catalog = PluginCatalog(
      outcomes: [.loaded(LoadedPlugin(path: "/p/items.so", name: "Items", factories: factories))])
    let report = PluginsReport(
      discovery: PluginDiscovery(commandLine: ["/p"], environment: [:], executable: "/x"), catalog: catalog)
    #expect(report.overlaps.map(\.patterns) == [["items:detail:{itemID}", "items:{kind}:7"]])
    #expect(report.overlaps.map(\.example) == ["items:detail:7"])
    let message = try #require(report.overlaps.first?.message)
    #expect(
      message.contains("items:detail:7") && message.contains("items:detail:{itemID}"), "an example, and its route")
    let text = report.text(style: .plain)
    #expect(text.contains("URN overlaps"))
    #expect(text.hasSuffix("1 loaded, 0 rejected, 0 URN conflicts, 1 URN overlap"))
  }

  @Test func samePatternShapeIsAConflictNotAChoice() throws {
    let table = try table(["items:detail:{id}", "items:detail:{itemID}", "items:list"])
    #expect(table.conflicts.map { $0.map(\.value) } == [["items:detail:{id}", "items:detail:{itemID}"]])
    guard case .conflict(let entries) = table.resolve(try ParsedURN(parsing: "items:detail:3")) else {
      Issue.record("expected a conflict")
      return
    }
    #expect(entries.count == 2)
    #expect(try resolved(table, "items:list") == "items:list")
  }

  @Test func manyPatternsStillResolveExactly() throws {
    var table = RouteTable<Int>()
    for index in 0..<5_000 {
      table.insert(try URNPattern(parsing: "ns\(index):screen:{id}"), index)
    }
    guard case .matched(let entry, let bindings) = table.resolve(try ParsedURN(parsing: "ns4321:screen:9")) else {
      Issue.record("no match")
      return
    }
    #expect(entry.value == 4321)
    #expect(bindings == ["id": "9"])
  }

  @Test func manyLiteralsBesideAPlaceholderAtOneSegment() throws {
    // More literal children than a node compares in turn: they are indexed,
    // and the placeholder is still the fallback, the literal still first.
    let literals = (0..<40).map { "shop:item\($0):view" }
    let table = try table(literals + ["shop:{id}:view", "shop:{id}:edit"])
    for index in [0, 17, 39] {
      #expect(try resolved(table, "shop:item\(index):view") == "shop:item\(index):view")
    }
    #expect(try resolved(table, "shop:item17:edit") == "shop:{id}:edit")
    #expect(try resolved(table, "shop:other:view") == "shop:{id}:view")
    #expect(try resolved(table, "shop:item40:view") == "shop:{id}:view")
    guard case .notFound = table.resolve(try ParsedURN(parsing: "shop:item3")) else {
      Issue.record("shop:item3 should not resolve")
      return
    }
  }

  @Test func everyPatternOfAConflictIsReportedInOrder() throws {
    let table = try table(["a:{x}", "a:b", "a:{y}", "a:{z}"])
    guard case .conflict(let entries) = table.resolve(try ParsedURN(parsing: "a:c")) else {
      Issue.record("expected a conflict")
      return
    }
    #expect(entries.map(\.value) == ["a:{x}", "a:{y}", "a:{z}"])
    #expect(try resolved(table, "a:b") == "a:b")
  }

  @Test func copiesAreIndependent() throws {
    let original = try table(["a:b"])
    var copy = original
    copy.insert(try URNPattern(parsing: "a:c"), "a:c")
    #expect(try resolved(original, "a:c") == nil)
    #expect(try resolved(copy, "a:c") == "a:c")
  }
}
