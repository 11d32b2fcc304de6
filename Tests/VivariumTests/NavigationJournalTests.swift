import Foundation
import Testing

@testable import VivariumRuntime
@testable import VivariumSupport

/// Saving where the person is costs what a step changed, not the whole
/// stack: each step appends a record to a journal beside the snapshot, and
/// the snapshot is written again only now and then. Restoring reads the
/// snapshot and replays the journal, leaving out a record a crash cut short.
@Suite("Saving where you are, step by step")
@MainActor
struct NavigationJournalTests {
  /// A runtime on the demo plugins saving through a tracker into `store`,
  /// as `vivarium run` does.
  private func tracked(_ data: TemporaryDirectory) -> (HostRuntime, NavigationStore) {
    let runtime = HostRuntime(catalog: BuildProducts.demoCatalog, services: TestServices.make(in: data))
    let store = NavigationStore(dataDirectory: data.path, directories: ["/plugins"])
    let tracker = NavigationChangeTracker(runtime)
    runtime.onNavigationChanged = { [weak runtime] in
      guard let runtime else { return }
      try? store.record(tracker.takeChanges()) { runtime.navigationState }
    }
    return (runtime, store)
  }

  private func reloaded(_ data: TemporaryDirectory) throws -> NavigationState? {
    try NavigationStore(dataDirectory: data.path, directories: ["/plugins"]).load().get()
  }

  @Test func aPushWritesWhatItPushedNotTheStackUnderIt() async throws {
    let data = try TemporaryDirectory()
    let (runtime, store) = tracked(data)
    try await runtime.open("items:list")
    var before = store.writes
    try await runtime.open("items:detail:1")
    let onePush = store.writes.bytes - before.bytes
    #expect(store.writes.records == before.records + 1)
    before = store.writes
    let pushes = 300
    for index in 0..<pushes { try await runtime.open(index % 2 == 0 ? "items:list" : "items:detail:1") }
    // Rewriting the whole state on each push writes about pushes² / 2 screens.
    #expect(store.writes.bytes - before.bytes <= 4 * pushes * onePush, "\(store.writes)")
    #expect(store.writes.snapshots - before.snapshots <= 3, "the snapshot is rewritten now and then, not per push")
    #expect(try reloaded(data) == runtime.navigationState)
    while runtime.layers[0].count > 1 { try await runtime.back() }
    #expect(try reloaded(data) == runtime.navigationState)
    runtime.shutdown()
  }

  @Test func aDeepStackIsSavedAndRestoredWhole() async throws {
    let data = try TemporaryDirectory()
    let (runtime, _) = tracked(data)
    try await runtime.open("dashboard:home?user=ada")
    try runtime.send(.tap(button: "tab.feed"))
    for _ in 0..<50 { try await runtime.open("items:list") }
    try await runtime.open("items:detail:2")
    try await runtime.back()
    let shown = runtime.navigationState
    #expect(shown.layers[0].count == 51 && shown.layers[0][0].slots[0].selected == 2)
    #expect(try reloaded(data) == shown)
    runtime.shutdown()

    let restored = HostRuntime(catalog: BuildProducts.demoCatalog, services: TestServices.make(in: data))
    await #expect(restored.restore(try #require(try reloaded(data))) == [])
    #expect(restored.navigationState == shown)
    restored.shutdown()
  }

  @Test func aRecordCutShortIsLeftOutAndADamagedOneStopsTheReplay() throws {
    let data = try TemporaryDirectory()
    let store = NavigationStore(dataDirectory: data.path, directories: ["/plugins"])
    let screen = { (urn: String) in NavigationState.Screen(urn: urn) }
    let whole = { NavigationState(layers: []) }
    try store.record([.cut(layer: 0, keep: 0), .put(layer: 0, index: 0, screen: screen("items:list"))], orWhole: whole)
    try store.record([.put(layer: 0, index: 1, screen: screen("items:detail:1"))], orWhole: whole)
    try store.record([.put(layer: 1, index: 0, screen: screen("wallet:topup"))], orWhole: whole)
    #expect(store.writes.snapshots == 1 && store.writes.records == 2)
    let expected = NavigationState(layers: [
      [screen("items:list"), screen("items:detail:1")], [screen("wallet:topup")],
    ])
    #expect(try reloaded(data) == expected)

    // Killed in the middle of a record: the line has no end.
    let journal = try #require(FileHandle(forUpdatingAtPath: store.journalPath))
    try journal.seekToEnd()
    try journal.write(contentsOf: Data("0123456789abcdef [{\"cut\":{\"la".utf8))
    try journal.close()
    let loaded = NavigationStore(dataDirectory: data.path, directories: ["/plugins"])
    #expect(try loaded.load().get() == expected)
    #expect(loaded.damage == nil, "a torn last record is what a crash leaves")
    // The next step goes on from there.
    try loaded.record([.cut(layer: 1, keep: 0)], orWhole: whole)
    #expect(try reloaded(data) == NavigationState(layers: [expected.layers[0]]))

    // A record damaged before the end: the replay stops before it, and says so.
    let other = try TemporaryDirectory()
    let first = NavigationStore(dataDirectory: other.path, directories: ["/plugins"])
    try first.record([.cut(layer: 0, keep: 0), .put(layer: 0, index: 0, screen: screen("items:list"))], orWhole: whole)
    try first.record([.put(layer: 0, index: 1, screen: screen("items:detail:1"))], orWhole: whole)
    try first.record([.put(layer: 0, index: 2, screen: screen("items:detail:2"))], orWhole: whole)
    var lines = try Data(contentsOf: URL(fileURLWithPath: first.journalPath)).split(separator: UInt8(ascii: "\n"))
      .map { Data($0) }
    lines[1][lines[1].startIndex + 20] ^= 1
    try lines.map { $0 + Data("\n".utf8) }.reduce(Data(), +).write(to: URL(fileURLWithPath: first.journalPath))
    let damaged = NavigationStore(dataDirectory: other.path, directories: ["/plugins"])
    #expect(try damaged.load().get()?.layers.map { $0.map(\.urn) } == [["items:list"]])
    #expect(damaged.damage?.contains("record 1 of 2") == true, "which record: \(damaged.damage ?? "")")
  }

  @Test func aStateSavedBeforeTheJournalIsReadAndAJournalOfAnotherSnapshotIsNot() throws {
    let data = try TemporaryDirectory()
    let store = NavigationStore(dataDirectory: data.path, directories: ["/plugins"])
    let old = NavigationState(layers: [[.init(urn: "items:list"), .init(urn: "items:detail:3")]])
    try FileManager.default.createDirectory(
      atPath: PathName.parent(store.path), withIntermediateDirectories: true)
    try JSONEncoder().encode(old).write(to: URL(fileURLWithPath: store.path))
    #expect(try store.load().get() == old)
    // A journal left by another snapshot (killed between the two writes) is not replayed.
    let header = NavigationJournal.line(Data("{\"base\":7}".utf8))
    let step = NavigationJournal.line(Data("[{\"cut\":{\"keep\":1,\"layer\":0}}]".utf8))
    try (header + step).write(to: URL(fileURLWithPath: store.journalPath))
    #expect(try reloaded(data) == old)
  }
}
