import Foundation
import Glibc
import Testing
import ViperKit

@testable import VivariumRuntime
@testable import VivariumSupport

/// What the host does when a store cannot be read or a save fails: nothing
/// saved is overwritten, nothing half-written is left behind, and the person
/// is told.
@Suite("Storage safety")
@MainActor
struct StorageSafetyTests {
  let data: TemporaryDirectory

  init() throws {
    data = try TemporaryDirectory()
  }

  private var storeDirectory: String { data.path + "/storage" }

  private func writeStore(_ name: String, _ text: String) throws -> String {
    try FileManager.default.createDirectory(atPath: storeDirectory, withIntermediateDirectories: true)
    let path = "\(storeDirectory)/\(name)"
    try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    return path
  }

  private func temporaries(in directory: String) -> [String] {
    ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).filter(AtomicFile.isTemporary)
  }

  @Test func aStoreThatFailsToReadIsMovedAsideNotTakenForEmpty() throws {
    let path = try writeStore("ShopPlugin.json", #"{"favourites":"3,7"}"#)
    var problems: [String] = []
    let store = PersistentDictionary<String>(path: path, read: { _ in .failed(EACCES) }) { problems.append($0) }
    try store.set("9", forKey: "favourites")
    #expect(problems.count == 1)
    #expect(problems.first?.contains(AtomicFile.errorText(EACCES)) == true, "the error: \(problems)")
    #expect(problems.first?.contains("\(path).unreadable-1") == true, "where it was kept: \(problems)")
    let kept = FileManager.default.contents(atPath: path + ".unreadable-1")
    #expect(kept == Data(#"{"favourites":"3,7"}"#.utf8))
  }

  @Test func aDirectoryWhereTheStoreShouldBeIsKeptAsideAndToldToThePerson() throws {
    try FileManager.default.createDirectory(
      atPath: storeDirectory + "/ShopPlugin.json", withIntermediateDirectories: true)
    let saved = try writeStore("ShopPlugin.json/keep", "mine")
    let services = TestServices.make(in: data)
    let person = HostNotifications()
    services.announcements.listen(person)
    let store = try #require(
      services.services(for: ServicesTests.storage, plugin: ServicesTests.shop, urn: "shop:cart").storage)
    try store.set("x", forKey: "k")
    #expect(
      FileManager.default.contents(atPath: storeDirectory + "/ShopPlugin.json.refused-1/keep") == Data("mine".utf8))
    #expect(FileManager.default.contents(atPath: saved) == nil)
    let notices = person.takeNotices()
    #expect(notices.count == 1)
    #expect(notices.first?.tone == .warning)
    #expect(notices.first?.text.contains("ShopPlugin.json.refused-1") == true, "where it was kept: \(notices)")
    #expect(notices.first?.text.contains("directory") == true, "what it is: \(notices)")
    #expect(services.recentLog.contains { $0.contains("error host:") && $0.contains("ShopPlugin.json.refused-1") })
  }

  @Test func aCorruptStoreIsToldToThePersonNotOnlyLogged() throws {
    let path = try writeStore("ShopPlugin.json", "not json")
    let services = TestServices.make(in: data)
    let person = HostNotifications()
    services.announcements.listen(person)
    let store = try #require(
      services.services(for: ServicesTests.storage, plugin: ServicesTests.shop, urn: "shop:cart").storage)
    #expect(store.keys().isEmpty)
    let notices = person.takeNotices()
    #expect(notices.map(\.tone) == [.warning])
    #expect(notices.first?.text.contains("\(path).unreadable-1") == true, "where it was kept: \(notices)")
    #expect(services.recentLog.count == 1)
  }

  @Test func anUnreadableStoreThatCannotBeMovedAsideRefusesSaves() throws {
    // The read fails with EIO, and there is no file to move: the move fails.
    let path = storeDirectory + "/ShopPlugin.json"
    var problems: [String] = []
    let store = PersistentDictionary<String>(path: path, read: { _ in .failed(EIO) }) { problems.append($0) }
    #expect(problems.count == 1 && problems[0].contains(path) && store.refusal == problems[0], "\(problems)")
    #expect {
      try store.set("x", forKey: "k")
    } throws: { error in
      error is SaveRefused && "\(error)".contains(path) && "\(error)".contains(AtomicFile.errorText(EIO))
    }
    #expect(!FileContents.exists(path))
  }

  @Test func aFailedWriteRemovesItsTemporaryFileAndNamesTheError() throws {
    let path = data.path + "/store.json"
    try AtomicFile.write(Data(#"{"a":"saved"}"#.utf8), to: path)
    #expect {
      try AtomicFile.write(
        Data(#"{"a":"never saved"}"#.utf8), to: path, fault: .writeError(afterBytes: 5, errno: ENOSPC))
    } throws: { error in
      (error as? AtomicFile.WriteError)?.path == path && "\(error)".contains(AtomicFile.errorText(ENOSPC))
    }
    #expect(temporaries(in: data.path).isEmpty)
    #expect(FileManager.default.contents(atPath: path) == Data(#"{"a":"saved"}"#.utf8))
  }

  @Test func aFailedRenameRemovesItsTemporaryFile() throws {
    // A directory where the file should be: the rename over it fails.
    let path = data.path + "/store.json"
    try FileManager.default.createDirectory(atPath: path + "/inside", withIntermediateDirectories: true)
    #expect {
      try AtomicFile.write(Data("{}".utf8), to: path)
    } throws: { error in
      // The rename's error: a directory is where the file should be.
      (error as? AtomicFile.WriteError)?.path == path && "\(error)".contains(AtomicFile.errorText(EISDIR))
    }
    #expect(temporaries(in: data.path).isEmpty)
  }

  @Test func whatACrashLeftBehindIsRemovedWhenTheNextSessionStarts() throws {
    let store = storeDirectory + "/ShopPlugin.json"
    try AtomicFile.write(Data("{}".utf8), to: store)
    #expect(throws: AtomicFile.WriteError.self) {
      try AtomicFile.write(Data(#"{"a":"b"}"#.utf8), to: store, fault: .crash(afterBytes: 3))
    }
    let crashed = try #require(temporaries(in: storeDirectory).first)
    let other = try data.write(".settings.json.4242.tmp", Data("{".utf8))
    let notOurs = try data.write("notes.tmp", Data("keep".utf8))
    let services = TestServices.make(in: data)
    #expect(temporaries(in: storeDirectory).isEmpty)
    #expect(!FileContents.exists(other))
    #expect(FileContents.exists(notOurs))
    #expect(services.recentLog.contains { $0.contains(crashed) })
    #expect(FileManager.default.contents(atPath: store) == Data("{}".utf8))
  }

  @Test func aReadOnlySessionLeavesTemporaryFilesAlone() throws {
    let owner = TestServices.make(in: data)
    let other = try data.write(".settings.json.4242.tmp", Data("{".utf8))
    let second = TestServices.make(in: data)
    #expect(FileContents.exists(other))
    #expect(second.dataAccess != .exclusive)
    withExtendedLifetime(owner) {}
  }

  @Test(arguments: [
    (".ShopPlugin.json.123.tmp", true), (".settings.json.9.tmp", true), ("ShopPlugin.json.123.tmp", false),
    (".ShopPlugin.json.tmp", false), (".x.12a.tmp", false), ("..1.tmp", false), (".a.1.tmp.json", false),
  ])
  func temporaryFilesAreRecognisedByName(name: String, temporary: Bool) {
    #expect(AtomicFile.isTemporary(name) == temporary)
  }
}
