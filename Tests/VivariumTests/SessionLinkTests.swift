import Foundation
import Testing

@testable import VivariumHost

/// `tree --link` and the `link` of each step: where the person is, as a deep
/// link to share, and what a link cannot carry.
@Suite("Session links")
@MainActor
struct SessionLinkTests {
  private func session() throws -> Session {
    let runtime = HostRuntime(catalog: BuildProducts.demoCatalog, services: try TestServices.make())
    return Session(
      runtime: runtime, renderer: TextRenderer(), plugins: "plugins", routes: "routes", scheme: "vivarium-demo")
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
    #expect(presented.link == "vivarium-demo://dashboard:home/feed:home/wallet:topup")
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

  @Test func aStepIsEncodedWithItsLinkOrNull() async throws {
    let session = try session()
    func json(_ step: Session.Step) throws -> [String: Any] {
      try #require(JSONSerialization.jsonObject(with: try JSONEncoder().encode(step)) as? [String: Any])
    }
    let empty = try json(await session.execute("tree"))
    #expect(empty["link"] is NSNull)
    #expect(empty["screen"] == nil, "an absent screen stays left out, as before")
    let opened = try json(await session.execute("open items:list"))
    #expect(opened["link"] as? String == "vivarium-demo://items:list")
    session.runtime.shutdown()
  }

  @Test func jsonModeGivesEachStepTheLinkAfterIt() throws {
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
    #expect(
      steps.map { $0["link"] as? String } == [
        "vivarium-demo://items:list", "vivarium-demo://items:list/items:detail:2",
        "vivarium-demo://items:list/items:detail:2", "vivarium-demo://items:list",
      ])
    #expect(steps[2]["output"] as? [String] == ["vivarium-demo://items:list/items:detail:2"])
  }
}
