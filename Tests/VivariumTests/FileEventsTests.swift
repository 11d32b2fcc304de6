import Foundation
import Testing

@testable import VivariumLoading

/// inotify tells the watchers of a saved file at once: no poll, no waiting
/// for the file to hold still, so a reload follows the build directly.
@Suite("Watching by inotify")
@MainActor
struct FileEventsTests {
  /// Lets the main actor run until `done` holds, or 60 s pass (a missing
  /// event must fail the test, not hang it).
  private func wait(until done: () -> Bool) async throws {
    for _ in 0..<6000 where !done() { try await Task.sleep(for: .milliseconds(10)) }
  }

  @Test func aFileClosedAfterWritingOrMovedInIsToldAlsoInADirectoryMadeLater() async throws {
    let root = try TemporaryDirectory()
    var told = 0
    let events = try #require(FileEvents(directories: [], trees: [root.path]) { _ in told += 1 })
    defer { events.stop() }
    _ = try root.write("a.swift", Data("one".utf8))
    try await wait { told > 0 }
    #expect(told > 0)
    try FileManager.default.createDirectory(atPath: root.path + "/Sub", withIntermediateDirectories: false)
    try await wait { events.directories.contains(root.path + "/Sub") }
    told = 0
    _ = try root.write("Sub/b.swift", Data("two".utf8))
    try await wait { told > 0 }
    #expect(told > 0, "a directory made after the start is watched too")
  }

  @Test func theStartedWatcherReportsARebuiltPluginWithoutAPoll() async throws {
    let bench = try await PluginReloadTests.Bench(outOfProcess: false)
    var changed: [String] = []
    let watcher = PluginWatcher(directories: [bench.plugins.path], interval: .seconds(3600)) { changed.append($0) }
    watcher.start()
    defer { watcher.stop() }
    try bench.rebuild(heading: "Produkte")
    try await wait { !changed.isEmpty }
    #expect(changed == [bench.path], "reported once, at once, though the poll interval is an hour")
  }

  @Test func lookNowTakesAFinishedBuildsProductsWithoutWaitingForThemToHoldStill() async throws {
    let bench = try await PluginReloadTests.Bench(outOfProcess: false)
    var changed: [String] = []
    let watcher = PluginWatcher(directories: [bench.plugins.path]) { changed.append($0) }
    try bench.rebuild(heading: "Produkte")
    watcher.lookNow()
    #expect(changed == [bench.path])
  }
}
