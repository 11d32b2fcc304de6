import Foundation
import Testing
import ViperKit

@testable import VivariumLoading

/// A plugin process reads its storage, the settings and the time from
/// copies the host keeps current, so a read never waits on the host; writes
/// still go to the host, and every process's copy changes with them.
@Suite("Copies of storage, settings and the clock in plugin processes")
@MainActor
struct StoreCopyTests {
  @Test func aModuleReadsWhatItSavedWithoutAskingTheHost() async throws {
    let host = try await FaultyHost(plugins: ["Faulty"])
    try await host.runtime.open("faulty:demo")
    let process = try #require(host.process(named: "libFaulty.so"))
    try await host.runtime.act(.type(field: "note", text: "milk"))
    try await host.runtime.act(.tap(button: "save"))
    // The write went to the host and is on disk.
    #expect(process.callsAnswered == 1)
    let stored = try String(contentsOfFile: host.data.path + "/storage/FaultyPlugin.json", encoding: .utf8)
    #expect(stored.contains("milk"))
    // A new module of the same plugin reads it as it is built, from the copy.
    try await host.runtime.open("faulty:demo")
    #expect(host.text.contains("Saved note: milk"))
    #expect(process.callsAnswered == 1, "the read was answered by the host")
  }

  /// `KeyValueStore.save` suspends only the work that saves: while the host
  /// has not answered the write, the module takes events and answers them.
  /// (With the blocking `set`, the event would go unanswered until the
  /// response limit, and the process would be "not responding".)
  @Test func aModuleTakesEventsWhileTheHostSavesForIt() async throws {
    let host = try await FaultyHost(plugins: ["Faulty"])
    try await host.runtime.open("faulty:demo")
    let process = try #require(host.process(named: "libFaulty.so"))
    try await host.runtime.act(.type(field: "note", text: "milk"))
    process.heldServiceCalls = []
    try host.runtime.send(.tap(button: "save"))
    #expect(await host.waitFor { process.heldServiceCalls?.count == 1 }, "the save never reached the host")
    // The write is unanswered; an event is answered all the same.
    try host.runtime.send(.type(field: "note", text: "milk and eggs"))
    await host.runtime.settleCalls()
    #expect(process.state == .running)
    #expect(process.timesNotResponding == 0)
    #expect(process.callsAnswered == 0)
    #expect(host.text.contains("Saved note: (none)"))
    // Once the host answers, the save ends and the module shows it.
    process.answerHeldServiceCalls()
    #expect(try await host.waitForText("Saved note: milk").contains("Saved note: milk"))
    #expect(process.callsAnswered == 1)
  }

  @Test func anItemChangedThroughTheServiceFromAnotherProcessIsShownByTheList() async throws {
    let host = try await FaultyHost(plugins: ["ItemsList", "ItemsDetail"])
    try await host.runtime.open("items:list")
    await host.runtime.settleAll()
    let before = try #require(Self.enabledCount(host.text), "\(host.text)")
    // The detail, in a process of its own, disables item 1 through the
    // items service, which the list's plugin provides in its process.
    try await host.runtime.open("items:detail:1")
    await host.runtime.settleAll()
    try await host.runtime.actUntilIdle(.tap(button: "toggle"))
    try await host.runtime.back()
    try await host.runtime.open("items:list")
    await host.runtime.settleAll()
    #expect(Self.enabledCount(host.text) == before - 1, "\(host.text)")
  }

  @Test func aSettingTheHostChangesIsReadFromTheProcesssCopy() async throws {
    let host = try await FaultyHost(plugins: ["Login"])
    try await host.runtime.open("login:form")
    let process = try #require(host.process(named: "libLogin.so"))
    // The sign-in form fills in the last user from the settings: set by
    // the host, it reaches the process's copy without being asked for.
    try host.runtime.services.setSetting(.string("grace"), forKey: "login.lastUser")
    try await host.runtime.open("login:form")
    #expect(host.text.contains("[grace]"), "\(host.text)")
    #expect(process.callsAnswered == 0)
  }

  @Test func aModuleReadsTheTimeFromItsProcesssCopyOfTheClock() async throws {
    let host = try await FaultyHost(plugins: ["Profile"])
    try await host.runtime.open("profile:grace")
    let process = try #require(host.process(named: "libProfile.so"))
    #expect(host.text.contains("Member for 1 year"), "\(host.text)")
    // Virtual time moves in the host; the process's copy moves with it.
    await host.runtime.letTimePass(365 * 86_400)
    try await host.runtime.open("profile:grace")
    #expect(host.text.contains("Member for 2 years"), "\(host.text)")
    #expect(process.callsAnswered == 0, "the time was asked of the host")
  }

  /// `3 items, 2 enabled` → 2.
  static func enabledCount(_ text: String) -> Int? {
    guard let match = text.firstMatch(of: /(\d+) enabled/) else { return nil }
    return Int(match.1)
  }
}
