import Foundation
import Testing

@testable import VivariumRuntime
@testable import VivariumSupport

/// `tree --link` and the `link` of each step: where the person is, as a deep
/// link to share, and what a link cannot carry.
@Suite("Session links")
@MainActor
struct SessionLinkTests {
  private func session() throws -> Session {
    let runtime = HostRuntime(catalog: BuildProducts.demoCatalog, services: try TestServices.make())
    return Session(
      runtime: runtime, renderer: TextRenderer(), plugins: "plugins", routes: "routes", scheme: "vivarium-demo",
      settleLimit: TestServices.settleLimit)
  }

  @Test func treeLinkPrintsTheLinkWithTheDeclaredModal() async throws {
    let session = try session()
    _ = await session.execute("open dashboard:home")
    _ = await session.execute("tap tab.feed")
    let presented = await session.execute("tap tabs/wallet/topUp")
    #expect(session.runtime.layers.map { $0.map(\.urn) } == [["dashboard:home"], ["wallet:topup"]])
    let step = await session.execute("tree --link")
    #expect(step.errors.isEmpty)
    #expect(step.output == ["vivarium-demo://dashboard:home/feed:home/wallet:topup"])
    #expect(step.screen == nil)
    #expect(presented.link == nil, "only the step of tree --link carries the link")
    session.runtime.shutdown()
  }

  @Test func treeLinkNamesTheModalItLeavesOut() async throws {
    let probes = try ProbeHost()
    let session = Session(
      runtime: probes.runtime, renderer: TextRenderer(), plugins: "plugins", routes: "routes", scheme: nil)
    _ = await session.execute("open probe:parent")
    try probes.request(from: "probe:parent") { $0.present("probe:child:1") }
    let step = await session.execute("tree --link")
    #expect(step.output == ["probe:parent", "The modal probe:child:1 is not part of the link."])
  }

  @Test func treeLinkWithoutModalsIsTheLinkAlone() async throws {
    let session = try session()
    #expect(await session.execute("tree --link").output == ["No modules are open."])
    _ = await session.execute("open items:list/items:detail:2")
    #expect(await session.execute("tree --link").output == ["vivarium-demo://items:list/items:detail:2"])
    session.runtime.shutdown()
  }

  @Test func onlyTheStepOfTreeLinkCarriesTheLink() async throws {
    let session = try session()
    func json(_ step: Session.Step) throws -> [String: Any] {
      try #require(JSONSerialization.jsonObject(with: try JSONEncoder().encode(step)) as? [String: Any])
    }
    let empty = try json(await session.execute("tree --link"))
    #expect(empty["link"] is NSNull, "nothing is shown")
    #expect(empty["screen"] == nil, "an absent screen stays left out, as before")
    let opened = try json(await session.execute("open items:list"))
    #expect(opened["link"] == nil)
    #expect(opened["depth"] as? Int == 1 && opened["modals"] as? Int == 0)
    #expect(try json(await session.execute("tree --link"))["link"] as? String == "vivarium-demo://items:list")
    session.runtime.shutdown()
  }

  /// A step carries the screen shown and how deep the stack is, never the
  /// whole stack: its size is the same on a stack a hundred screens deep.
  @Test func aStepIsAsLargeOnADeepStackAsOnAShallowOne() async throws {
    let session = try session()
    func size(_ step: Session.Step) throws -> Int { try JSONEncoder().encode(step).count }
    _ = await session.execute("open items:list")
    var sizes: [Int: Int] = [:]
    for depth in 2...120 {
      let step = await session.execute("open items:list")
      #expect(step.errors.isEmpty)
      sizes[depth] = try size(step)
    }
    let shallow = try #require(sizes[30])
    let deep = try #require(sizes[120])
    // The header is as wide at any depth, though not as many bytes: its
    // trail and padding (a line is 3 bytes a column) take the columns in
    // other shares. A link of the stack would add 11 bytes a screen.
    #expect(abs(deep - shallow) <= 2 * 80, "\(shallow) bytes at depth 30, \(deep) at depth 120")
    session.runtime.shutdown()
  }

  @Test func jsonModeGivesTheLinkInTheStepOfTreeLink() throws {
    let plugins = try BuildProducts.demoPluginDirectory()
    let data = try TemporaryDirectory()
    let script = try data.write("s.vivarium", Data("open items:detail:2\ntree --link\nback\n".utf8))
    let result = try ProcessRunner.vivarium(
      [
        "run", "--plugins", plugins.path, "--data", data.path, "--script", script, "--start", "items:list", "--json",
        "--in-process",
      ],
      environment: ["VIVARIUM_NOW": "2026-11-21T12:00:00Z", "COLUMNS": "80"])
    #expect(result.status == 0, "\(result.stderr)")
    let steps = try result.stdout.split(separator: "\n").map {
      try #require(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
    }
    #expect(
      steps.map { $0["command"] as? String } == ["open items:list", "open items:detail:2", "tree --link", "back"])
    #expect(steps.map { $0["link"] as? String } == [nil, nil, "vivarium-demo://items:list/items:detail:2", nil])
    #expect(steps.map { $0["depth"] as? Int } == [1, 2, 2, 1])
    #expect(steps[2]["output"] as? [String] == ["vivarium-demo://items:list/items:detail:2"])
  }
}
