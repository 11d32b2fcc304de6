import Foundation
import Testing
import ViperKit
import VivariumSupport

@testable import VivariumLoading
@testable import VivariumRuntime

/// Several people's sessions in one host: each has its own navigation,
/// problems and notices; they share the plugins, their processes and what
/// the plugins saved.
@Suite("Many sessions in one host")
@MainActor
struct ManySessionsTests {
  @Test func sessionsNavigateApartAndSeeWhatAnotherSaved() async throws {
    let first = HostRuntime(catalog: BuildProducts.demoCatalog, services: try TestServices.make())
    let second = first.host.openSession()
    #expect(first.host.sessions.map(ObjectIdentifier.init) == [first, second].map(ObjectIdentifier.init))
    try await first.open("items:list")
    try await second.open("items:detail:1")
    await first.settleAll()
    await second.settleAll()
    try await first.actUntilIdle(.select(list: "items", row: "1"))
    #expect(first.layers[0].map(\.urn) == ["items:list", "items:detail:1"])
    #expect(second.layers[0].map(\.urn) == ["items:detail:1"])
    // The first session disables item 1; the second reads it on opening it again.
    try await first.actUntilIdle(.tap(button: "toggle"))
    try await second.open("items:detail:1")
    await second.settleAll()
    #expect(second.top?.tree?.contains(.button(id: "toggle", title: "Enable")) == true)
    #expect(first.takeProblems().isEmpty && second.takeProblems().isEmpty)
  }

  @Test func aSessionsEndDetachesOnlyItsOwnModules() async throws {
    let first = HostRuntime(catalog: BuildProducts.demoCatalog, services: try TestServices.make())
    let second = first.host.openSession()
    try await first.open("items:list")
    try await second.open("items:list")
    let (mine, theirs) = (try #require(first.top), try #require(second.top))
    first.shutdown()
    #expect(mine.isDetached && mine.lifecycle.last == .detach)
    #expect(!theirs.isDetached && theirs.lifecycle.last == .appear)
    #expect(first.host.sessions.map(ObjectIdentifier.init) == [ObjectIdentifier(second)])
    await second.settleAll()
    try await second.actUntilIdle(.select(list: "items", row: "2"))
    #expect(second.top?.urn == "items:detail:2")
  }

  @Test func aModulesNoticeReachesItsOwnSessionAndTheHostsReachEverySession() throws {
    let first = HostRuntime(catalog: BuildProducts.demoCatalog, services: try TestServices.make())
    let second = first.host.openSession()
    let contract = Contract(urn: "shop:cart", summary: "s", services: [.notifications])
    let services = first.services.services(
      for: contract, plugin: ServicesTests.shop, urn: contract.urn, telling: first.notifications)
    services.notifications?.notice("added to the cart", tone: .positive)
    #expect(first.notifications.takeNotices().map(\.text) == ["added to the cart"])
    #expect(second.notifications.takeNotices().isEmpty)
    first.services.announcements.notice("the disk is full", tone: .warning)
    #expect(first.notifications.takeNotices().map(\.text) == ["the disk is full"])
    #expect(second.notifications.takeNotices().map(\.text) == ["the disk is full"])
  }

  /// A permission never decided is asked of the person whose session's
  /// module used it, not of whoever set up asking last; what they answer
  /// holds for the host, so the other session is not asked it again.
  @Test func aPermissionIsAskedInTheSessionWhoseModuleUsedIt() async throws {
    let recorder = ProbeRecorder()
    var plugin = LoadedPlugin(
      path: "net.so", name: "Net",
      factories: ["net:first", "net:second"].map {
        ProbeFactory(contract: Contract(urn: $0, summary: "Uses http.", services: [.http]), recorder: recorder).factory
      })
    plugin.hosts = ["api.example.com", "other.example.com"]
    let first = HostRuntime(catalog: PluginCatalog(outcomes: [.loaded(plugin)]), services: try TestServices.make())
    let second = first.host.openSession()
    var asked: [String] = []
    for (name, session) in [("first", first), ("second", second)] {
      session.permissionAsker.ask = { _, permission in
        asked.append("\(name): \(permission)")
        return .denied
      }
    }
    try await first.open("net:first")
    try await second.open("net:second")
    func send(from urn: String, to url: String) async throws -> HTTPError.Kind? {
      let http = try #require(recorder.context(urn)?.services.http)
      do {
        _ = try await http.send(HTTPRequest(url))
        return nil
      } catch let error as HTTPError {
        return error.kind
      }
    }
    #expect(try await send(from: "net:second", to: "https://api.example.com/x") == .notGranted)
    #expect(asked == ["second: http:api.example.com"])
    // Denied for the host: the first session's module is refused without asking.
    #expect(try await send(from: "net:first", to: "https://api.example.com/y") == .notGranted)
    #expect(try await send(from: "net:first", to: "https://other.example.com/z") == .notGranted)
    #expect(asked == ["second: http:api.example.com", "first: http:other.example.com"])
    let identity = PluginIdentity(name: "Net", path: "net.so", hosts: plugin.hosts)
    #expect(first.services.permissions.decision(PluginPermission(.http, "api.example.com"), for: identity) == .denied)
  }

  /// A use no session's module made (a provider's, which serves every
  /// session) is asked in the session that first became able to ask and
  /// still can: not in one that ended, nor one that can no longer ask.
  @Test func aProvidersUseIsAskedInTheFirstSessionThatCanAsk() throws {
    let first = HostRuntime(catalog: PluginCatalog(outcomes: []), services: try TestServices.make())
    let (second, third) = (first.host.openSession(), first.host.openSession())
    let permissions = first.services.permissions
    #expect(permissions.askerForTheHost() == nil, "no session can ask")
    for session in [third, second] { session.permissionAsker.ask = { _, _ in .denied } }
    #expect(permissions.askerForTheHost() === third.permissionAsker, "the first that became able")
    third.shutdown()
    #expect(permissions.askerForTheHost() === second.permissionAsker, "a session that ended asks nobody")
    second.permissionAsker.ask = nil
    #expect(permissions.askerForTheHost() == nil)
    first.permissionAsker.ask = { _, _ in .granted }
    second.permissionAsker.ask = { _, _ in .denied }
    #expect(permissions.askerForTheHost() === first.permissionAsker)
  }

  /// One plugin process hosts the modules of both sessions; when it crashes,
  /// both show it, and a restart from one rebuilds them in both.
  @Test func aCrashShowsInEverySessionAndARestartRecoversThemAll() async throws {
    let faulty = try await FaultyHost(plugins: ["Faulty"])
    let first = faulty.runtime
    let second = first.host.openSession()
    try await first.open("faulty:demo")
    try await second.open("faulty:demo")
    #expect(first.top?.remote?.process === second.top?.remote?.process)
    try await second.act(.type(field: "note", text: "milk"))
    try await second.act(.tap(button: "save"))
    try await first.act(.tap(button: "crash"))
    let failed = await faulty.waitFor { [first, second].allSatisfy { $0.top?.remote?.failure != nil } }
    #expect(failed, "both sessions show the crash")
    try await first.act(.tap(button: "restart"))
    await second.settleAll()
    for session in [first, second] {
      #expect(session.top?.remote?.failure == nil)
      let text = session.screen()?.lines(TextRenderer(width: 1000)).joined(separator: "\n") ?? ""
      #expect(text.contains("Saved note: milk"), "\(text)")
    }
  }
}

/// The host's list of sessions keeps none alive and keeps their order.
@Suite("Weak registry")
struct WeakRegistryTests {
  final class Box {}

  @Test func itKeepsTheOrderAddedDropsWhatWasRemovedAndKeepsNothingAlive() {
    var registry = WeakRegistry<Box>()
    let kept = (0..<40).map { _ in Box() }
    for box in kept { registry.add(box) }
    do {
      // Released without being removed: gone from the list, and dropped at a later add.
      for _ in 0..<40 { registry.add(Box()) }
    }
    registry.remove(kept[3])
    let expected = kept.enumerated().filter { $0.offset != 3 }.map { ObjectIdentifier($0.element) }
    #expect(registry.objects.map(ObjectIdentifier.init) == expected)
    var seen = 0
    registry.forEach { _ in seen += 1 }
    #expect(seen == 39)
  }
}
