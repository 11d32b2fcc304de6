import Foundation
import Glibc
import Testing
import ViperKit

@testable import VivariumRuntime
@testable import VivariumSupport

/// What a save costs and whom it can hurt: a one-byte save writes about
/// what changed, whatever the store's size, and of two stores over one file
/// (two sessions), neither overwrites what the other saved.
@Suite("Store bounds")
@MainActor
struct StoreBoundsTests {
  let data: TemporaryDirectory

  init() throws {
    data = try TemporaryDirectory()
  }

  /// Each regular file in `directory`: its inode and size.
  private func files(in directory: String) -> [String: (inode: UInt, size: Int)] {
    var found: [String: (inode: UInt, size: Int)] = [:]
    for name in (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [] {
      var info = stat()
      if lstat(directory + "/" + name, &info) == 0, info.st_mode & S_IFMT == S_IFREG {
        found[name] = (UInt(info.st_ino), Int(info.st_size))
      }
    }
    return found
  }

  /// What was written to `directory` between `before` and `after`: a file
  /// replaced (a new inode) whole, one that grew by its growth.
  private func written(
    _ before: [String: (inode: UInt, size: Int)], _ after: [String: (inode: UInt, size: Int)]
  ) -> Int {
    after.reduce(0) { total, entry in
      guard let old = before[entry.key], old.inode == entry.value.inode else { return total + entry.value.size }
      return total + max(0, entry.value.size - old.size)
    }
  }

  @Test(arguments: [64 << 10, 4 << 20])
  func aOneByteSaveWritesAboutWhatChangedWhateverTheStoresSize(storeSize: Int) throws {
    let directory = data.path + "/storage"
    let store = PersistentDictionary<String>(path: directory + "/ShopPlugin.json") { Issue.record("\($0)") }
    try store.set(String(repeating: "x", count: storeSize), forKey: "bulk")
    var total = 0
    let saves = 2_000
    for index in 0..<saves {
      let before = files(in: directory)
      try store.set(String(index % 10), forKey: "count")
      total += written(before, files(in: directory))
      // Rewriting the store on each save is plain after a few.
      if index == 20 && total > 20 * storeSize / 2 { break }
    }
    #expect(total / saves < 256, "\(total / saves) bytes a one-byte save, in a store of \(storeSize) bytes")
    let reread = PersistentDictionary<String>(path: directory + "/ShopPlugin.json") { Issue.record("\($0)") }
    #expect(reread.values["count"] == String((saves - 1) % 10) && reread.values["bulk"]?.count == storeSize)
  }

  @Test func twoStoresOverOneFileKeepWhatEachSaved() throws {
    let path = data.path + "/storage/ShopPlugin.json"
    let first = PersistentDictionary<String>(path: path) { Issue.record("\($0)") }
    let second = PersistentDictionary<String>(path: path) { Issue.record("\($0)") }
    try first.set("3,7", forKey: "favourites")
    try second.set("dark", forKey: "theme")
    #expect(second.values["favourites"] == "3,7", "the second caught up before it saved")
    let reread = PersistentDictionary<String>(path: path) { Issue.record("\($0)") }
    #expect(reread.values == ["favourites": "3,7", "theme": "dark"])
  }

  @Test func twoStoresSavingInTurnThroughManyFoldsLoseNothing() throws {
    let path = data.path + "/storage/ShopPlugin.json"
    let stores = (0..<2).map { _ in PersistentDictionary<String>(path: path) { Issue.record("\($0)") } }
    // 8 KiB values: the journal outgrows the store, and is folded, often.
    let padding = String(repeating: "p", count: 8 << 10)
    for round in 0..<60 {
      for (index, store) in stores.enumerated() {
        try store.set("\(round) \(padding)", forKey: "key-\(index)-\(round % 4)")
        if round % 7 == 0 {
          try store.set(nil, forKey: "gone-\(index)")
        } else {
          try store.set("\(round)", forKey: "gone-\(index)")
        }
      }
    }
    let reread = PersistentDictionary<String>(path: path) { Issue.record("\($0)") }
    for index in 0..<2 {
      for slot in 0..<4 {
        let last = (0..<60).last { $0 % 4 == slot } ?? 0
        #expect(reread.values["key-\(index)-\(slot)"] == "\(last) \(padding)", "key-\(index)-\(slot)")
      }
      #expect(reread.values["gone-\(index)"] == "59")
    }
    // The last to save had caught up with the other first.
    #expect(stores[1].values == reread.values)
  }

  @Test func aRecordACrashCutShortIsLeftOutAndTheNextSaveIsKept() throws {
    let path = data.path + "/storage/ShopPlugin.json"
    let store = PersistentDictionary<String>(path: path) { Issue.record("\($0)") }
    try store.set("1", forKey: "a")
    // Half a record, as a kill in the middle of a write leaves it.
    let journal = try #require(FileHandle(forWritingAtPath: store.journalPath))
    journal.seekToEndOfFile()
    journal.write(Data("0123456789abcdef {\"k\":\"b\",".utf8))
    try journal.close()
    let next = PersistentDictionary<String>(path: path) { Issue.record("\($0)") }
    #expect(next.values == ["a": "1"])
    try next.set("2", forKey: "c")
    let reread = PersistentDictionary<String>(path: path) { Issue.record("\($0)") }
    #expect(reread.values == ["a": "1", "c": "2"])
  }

  @Test func whoWroteWhatIsCountedAcrossSessionsAndFolds() throws {
    let path = data.path + "/settings.json"
    let chunk = ArgumentValue.string(String(repeating: "x", count: 120 << 10))
    let first = PersistentDictionary<ArgumentValue>(path: path) { Issue.record("\($0)") }
    // Past the smallest journal: folded, with who wrote what in its header.
    for index in 0..<3 { try first.set(chunk, forKey: "hog.\(index)", by: "HogPlugin", within: 512 << 10) }
    try first.set(.int(1), forKey: "other", by: "OtherPlugin", within: 512 << 10)
    let second = PersistentDictionary<ArgumentValue>(path: path) { Issue.record("\($0)") }
    #expect(second.writers["hog.0"] == "HogPlugin" && second.writers["other"] == "OtherPlugin")
    try second.set(chunk, forKey: "hog.3", by: "HogPlugin", within: 512 << 10)
    #expect(throws: SaveRefused.self) {
      try second.set(chunk, forKey: "hog.4", by: "HogPlugin", within: 512 << 10)
    }
    try second.set(chunk, forKey: "other.1", by: "OtherPlugin", within: 512 << 10)
  }

  @Test func theHostsSettingsAreKeptAcrossSessionsAsBefore() throws {
    let services = TestServices.make(in: data, signedIn: true)
    try services.setSetting(.bool(true), forKey: "feed.compact")
    try services.setSetting(nil, forKey: "feed.compact")
    try services.setSetting(.int(3), forKey: "feed.columns")
    withExtendedLifetime(services) {}
    let reread = PersistentDictionary<ArgumentValue>(path: data.path + "/settings.json") { Issue.record("\($0)") }
    #expect(reread.values == ["session.user": .string("ada"), "feed.columns": .int(3)])
  }
}
