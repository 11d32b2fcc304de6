import Foundation
import Testing
import ViperKit

@testable import VivariumLoading
@testable import VivariumRuntime

/// Business service calls between plugin processes: FaultyFrame's
/// `ask:{how}` calls the faulty service, which the Faulty plugin provides
/// in a process of its own, through the host. A provider that answers,
/// crashes or hangs: the consumer's screen stays and shows how the call
/// ended, the next call after a crash starts the provider again, and a
/// caller that goes away cancels the call in the provider.
@Suite("Business service calls between plugin processes")
@MainActor
struct ServiceProcessTests {
  let host: FaultyHost

  init() async throws {
    host = try await FaultyHost(plugins: ["Faulty", "FaultyFrame"])
  }

  private func ask(_ how: String) async throws {
    try await host.runtime.open("ask:\(how)")
    try await host.runtime.act(.tap(button: "ask"))
  }

  /// The host's log lines of service calls to the faulty service.
  private var logged: [String] { host.runtime.services.recentLog.filter { $0.contains("service call faulty.") } }

  @Test func aModuleCallsAProviderInAnotherProcessThroughTheHost() async throws {
    try await ask("echo")
    let shown = try await host.waitForText("Answer")
    #expect(shown.contains("Answer 1: echo: ping"))
    let consumer = try #require(host.process(named: "libFaultyFrame.so"))
    let provider = try #require(host.process(named: "libFaulty.so"))
    #expect(consumer.pid > 0 && provider.pid > 0 && consumer.pid != provider.pid)
    #expect(
      logged.contains { $0.contains("ask:echo") && $0.contains("faulty.echo by FaultyPlugin answered") }, "\(logged)")
  }

  /// A provider in a process of its own that uses a host service it does
  /// not list gets the stand-in a module gets, not nothing: the use is
  /// logged, naming the service and the list to add it to.
  @Test func aProviderUsingAServiceItDoesNotListIsReported() async throws {
    try await ask("unlisted")
    let shown = try await host.waitForText("Answer")
    #expect(shown.contains("Answer 1: clock"), "a stand-in, not nil: \(shown)")
    let reported = host.runtime.services.recentLog.filter { $0.contains("'\(Services.Name.clock)'") }
    #expect(reported.contains { $0.contains("FaultyPlugin") && $0.contains("static let services") }, "\(reported)")
  }

  @Test func aProviderThatCrashesFailsTheCallAsUnavailableAndTheNextCallStartsItAgain() async throws {
    try await ask("crash")
    let shown = try await host.waitForText("Failed")
    #expect(shown.contains("Failed 1 (unavailable)"))
    #expect(shown.contains("Faulty"))
    #expect(shown.contains("Ask the faulty service: crash"), "the consumer's screen stays")
    let crashed = try #require(host.process(named: "libFaulty.so")).pid
    try await ask("echo")
    #expect(try await host.waitForText("Answer").contains("Answer 1: echo: ping"))
    #expect(try #require(host.process(named: "libFaulty.so")).pid != crashed)
  }

  @Test func aProviderThatDoesNotAnswerFailsTheCallAtItsDeadlineOnTheHostsClock() async throws {
    try await ask("hang")
    let clock = host.runtime.services.clock
    #expect(await host.waitFor { clock.sleeping == 1 }, "the call reached the host, which set its deadline")
    // 2 s on the virtual clock: nothing fails before time moves.
    await host.runtime.letTimePass(1, settleLimit: 0)
    #expect(logged.isEmpty, "the call is still under way")
    await host.runtime.letTimePass(1.5, settleLimit: 0)
    let shown = try await host.waitForText("Failed")
    #expect(shown.contains("Failed 1 (deadline)"))
    #expect(await host.waitFor { host.runtime.services.recentLog.contains { $0.contains("hang cancelled") } })
  }

  /// `--watch` took a new build of the provider while a call was running
  /// on the old one: that call is answered there, new calls go to the new
  /// build, and the old process ends once its call has.
  @Test func aReloadedProviderFinishesItsCallsAndTheNewBuildTakesTheRest() async throws {
    try await ask("hang")
    let clock = host.runtime.services.clock
    #expect(await host.waitFor { clock.sleeping == 1 })
    let old = try #require(host.process(named: "libFaulty.so"))
    let path = host.plugins.path + "/libFaulty.so"
    let options = PluginProcessOptions(
      executable: BuildProducts.vivarium, responseLimit: TestServices.responseLimit, memoryLimit: 128 << 20)
    let outcome = try #require(
      await PluginDiscovery(commandLine: [path], environment: [:], executable: BuildProducts.vivarium)
        .load(hosting: options).first)
    let reload = await host.runtime.host.reload(outcome)
    #expect(reload.accepted)
    #expect(old.serviceDesk.provisions.count == 1, "the old build still runs the call it took")
    #expect(old.serviceDesk.retiring)
    try await ask("echo")
    #expect(try await host.waitForText("Answer").contains("Answer 1: echo: ping"))
    let new = try #require(host.runtime.catalog.loaded.first { $0.path == path }?.runningProcess)
    #expect(new !== old && new.pid != old.pid)
    await host.runtime.letTimePass(3, settleLimit: 0)
    #expect(await host.waitFor { !old.isRunning }, "the old build ends once its call has")
    try await host.runtime.back()
    #expect(try await host.waitForText("Failed").contains("Failed 1 (deadline)"))
  }

  /// A provider in a plugin process fetches through the host's http
  /// service: a host its plugin declares answers once the person grants
  /// it, and not before; any other is refused.
  @Test func aProviderInItsProcessFetchesThroughTheHostOnlyFromItsDeclaredAndGrantedHosts() async throws {
    let server = try LocalHTTPServer(response: "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nsunny")
    host.runtime.services.httpMode = .live
    try await host.runtime.open("ask:fetch", arguments: [("url", "http://127.0.0.1:\(server.port)/today")])
    try await host.runtime.act(.tap(button: "ask"))
    #expect(try await host.waitForText("Answer").contains("Answer 1: refused (notGranted)"))
    #expect(server.requests == 0)
    host.runtime.services.permissions.allowances = [try PermissionAllowance.parse("Faulty:http:127.0.0.1").get()]
    try await host.runtime.open("ask:fetch", arguments: [("url", "http://127.0.0.1:\(server.port)/today")])
    try await host.runtime.act(.tap(button: "ask"))
    #expect(try await host.waitForText("Answer").contains("Answer 1: 200: sunny"))
    #expect(server.requests == 1)
    try await host.runtime.open("ask:fetch", arguments: [("url", "http://localhost:\(server.port)/today")])
    try await host.runtime.act(.tap(button: "ask"))
    #expect(try await host.waitForText("Answer").contains("Answer 1: refused (undeclaredHost)"))
    #expect(server.requests == 1)
    #expect(host.runtime.services.recentLog.contains { $0.contains("http GET 127.0.0.1 200, 5 bytes") })
  }

  @Test func aCallerThatGoesAwayCancelsTheCallInTheProvider() async throws {
    try await host.runtime.open("ask:echo")
    try await ask("hang")
    let clock = host.runtime.services.clock
    #expect(await host.waitFor { clock.sleeping == 1 })
    try await host.runtime.back()
    #expect(await host.waitFor { host.runtime.services.recentLog.contains { $0.contains("hang cancelled") } })
    #expect(
      await host.waitFor { logged.contains { $0.contains("faulty.hang by FaultyPlugin cancelled") } }, "\(logged)")
  }
}
