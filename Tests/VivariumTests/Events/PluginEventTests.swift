import Foundation
import Testing
import ViperKit
import ViperKitTestKit
import VivariumLoading
import VivariumSupport
import VivariumWire
import WalletInterface

@testable import VivariumRuntime

/// Events between plugins: the wallet announces each change of the
/// balance, and every preview shows it, in every session, whichever
/// session topped up; a topic a plugin does not declare is refused.
@Suite("Events between plugins")
@MainActor
struct PluginEventTests {
  /// The balance a session's screen shows, as `Wallet: €N`.
  private static func balance(_ runtime: HostRuntime) -> String? {
    let text = runtime.screen()?.lines(TextRenderer(width: 1000)).joined(separator: "\n") ?? ""
    return text.split(separator: "\n").first { $0.contains("Wallet: €") }.map {
      String($0[$0.range(of: "€")!.upperBound...].prefix { $0.isNumber })
    }
  }

  @Test func aTopUpInOneSessionUpdatesTheBalanceShownInAnother() async throws {
    let host = try await FaultyHost(plugins: ["Wallet"])
    let first = host.runtime
    let second = first.host.openSession()
    defer { second.shutdown() }
    try await first.open("wallet:preview")
    try await second.open("wallet:preview")
    #expect(await host.waitFor { Self.balance(first) == "50" && Self.balance(second) == "50" })
    try await first.act(.tap(button: "topUp"))
    try await first.act(.select(list: "amounts", row: "20"))
    #expect(await host.waitFor { Self.balance(first) == "70" }, "the session that topped up")
    #expect(
      await host.waitFor { Self.balance(second) == "70" },
      "the other, told by the event: \(Self.balance(second) ?? "-")")
    let counts = first.services.events.counts[WalletBalance.name]
    #expect(counts?.published == 1 && counts?.delivered == 1 && counts?.dropped == 0, "\(String(describing: counts))")
  }

  /// As `vivarium run` and `serve` load plugins: known from a scan, each
  /// started in its process when one of its modules is first built; the
  /// event goes to that process.
  @Test func aScannedPluginsProcessGetsTheEventsItSubscribesTo() async throws {
    let plugins = try TemporaryDirectory()
    try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: plugins.path)
    let wallet = plugins.path + "/libWallet.so"
    try FileManager.default.createSymbolicLink(
      atPath: wallet, withDestinationPath: BuildProducts.directory + "/libWallet.so")
    let options = PluginProcessOptions(
      executable: BuildProducts.vivarium, responseLimit: TestServices.responseLimit, memoryLimit: 128 << 20)
    let scanner = PluginScanner(
      probe: PluginProbe(executable: BuildProducts.vivarium), hosting: options, loader: PluginLoader())
    var registry = PluginRegistry.none
    let catalog = PluginCatalog(outcomes: scanner.scanAll([wallet], registry: &registry))
    let loaded = try #require(catalog.loaded.first)
    #expect(loaded.activation != nil && loaded.process == nil, "known from its scan, not started")
    let first = HostRuntime(catalog: catalog, services: TestServices.make(in: try TemporaryDirectory()))
    let second = first.host.openSession()
    defer {
      second.shutdown()
      first.shutdown()
      loaded.runningProcess?.terminate()
    }
    try await first.open("wallet:preview")
    try await second.open("wallet:preview")
    let host = Waiting()
    #expect(await host.waitFor { Self.balance(first) == "50" && Self.balance(second) == "50" })
    #expect(loaded.runningProcess != nil, "started by the first build")
    try await first.act(.tap(button: "topUp"))
    try await first.act(.select(list: "amounts", row: "20"))
    #expect(await host.waitFor { Self.balance(first) == "70" }, "the session that topped up")
    #expect(
      await host.waitFor { Self.balance(second) == "70" },
      "the other, told by the event: \(Self.balance(second) ?? "-")")
    let counts = first.services.events.counts[WalletBalance.name]
    #expect(counts?.published == 1 && counts?.delivered == 1, "\(String(describing: counts))")
  }

  @Test func aTopicThePluginDoesNotDeclareIsRefusedAndSaid() async throws {
    let data = try TemporaryDirectory()
    let runtime = HostRuntime(catalog: BuildProducts.demoCatalog, services: TestServices.make(in: data))
    let login = try #require(runtime.catalog.loaded.first { $0.name == "LoginPlugin" })
    let services = runtime.services.services(
      for: Contract(urn: "probe", summary: "s"), plugin: PluginIdentity(login), urn: "probe")
    let bus = try #require(services.events)
    try bus.publish(WalletBalance.self, .init(balance: 1))
    final class Owner {}
    let owner = Owner()
    bus.subscribe(WalletBalance.self, by: owner) { _ in }
    let refusals = runtime.services.recentLog.filter { $0.contains("'\(WalletBalance.name)'") }
    #expect(refusals.count == 2, "\(runtime.services.recentLog)")
    #expect(runtime.services.events.counts[WalletBalance.name] == nil, "nothing published")
  }

  @Test func inTheHostsProcessASubscriberGetsTheEventInATurnOfItsOwn() async throws {
    let data = try TemporaryDirectory()
    let runtime = HostRuntime(catalog: BuildProducts.demoCatalog, services: TestServices.make(in: data))
    let wallet = try #require(runtime.catalog.loaded.first { $0.name == "WalletPlugin" })
    let bus = try #require(
      runtime.services.services(for: Contract(urn: "probe", summary: "s"), plugin: PluginIdentity(wallet), urn: "probe")
        .events)
    final class Owner {}
    var owner: Owner? = Owner()
    var got: [Int] = []
    bus.subscribe(WalletBalance.self, by: try #require(owner)) { got.append($0.balance) }
    try bus.publish(WalletBalance.self, .init(balance: 7))
    #expect(got.isEmpty, "not inside the publisher's call")
    for _ in 0..<1000 where got.isEmpty { await Task.yield() }
    #expect(got == [7])
    owner = nil
    try bus.publish(WalletBalance.self, .init(balance: 8))
    for _ in 0..<100 { await Task.yield() }
    #expect(got == [7], "the subscription ended with its owner")
  }

  @Test func theTestKitRecordsWhatIsPublishedAndDeliversToItsSubscribers() throws {
    let fake = FakeServices()
    let events = try #require(fake.services(for: Contract(urn: "a:b", summary: "s")).events)
    final class Owner {}
    let owner = Owner()
    var got: [Int] = []
    events.subscribe(WalletBalance.self, by: owner) { got.append($0.balance) }
    try events.publish(WalletBalance.self, .init(balance: 3))
    try fake.deliver(WalletBalance.self, .init(balance: 4))
    #expect(got == [3, 4] && fake.publishedEvents.map(\.topic) == [WalletBalance.name])
  }
}

/// Waits as ``FaultyHost/waitFor(_:)`` does, for a host made otherwise.
@MainActor
private struct Waiting {
  /// Whether `condition` became true within 30 s, looked at every 10 ms.
  func waitFor(_ condition: () -> Bool) async -> Bool {
    for _ in 0..<3000 where !condition() {
      try? await Task.sleep(nanoseconds: 10_000_000)
    }
    return condition()
  }
}
