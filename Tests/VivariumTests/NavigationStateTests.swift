import Foundation
import Testing
import ViperKit

@testable import VivariumRuntime
@testable import VivariumSupport

/// Where the person is survives a restart: saved as a navigation state,
/// restored screen by screen, the deepest part that still fits kept.
@Suite("Resuming where you left off")
@MainActor
struct NavigationStateTests {
  private func text(_ runtime: HostRuntime) -> String {
    runtime.screen()?.lines(TextRenderer(width: 1000)).joined(separator: "\n") ?? ""
  }

  @Test func aModalOverADashboardTabComesBackAsItWas() async throws {
    let data = try TemporaryDirectory()
    let first = HostRuntime(catalog: BuildProducts.demoCatalog, services: TestServices.make(in: data))
    try await first.open("dashboard:home?user=ada")
    try first.send(.tap(button: "tab.feed"))
    try first.send(.tap(button: "tabs/wallet/topUp"))
    let state = first.navigationState
    let shown = text(first)
    first.shutdown()
    #expect(state.layers.count == 2 && state.layers[0][0].slots[0].selected == 2)

    let second = HostRuntime(catalog: BuildProducts.demoCatalog, services: TestServices.make(in: data))
    await #expect(second.restore(state) == [])
    #expect(second.navigationState == state)
    #expect(text(second) == shown)
    try await second.dismissModal()
    #expect(text(second).contains("feed:home (tab 3 of 3)"))
    second.shutdown()
  }

  @Test func aScreenThatNoLongerFitsIsNamedAndTheScreensUnderItStay() async throws {
    let runtime = HostRuntime(catalog: BuildProducts.demoCatalog, services: try TestServices.make())
    let screen = { (urn: String) in NavigationState.Screen(urn: urn, arguments: [], slots: []) }
    let state = NavigationState(layers: [[screen("items:list"), screen("gone:away"), screen("items:detail:1")]])
    let lost = await runtime.restore(state)
    #expect(lost.count == 1)
    // The screen that is gone, and how many saved screens were left out with it.
    #expect(lost.first?.contains("'gone:away'") == true && lost.first?.contains(" 2 ") == true, "\(lost)")
    #expect(runtime.navigationState.layers.map { $0.map(\.urn) } == [["items:list"]])
    #expect(runtime.top?.isAppeared == true)
    runtime.shutdown()
  }

  @Test func theStoreSavesOnlyChangesAndRefusesADamagedFile() throws {
    let data = try TemporaryDirectory()
    let store = NavigationStore(dataDirectory: data.path, directories: ["/plugins"])
    #expect(try store.load().get() == nil)
    let state = NavigationState(layers: [[.init(urn: "items:list", arguments: [["x", "1"]], slots: [])]])
    try store.save(state)
    #expect(try NavigationStore(dataDirectory: data.path, directories: ["/plugins"]).load().get() == state)
    #expect(NavigationStore(dataDirectory: data.path, directories: ["/other"]).path != store.path)
    #expect(NavigationStore(dataDirectory: data.path, directories: ["/plugins/../plugins/"]).path == store.path)
    try store.save(NavigationState(layers: []))
    #expect(try NavigationStore(dataDirectory: data.path, directories: ["/plugins"]).load().get() == state)
    try Data("{not json".utf8).write(to: URL(fileURLWithPath: store.path))
    guard case .failure(let error) = store.load() else {
      Issue.record("a damaged file was read")
      return
    }
    #expect(error.description.contains(store.path), "the file: \(error)")
  }

  @Test func theNextRunResumesAndFreshStartsAnew() throws {
    let plugins = try BuildProducts.demoPluginDirectory()
    let data = try TemporaryDirectory()
    func run(_ script: String, _ extra: [String] = []) throws -> ProcessResult {
      let file = try data.write("s-\(UUID().uuidString).vivarium", Data(script.utf8))
      return try ProcessRunner.vivarium(
        ["run", "--plugins", plugins.path, "--data", data.path, "--script", file] + extra,
        environment: ["VIVARIUM_NOW": "2026-11-21T12:00:00Z", "COLUMNS": "80"])
    }
    _ = try run("type user ada\ntype password lovelace\ntap signIn\nwait 3s\ntap tab.search\nquit\n")
    let resumed = try run("quit\n")
    #expect(resumed.stdout.contains("products:search (tab 2 of 3)"), "\(resumed.stdout)")
    let fresh = try run("quit\n", ["--fresh"])
    #expect(fresh.stdout.contains("── login:form"), "\(fresh.stdout)")
  }
}
