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

  init() throws {
    host = try FaultyHost(plugins: ["Faulty", "FaultyFrame"])
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
    #expect(!host.text.contains("Failed"))
    await host.runtime.letTimePass(1.5, settleLimit: 0)
    let shown = try await host.waitForText("Failed")
    #expect(shown.contains("Failed 1 (deadline)"))
    #expect(await host.waitFor { host.runtime.services.recentLog.contains { $0.contains("hang cancelled") } })
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
