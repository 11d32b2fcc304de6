import Foundation
import Testing
import ViperKit

@testable import VivariumRuntime
@testable import VivariumSupport

/// Where the person is, as a deep link to share: opened in a new runtime, it
/// rebuilds the same main stack and declared modals, showing the same tabs.
@Suite("Where you are as a link")
@MainActor
struct CurrentLinkTests {
  private func runtime() throws -> HostRuntime {
    HostRuntime(catalog: BuildProducts.demoCatalog, services: try TestServices.make())
  }

  private func text(_ runtime: HostRuntime) -> String {
    runtime.screen()?.lines(TextRenderer(width: 1000)).joined(separator: "\n") ?? ""
  }

  @Test func theLinkOfATabAndAPushedDetailRebuildsTheSameStack() async throws {
    let first = try runtime()
    try await first.open("vivarium-demo://dashboard:home?user=ada/feed:home/items:detail:3", scheme: "vivarium-demo")
    #expect(first.navigationState.layers[0][0].slots[0].selected == 2)
    let link = try #require(first.link(scheme: "vivarium-demo"))
    #expect(link == "vivarium-demo://dashboard:home?user=ada/feed:home/items:detail:3")

    let second = try runtime()
    try await second.open(link, scheme: "vivarium-demo")
    #expect(second.navigationState.layers[0] == first.navigationState.layers[0])
    #expect(text(second) == text(first))
    first.shutdown()
    second.shutdown()
  }

  @Test func aTabTheMainStackShowsAfterATapIsInTheLink() async throws {
    let runtime = try runtime()
    try await runtime.open("dashboard:home")
    #expect(runtime.link(scheme: nil) == "dashboard:home", "the first tab needs no segment")
    try runtime.send(.tap(button: "tab.search"))
    #expect(runtime.link(scheme: nil) == "dashboard:home/products:search")
    runtime.shutdown()
  }

  @Test func argumentsGivenApartAreFoldedIntoTheQuery() async throws {
    let first = try runtime()
    try await first.open("dashboard:home", arguments: [(name: "user", value: "grace hopper/&?")])
    let link = try #require(first.link(scheme: nil))
    #expect(link == "dashboard:home?user=grace%20hopper%2F%26%3F")

    let second = try runtime()
    try await second.open(link)
    #expect(text(second).contains("Hello, Grace hopper/&?"))
    #expect(text(second) == text(first))
    first.shutdown()
    second.shutdown()
  }

  @Test func aModalItsOpenerDeclaresIsInTheLinkAndComesBackAModal() async throws {
    let first = try runtime()
    try await first.open("dashboard:home")
    try first.send(.tap(button: "tab.feed"))
    try first.send(.tap(button: "tabs/wallet/topUp"))
    let link = try #require(first.link(scheme: "vivarium-demo"))
    #expect(link == "vivarium-demo://dashboard:home/feed:home/wallet:topup")
    #expect(first.linkLeavesOut.isEmpty)

    let second = try runtime()
    try await second.open(link, scheme: "vivarium-demo")
    #expect(second.navigationState.layers == first.navigationState.layers)
    #expect(second.link(scheme: "vivarium-demo") == link)
    try second.send(.select(list: "amounts", row: "20"))
    #expect(second.layers.map { $0.map(\.urn) } == [["dashboard:home"]])
    #expect(text(second).contains("Wallet: €70"), "the rebuilt modal answers the wallet that presents it")
    first.shutdown()
    second.shutdown()
  }

  @Test func aModalNoModuleDeclaresIsLeftOutWithTheLayersAboveIt() async throws {
    let probes = try ProbeHost()
    try await probes.runtime.open("probe:parent")
    try probes.request(from: "probe:parent") { $0.present("probe:child:1") }
    try probes.request(from: "probe:child:1") { $0.present("probe:child:2") }
    #expect(probes.runtime.link(scheme: nil) == "probe:parent")
    #expect(probes.runtime.linkLeavesOut.map(\.urn) == ["probe:child:1", "probe:child:2"])
  }

  @Test func nothingShownHasNoLink() throws {
    #expect(try runtime().link(scheme: "vivarium-demo") == nil)
  }
}
