import Foundation
import Glibc
import VivariumSupport

/// The saved ``NavigationState`` of one plugin directory (or set of them):
/// a snapshot, `state/navigation-KEY.json` in the data directory, written
/// atomically, and a journal beside it, `navigation-KEY.journal`
/// (``NavigationJournal``), to which each step appends what it changed and
/// flushes it to disk. A host killed at any moment leaves the last state
/// that was shown: the snapshot plus the journal's whole records.
///
/// A step costs what it changed, however deep the stack: the snapshot is
/// written again only when the journal has grown past twice its size (and
/// 64 KiB), when a step replaces everything (a deep link; the first step
/// after the start), and by ``save(_:)``; each such rewrite is paid for by
/// the records before it.
package final class NavigationStore {
  /// The folder of the data directory the states are saved in.
  static let folder = "state"
  /// The snapshot's file.
  package let path: String
  /// The journal's file.
  package let journalPath: String
  /// The state as saved, snapshot and journal together.
  private var saved = NavigationState(layers: [])
  /// Whether the files may hold something other than ``saved`` (before the
  /// first write, after a failed one, after a change to nothing shown):
  /// the next change writes a snapshot.
  private var stale = true
  /// The snapshot generation the journal continues.
  private var generation = 0
  private var snapshotBytes = 0
  private var journalBytes = 0
  private var journal: Int32 = -1

  /// What was written so far: a seam for tests and benchmarks.
  package struct Writes: Equatable, Sendable {
    /// Snapshots written (each a whole state).
    package var snapshots = 0
    /// Records appended to the journal.
    package var records = 0
    /// Bytes written to either file.
    package var bytes = 0
  }
  /// What was written so far.
  package private(set) var writes = Writes()

  /// Why the journal could not be replayed whole, after ``load()``.
  package private(set) var damage: String?

  /// The least the journal grows to before it is folded into a snapshot.
  static let smallestJournal = 64 * 1024

  /// The store for the plugins loaded from `directories`, in `dataDirectory`;
  /// with `tab`, the store of that browser tab's session (`vivarium serve`).
  package init(dataDirectory: String, directories: [String], tab: String? = nil) {
    let name = Self.prefix(dataDirectory: dataDirectory, directories: directories) + (tab.map { "-tab-" + $0 } ?? "")
    path = name + ".json"
    journalPath = name + ".journal"
  }

  /// Where the files of the plugins loaded from `directories` begin.
  private static func prefix(dataDirectory: String, directories: [String]) -> String {
    // The same directories however they were given: relative, through links.
    let key = directories.map { URL(fileURLWithPath: $0).standardizedFileURL.resolvingSymlinksInPath().path }
      .joined(separator: "\n")
    return "\(dataDirectory)/\(Self.folder)/navigation-\(String(NavigationJournal.checksum(key.utf8), radix: 16))"
  }

  /// Removes the stores of browser tabs on these plugins not written for
  /// `age` seconds: the sessions of tabs closed while the host was not
  /// running, whose screens nobody comes back for. Returns how many went.
  @discardableResult
  package static func removeTabs(dataDirectory: String, directories: [String], olderThan age: Double) -> Int {
    let prefix = Self.prefix(dataDirectory: dataDirectory, directories: directories) + "-tab-"
    let folder = (prefix as NSString).deletingLastPathComponent
    let start = (prefix as NSString).lastPathComponent
    let files = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
    var removed = 0
    for file in files where file.hasPrefix(start) {
      let path = folder + "/" + file
      guard let modified = (try? FileManager.default.attributesOfItem(atPath: path))?[.modificationDate] as? Date,
        -modified.timeIntervalSinceNow > age
      else { continue }
      if (try? FileManager.default.removeItem(atPath: path)) != nil, file.hasSuffix(".json") { removed += 1 }
    }
    return removed
  }

  deinit { if journal >= 0 { close(journal) } }

  /// The snapshot as written: a ``NavigationState`` (version 1, as before
  /// the journal) and the generation of the journal that continues it.
  private struct Snapshot: Codable {
    var version: Int
    var layers: [[NavigationState.Screen]]
    var journal: Int?
  }

  /// The saved state: nil when there is none; a failure saying why one that
  /// is there cannot be used. A file the host does not trust
  /// (``FileContents/refused(_:)``) is moved aside; one that is damaged is
  /// left alone, and replaced at the next save. A journal record cut short
  /// by a crash is left out; one damaged before the end stops the replay
  /// there, and ``damage`` says so.
  package func load() -> Result<NavigationState?, NavigationStoreError> {
    damage = nil
    var state = NavigationState(layers: [])
    generation = 0
    let snapshotData: Data?
    let journalData: Data?
    switch (
      Self.read(path, limit: FileContents.Limit.navigation),
      Self.read(journalPath, limit: FileContents.Limit.navigationJournal)
    ) {
    case (.failure(let error), _), (_, .failure(let error)): return .failure(error)
    case (.success(let snapshot), .success(let journal)): (snapshotData, journalData) = (snapshot, journal)
    }
    if let data = snapshotData {
      guard let snapshot = try? JSONDecoder().decode(Snapshot.self, from: data),
        snapshot.version == NavigationState.version
      else {
        return .failure(
          NavigationStoreError(
            "the saved screens in \(path) are damaged or from another version; starting from the first screen"))
      }
      state.layers = snapshot.layers
      generation = snapshot.journal ?? 0
      snapshotBytes = data.count
    }
    if let data = journalData {
      let replay = NavigationJournal.replay(data, base: generation)
      replaying: for step in replay.steps {
        for change in step where !state.apply(change) {
          damage = "a step saved in \(journalPath) does not fit the screens before it"
          break replaying
        }
      }
      if let found = replay.damage { damage = damage ?? "\(journalPath): \(found)" }
      damage = damage.map { "\($0); resumed where the saved screens were before it" }
    } else if snapshotData == nil {
      return .success(nil)
    }
    saved = state
    stale = true
    return .success(state.isEmpty ? nil : state)
  }

  /// The file at `path` (the snapshot or the journal), nil when there is
  /// none, read as every file of the data directory is: one the host does
  /// not trust is moved aside, and the saved screens are not used.
  private static func read(_ path: String, limit: Int) -> Result<Data?, NavigationStoreError> {
    switch FileContents.read(path, limit: limit) {
    case .missing: return .success(nil)
    case .data(let bytes): return .success(bytes)
    case .failed(let code):
      return .failure(
        NavigationStoreError(
          "cannot read the saved screens in \(path) (\(AtomicFile.errorText(code))); starting from the first screen"))
    case .refused(let reason):
      let fate =
        switch FileContents.setAside(path, as: "refused") {
        case .success(let aside): "they were moved to \(aside)"
        case .failure(let error): "they could not be moved aside (\(error.description))"
        }
      return .failure(
        NavigationStoreError(
          "the saved screens in \(path) are not used: \(reason); \(fate); starting from the first screen"))
    }
  }

  /// Saves `state` whole, as a snapshot, if it differs from what was saved;
  /// an empty state is not saved (quitting detaches every screen). Throws
  /// when it cannot be written.
  package func save(_ state: NavigationState) throws {
    guard !state.isEmpty, state != saved || stale else { return }
    saved = state
    try writeSnapshot()
  }

  /// Saves the `changes` of one step (``NavigationChangeTracker``): appended
  /// to the journal as one record, or a snapshot when that is cheaper or
  /// due. A step that leaves nothing shown is not saved (the screens saved
  /// before stay), nor one that changes nothing. Should the changes not fit
  /// what was saved, `whole` is saved instead. Throws when it cannot be written.
  package func record(_ changes: [NavigationState.Change], orWhole whole: () -> NavigationState) throws {
    // Applied one by one; a screen put back as it was saved (its module
    // ran, and keeps the same) is no change.
    var made: [NavigationState.Change] = []
    var misfit = false
    for change in changes {
      if case .put(let layer, let index, let screen) = change, saved.layers.indices.contains(layer),
        saved.layers[layer].indices.contains(index), saved.layers[layer][index] == screen
      {
        continue
      }
      guard saved.apply(change) else {
        saved = whole()
        (stale, misfit) = (true, true)
        break
      }
      made.append(change)
    }
    guard !made.isEmpty || misfit else { return }
    if saved.isEmpty {
      stale = true
      return
    }
    if stale || made.first == .cut(layer: 0, keep: 0) { return try writeSnapshot() }
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    try append(NavigationJournal.line(try encoder.encode(made)))
    writes.records += 1
    if journalBytes > max(Self.smallestJournal, 2 * snapshotBytes) { try writeSnapshot() }
  }

  /// Writes ``saved`` as the snapshot of a new generation, then starts its
  /// journal. Killed in between, the old journal names the old generation
  /// and is not replayed.
  private func writeSnapshot() throws {
    stale = true
    generation = Int.random(in: 1...Int.max)
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    let data = try encoder.encode(Snapshot(version: saved.version, layers: saved.layers, journal: generation))
    // What could not be read back at the next start is not written.
    guard data.count <= FileContents.Limit.navigation else {
      throw NavigationStoreError(
        "the screens shown were not saved to \(path): they take \(data.count) bytes, over the \(FileContents.Limit.navigation >> 20) MiB the host reads back"
      )
    }
    do {
      try AtomicFile.write(data, to: path)
    } catch {
      throw NavigationStoreError("cannot save the screens shown to \(path): \(error)")
    }
    snapshotBytes = data.count
    writes.snapshots += 1
    writes.bytes += data.count
    try startJournal()
    stale = false
  }

  /// Empties the journal and writes its header, for the snapshot just written.
  private func startJournal() throws {
    if journal < 0 {
      journal = open(journalPath, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600)
      guard journal >= 0 else {
        throw NavigationStoreError("cannot open \(journalPath): \(AtomicFile.errorText(errno))")
      }
      AtomicFile.flushDirectory(of: journalPath)
    }
    guard ftruncate(journal, 0) == 0 else {
      throw NavigationStoreError("cannot empty \(journalPath): \(AtomicFile.errorText(errno))")
    }
    journalBytes = 0
    try append(NavigationJournal.line(try JSONEncoder().encode(NavigationJournal.Header(base: generation))))
  }

  /// Appends `line` to the journal and flushes it to disk.
  private func append(_ line: Data) throws {
    let failed = line.withUnsafeBytes { DescriptorOutput.write($0, to: journal) }
    if let failed {
      stale = true
      throw NavigationStoreError("cannot save the screens shown to \(journalPath): \(AtomicFile.errorText(failed))")
    }
    guard fdatasync(journal) == 0 else {
      stale = true
      throw NavigationStoreError("cannot flush \(journalPath) to disk: \(AtomicFile.errorText(errno))")
    }
    journalBytes += line.count
    writes.bytes += line.count
  }

  /// Forgets the saved state (`--fresh`).
  package func remove() {
    if journal >= 0 {
      close(journal)
      journal = -1
    }
    try? FileManager.default.removeItem(atPath: path)
    try? FileManager.default.removeItem(atPath: journalPath)
    saved = NavigationState(layers: [])
    stale = true
  }
}

/// Why the saved screens cannot be used or saved.
package struct NavigationStoreError: Error, CustomStringConvertible {
  /// What is wrong and what happens instead.
  package let description: String
  init(_ description: String) { self.description = description }
}
