import Foundation
import Testing
import ViperKit

@testable import VivariumLoading

/// A plugin process reads its storage and the settings from copies the
/// host keeps current, so a read never waits on the host; writes still go
/// to the host, and every process's copy changes with them.
@Suite("Copies of storage and settings in plugin processes")
@MainActor
struct StoreCopyTests {
  @Test func aModuleReadsWhatItSavedWithoutAskingTheHost() async throws {
    let host = try FaultyHost(plugins: ["Faulty"])
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

  @Test func aSettingChangedInOnePluginProcessIsReadInAnother() async throws {
    let host = try FaultyHost(plugins: ["ItemsList", "ItemsDetail"])
    try await host.runtime.open("items:list")
    let list = try #require(host.process(named: "libItemsList.so"))
    let before = try #require(Self.enabledCount(host.text))
    // The detail, in a process of its own, disables item 1 through the host.
    try await host.runtime.open("items:detail:1")
    try await host.runtime.act(.tap(button: "toggle"))
    try await host.runtime.back()
    // The list's process sees the change in its copy, and asked nothing.
    try await host.runtime.open("items:list")
    #expect(Self.enabledCount(host.text) == before - 1, "\(host.text)")
    #expect(list.callsAnswered == 0)
    // So does a change the host makes.
    try host.runtime.services.setSetting(.bool(false), forKey: "items.2.enabled")
    try await host.runtime.open("items:list")
    #expect(Self.enabledCount(host.text) == before - 2, "\(host.text)")
  }

  /// `3 items, 2 enabled` → 2.
  static func enabledCount(_ text: String) -> Int? {
    guard let match = text.firstMatch(of: /(\d+) enabled/) else { return nil }
    return Int(match.1)
  }
}
