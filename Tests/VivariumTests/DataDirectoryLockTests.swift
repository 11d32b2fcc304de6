import Foundation
import Glibc
import Testing
import ViperKit

@testable import VivariumRuntime
@testable import VivariumSupport

/// One session at a time saves in a data directory; a second one reads, says
/// it is read-only, and refuses every save instead of losing the first's.
@Suite("Data directory lock")
@MainActor
struct DataDirectoryLockTests {
  let data: TemporaryDirectory
  let contract = Contract(urn: "shop:cart", summary: "s", services: [.storage, .settings])

  init() throws {
    data = try TemporaryDirectory()
  }

  private func services(_ host: HostServices) -> Services {
    host.services(for: contract, plugin: ServicesTests.shop, urn: contract.urn)
  }

  @Test func aSecondSessionOnOneDataDirectoryIsReadOnlyAndSaysWhoHoldsIt() throws {
    let first = TestServices.make(in: data)
    try services(first).storage?.set("3,7", forKey: "favourites")
    let second = TestServices.make(in: data)
    #expect(first.dataAccess == .exclusive)
    #expect(second.dataAccess == .readOnly(holder: getpid()))
    let reader = services(second)
    #expect(reader.storage?.value(forKey: "favourites") == "3,7")
    for save in [
      { try reader.storage?.set("1", forKey: "favourites") }, { try reader.settings?.set(.bool(true), forKey: "dark") },
    ] {
      #expect {
        try save()
      } throws: { error in
        // The directory, and the process holding it.
        error is SaveRefused && "\(error)".contains(data.path) && "\(error)".contains("\(getpid())")
      }
    }
    try services(first).storage?.set("3,7,9", forKey: "favourites")
    withExtendedLifetime(first) {}
    let stored = PersistentDictionary<String>(path: data.path + "/storage/ShopPlugin.json") { _ in }
    #expect(stored.values == ["favourites": "3,7,9"])
  }

  @Test func theLockIsFreedWhenItsSessionEnds() throws {
    var first: HostServices? = TestServices.make(in: data)
    #expect(first?.dataAccess == .exclusive)
    first = nil
    let second = TestServices.make(in: data)
    #expect(second.dataAccess == .exclusive)
    #expect(second.saveRefusal == nil)
  }

  @Test func aDataDirectoryThatCannotBeMadeRefusesSavesSayingWhy() throws {
    let file = try data.write("file", Data())
    let host = HostServices(dataDirectory: file + "/data", now: TestServices.now)
    guard case .unavailable = host.dataAccess else {
      Issue.record("expected the lock to be unavailable, got \(host.dataAccess)")
      return
    }
    #expect {
      try services(host).storage?.set("x", forKey: "k")
    } throws: { error in
      error is SaveRefused && "\(error)".contains("\(file)/data")
    }
  }

  @Test func aSecondVivariumProcessWarnsItIsReadOnly() throws {
    let holder = TestServices.make(in: data)
    let result = try ProcessRunner.vivarium(["render", "items:list", "--data", data.path])
    #expect(result.status == 0)
    #expect(
      result.stderr.contains(
        "vivarium render: warning: the data directory \(data.path) is in use by vivarium (pid \(getpid())); this session is read-only"
      ))
    withExtendedLifetime(holder) {}
  }

  /// A link in place of the lock file is not followed: the lock is not
  /// taken, saves are refused, and the file it points to is not truncated.
  @Test func aLinkAsTheLockFileIsNotFollowed() throws {
    let other = try data.write("mine.txt", Data("keep me".utf8))
    try FileManager.default.createSymbolicLink(
      atPath: data.path + "/" + DataDirectoryLock.fileName, withDestinationPath: other)
    let services = TestServices.make(in: data, signedIn: false)
    let access = services.dataAccess
    let reason = try #require(
      {
        if case .unavailable(let reason) = access { reason } else { nil }
      }(), "the lock was taken through the link: \(access)")
    #expect(reason.contains(DataDirectoryLock.fileName))
    #expect(try Data(contentsOf: URL(fileURLWithPath: other)) == Data("keep me".utf8))
  }
}
