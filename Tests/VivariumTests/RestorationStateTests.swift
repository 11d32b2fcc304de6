import Foundation
import Glibc
import Testing
import ViperKit

@testable import VivariumRuntime
@testable import VivariumSupport

/// A module's own state (``StateRestoring``) comes back with the screens:
/// after a restart, in one process or out of it, and after its plugin
/// process crashed and was restarted; a state that no longer fits is named.
@Suite("Restoration state")
@MainActor
struct RestorationStateTests {
  private func text(_ runtime: HostRuntime) -> String {
    runtime.screen()?.lines(TextRenderer(width: 1000)).joined(separator: "\n") ?? ""
  }

  /// The wallet balance shown, in euros.
  private func balance(_ runtime: HostRuntime) -> Int? {
    guard let range = text(runtime).range(of: #"Wallet: €\d+"#, options: .regularExpression) else { return nil }
    return Int(text(runtime)[range].dropFirst("Wallet: €".count))
  }

  /// Page 2 of a search for "mug" among favourites-or-not, in the dashboard's search tab.
  private func searchPageTwo(_ runtime: HostRuntime) async throws {
    try await runtime.open("dashboard:home?user=ada")
    try runtime.send(.tap(button: "tab.search"))
    try runtime.send(.type(field: "tabs/query", text: "e"))
    try runtime.send(.tap(button: "tabs/search"))
    try runtime.send(.tap(button: "tabs/next"))
  }

  @Test func aSearchTabKeepsItsQueryAndPageInOneProcess() async throws {
    let data = try TemporaryDirectory()
    let first = HostRuntime(catalog: BuildProducts.demoCatalog, services: TestServices.make(in: data))
    try await searchPageTwo(first)
    let shown = text(first)
    #expect(shown.contains("page 2 of"), "\(shown)")
    let state = first.navigationState
    first.shutdown()
    let search = try #require(state.layers[0][0].slots.first?.children.first { $0.urn.hasPrefix("products:search") })
    #expect(search.state == #"{"onlyFavourites":false,"page":1,"query":"e"}"#)

    let second = HostRuntime(catalog: BuildProducts.demoCatalog, services: TestServices.make(in: data))
    await #expect(second.restore(state) == [])
    #expect(text(second) == shown)
    #expect(second.navigationState == state)
    second.shutdown()
  }

  @Test func aSearchKeepsItsPageOutOfProcessAndAcrossACrashOfItsPlugin() async throws {
    let host = try await FaultyHost(plugins: ["ProductSearch"])
    try await host.runtime.open("products:search")
    try await host.runtime.act(.tap(button: "next"))
    let shown = host.text
    #expect(shown.contains("page 2 of"))
    let state = host.runtime.navigationState
    #expect(state.layers[0][0].state == #"{"onlyFavourites":false,"page":1,"query":""}"#)

    let process = try #require(host.process(named: "libProductSearch.so"))
    kill(process.pid, SIGKILL)
    #expect(try await host.waitForText("Restart").contains("libProductSearch.so"))
    try await host.runtime.act(.tap(button: "restart"))
    #expect(host.text == shown)

    let second = HostRuntime(catalog: host.catalog, services: TestServices.make(in: host.data))
    await #expect(second.restore(state) == [])
    #expect(text(second) == shown)
    second.shutdown()
  }

  @Test func aModalRestoredReturnsItsResultToTheModuleThatOpenedIt() async throws {
    let first = HostRuntime(catalog: BuildProducts.demoCatalog, services: try TestServices.make())
    try await first.open("dashboard:home?user=ada")
    try first.send(.tap(button: "tab.feed"))
    // Both start with the same balance: each has a data directory of its own.
    let before = try #require(balance(first))
    try first.send(.tap(button: "tabs/wallet/topUp"))
    let state = first.navigationState
    first.shutdown()
    #expect(state.layers[1][0].openedBy == [.init(slot: "tabs", index: 2), .init(slot: "wallet", index: 0)])

    let second = HostRuntime(catalog: BuildProducts.demoCatalog, services: try TestServices.make())
    await #expect(second.restore(state) == [])
    try second.send(.select(list: "amounts", row: "20"))
    #expect(second.layers.count == 1)
    #expect(balance(second) == before + 20, "\(text(second))")
    #expect(second.takeProblems().isEmpty)
    second.shutdown()
  }

  @Test func aStateThatNoLongerDecodesIsNamedAndTheModuleBuiltFromItsURN() async throws {
    let runtime = HostRuntime(catalog: BuildProducts.demoCatalog, services: try TestServices.make())
    let state = NavigationState(layers: [
      [
        NavigationState.Screen(urn: "items:list"),
        NavigationState.Screen(urn: "products:search", state: #"{"page":"two"}"#),
      ]
    ])
    let lost = await runtime.restore(state)
    #expect(
      lost == [
        "products:search was built from its URN alone: its saved restoration state does not decode as Place: 'query' is missing"
      ])
    #expect(text(runtime).contains("page 1 of"))
    #expect(runtime.layers[0].count == 2)
    runtime.shutdown()
  }

  @Test func aSavedTabOrSlotThatIsGoneIsNamedAndTheRestKept() async throws {
    let runtime = HostRuntime(catalog: BuildProducts.demoCatalog, services: try TestServices.make())
    let state = NavigationState(layers: [
      [
        NavigationState.Screen(
          urn: "dashboard:home?user=ada",
          slots: [
            .init(name: "tabs", selected: 7, children: []), .init(name: "sidebar", selected: 0, children: []),
          ]),
        NavigationState.Screen(urn: "items:detail:2"),
      ]
    ])
    let lost = await runtime.restore(state)
    #expect(lost.count == 2)
    // The tab and the slot that are gone, each named.
    #expect(lost.contains { $0.contains("'tabs'") && $0.contains("tab 8") }, "\(lost)")
    #expect(lost.contains { $0.contains("'sidebar'") }, "\(lost)")
    #expect(runtime.navigationState.layers[0].map(\.urn) == ["dashboard:home?user=ada", "items:detail:2"])
    runtime.shutdown()
  }

  @Test func aPushedDetailComesBackOnTopOfTheListThatOpenedIt() async throws {
    let first = HostRuntime(catalog: BuildProducts.demoCatalog, services: try TestServices.make())
    try await first.open("items:list")
    await first.settleAll()
    let list = text(first)
    try await first.actUntilIdle(.select(list: "items", row: "2"))
    let detail = text(first)
    let state = first.navigationState
    first.shutdown()
    #expect(
      state.layers == [
        [NavigationState.Screen(urn: "items:list"), NavigationState.Screen(urn: "items:detail:2", openedBy: [])]
      ])

    let second = HostRuntime(catalog: BuildProducts.demoCatalog, services: try TestServices.make())
    await #expect(second.restore(state) == [])
    await second.settleAll()
    #expect(text(second) == detail)
    #expect(second.top?.opener === second.layers[0][0])
    try await second.back()
    await second.settleAll()
    #expect(text(second) == list)
    second.shutdown()
  }
}
