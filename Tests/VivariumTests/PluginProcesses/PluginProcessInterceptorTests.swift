import Testing
import ViperKit

@testable import VivariumLoading
@testable import VivariumRuntime

/// Interceptors in code across the boundary: the Faulty plugin's note asks
/// before it is left with changes not saved (a ``LeaveGuard``), and its
/// factory refuses a misbehaviour it does not know (an ``OpenGuard``), each
/// answered in the plugin's process while the host goes on.
@Suite("Interceptors in plugin processes")
@MainActor
struct PluginProcessInterceptorTests {
  private func urns(_ host: FaultyHost) -> [[String]] { host.runtime.layers.map { $0.map(\.urn) } }

  @Test func aNoteNotSavedIsLeftOnlyWhenThePersonConfirms() async throws {
    let host = try await FaultyHost()
    try await host.runtime.open("items:list")
    try await host.runtime.open("faulty:demo")
    // Saved or untouched, it is left without a question.
    try await host.runtime.back()
    #expect(urns(host) == [["items:list"]])
    #expect(host.runtime.notifications.alerts.isEmpty)
    try await host.runtime.open("faulty:demo")
    try host.runtime.send(.type(field: "note", text: "not saved"))
    await host.runtime.settleCalls()
    try await host.runtime.back()
    let question = try #require(host.runtime.notifications.alerts.first)
    #expect(question.choice == HostNotifications.Choice(confirm: "Discard", cancel: "Keep editing"))
    #expect(urns(host) == [["items:list", "faulty:demo"]])
    host.runtime.notifications.acknowledgeAlert(confirmed: true)
    await host.runtime.settleCalls()
    #expect(urns(host) == [["items:list"]])
  }

  @Test func aMisbehaviourTheFactoryDoesNotKnowDoesNotOpen() async throws {
    let host = try await FaultyHost()
    try await host.runtime.open("items:list")
    await #expect {
      try await host.runtime.open("faulty:sulk")
    } throws: { error in
      let error = error as? ResolveError
      return error?.kind == .refused && error?.message.contains("'sulk'") == true
    }
    #expect(urns(host) == [["items:list"]])
    let faulty = try #require(host.process(named: "libFaulty.so"))
    #expect(faulty.state == .running, "refusing is no failure of the plugin")
  }

  /// A module that does not answer whether it may be left, within the
  /// response limit, is left, and the question is cancelled in its
  /// process: the module's answer, which only a cancel brings, comes back,
  /// and the process answers again.
  @Test func aQuestionNotAnsweredInTimeIsCancelledThere() async throws {
    let host = try await FaultyHost(responseLimit: .milliseconds(300))
    try await host.runtime.open("items:list")
    try await host.runtime.open("faulty:hang?at=leave")
    let faulty = try #require(host.process(named: "libFaulty.so"))
    try await host.runtime.back()
    #expect(urns(host) == [["items:list"]], "a module that does not answer may be left")
    #expect(faulty.timesNotResponding == 1)
    for _ in 0..<1000 where faulty.state != .running { try await Task.sleep(nanoseconds: 10_000_000) }
    #expect(faulty.state == .running, "the cancel reached the plugin's process, which answered")
  }
}
