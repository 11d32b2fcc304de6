import Foundation
import Testing
import ViperKit

@testable import VivariumLoading
@testable import VivariumRuntime
@testable import VivariumSupport

/// Every file the host reads back from its data directory (the registry
/// cache, settings and storage, the saved screens) is judged as plugin files
/// are: a regular file, not a link, yours or root's, that no one else can
/// write, within a size limit. Any other is not used: it is set aside as
/// `NAME.refused-N`, never lost, and a warning names it and why.
@Suite("Trusting the data directory's files")
@MainActor
struct DataFileTrustTests {
  let data: TemporaryDirectory
  init() throws { data = try TemporaryDirectory() }

  /// The kinds a test can read in this process: reading the others (a FIFO,
  /// a link to `/dev/zero`) hung the host, so they are read by a child the
  /// test can kill (``aFIFOOrEndlessFileIsRefusedWithoutHanging(kind:)``).
  nonisolated static let readableInProcess: [UntrustedFile] = [.worldWritable, .oversized, .otherOwner]

  private var registryPath: String { data.path + "/" + PluginRegistry.fileName }

  private static let record = PluginRecord(
    name: "A", sdkVersion: .current, contracts: [Contract(urn: "a:list", summary: "A list.")])

  /// A registry cache that is good but for its kind, so that only its kind refuses it.
  private func goodRegistry() -> (bytes: Data, key: PluginFileKey) {
    let key = PluginFileKey(path: data.path, size: 1, modified: 2, inode: 3, device: 4)
    return (Data(PluginRegistry.encode([.init(key: key, outcome: .success(Self.record))])), key)
  }

  @Test(arguments: readableInProcess)
  func anUntrustedRegistryCacheIsSetAsideWithAWarning(kind: UntrustedFile) throws {
    let (bytes, key) = goodRegistry()
    try kind.make(at: registryPath, contents: bytes, limit: FileContents.Limit.registry)
    let (registry, warning) = PluginRegistry.open(dataDirectory: data.path)
    let text = try #require(warning)
    #expect(text.contains(registryPath) && text.contains(kind.reason), "\(text)")
    #expect(text.contains("\(registryPath).refused-1"), "where it was moved: \(text)")
    #expect(registry.entry(for: key) == nil)
    #expect(FileContents.exists(registryPath + ".refused-1") && !FileContents.exists(registryPath))
  }

  @Test(arguments: readableInProcess)
  func untrustedSettingsAreSetAsideAndToldToThePerson(kind: UntrustedFile) throws {
    let path = data.path + "/settings.json"
    try kind.make(at: path, contents: Data(#"{"theme":"dark"}"#.utf8), limit: FileContents.Limit.store)
    let services = TestServices.make(in: data, signedIn: false)
    let person = HostNotifications()
    services.announcements.listen(person)
    #expect(services.setting("theme") == nil)
    let notice = try #require(person.takeNotices().first)
    #expect(notice.tone == .warning)
    #expect(notice.text.contains(path) && notice.text.contains(kind.reason), "\(notice.text)")
    #expect(notice.text.contains("\(path).refused-1"), "where it was kept: \(notice.text)")
    // Saving starts a new file; the old one stays where it was put.
    try services.setSetting(.string("light"), forKey: "theme")
    #expect(FileContents.exists(path + ".refused-1"))
    #expect(FileContents.read(path, limit: FileContents.Limit.store) != .missing)
  }

  /// What would be refused when read back at the next start is not written:
  /// the save fails, saying why, and what was saved stays.
  @Test func aStoreTooLargeToReadBackIsNotWritten() throws {
    let path = data.path + "/settings.json"
    let store = PersistentDictionary<String>(path: path) { Issue.record("\($0)") }
    try store.set("dark", forKey: "theme")
    #expect {
      try store.set(String(repeating: "x", count: FileContents.Limit.store), forKey: "notes")
    } throws: { error in
      error is SaveRefused && "\(error)".contains(path) && "\(error)".contains("\(FileContents.Limit.store >> 20) MiB")
    }
    #expect(store.values == ["theme": "dark"])
    let reread = PersistentDictionary<String>(path: path) { Issue.record("\($0)") }
    #expect(reread.values == ["theme": "dark"])
  }

  /// The saved screens of `directory`'s store, as `vivarium run` saves them.
  private func savedScreens(for directory: String) throws -> (store: NavigationStore, bytes: Data) {
    let store = NavigationStore(dataDirectory: data.path, directories: [directory])
    let screen = NavigationState.Screen(urn: "items:list", arguments: [], slots: [])
    try store.save(NavigationState(layers: [[screen]]))
    let bytes = try Data(contentsOf: URL(fileURLWithPath: store.path))
    try FileManager.default.removeItem(atPath: store.path)
    return (store, bytes)
  }

  @Test(arguments: readableInProcess)
  func untrustedSavedScreensAreSetAside(kind: UntrustedFile) throws {
    let (store, bytes) = try savedScreens(for: data.path)
    try kind.make(at: store.path, contents: bytes, limit: FileContents.Limit.navigation)
    let loaded = store.load()
    let error = try #require(
      {
        if case .failure(let error) = loaded { error } else { nil }
      }(), "the saved screens were used: \(loaded)")
    #expect(error.description.contains(store.path) && error.description.contains(kind.reason), "\(error)")
    #expect(error.description.contains("\(store.path).refused-1"), "where it was moved: \(error)")
    #expect(FileContents.exists(store.path + ".refused-1") && !FileContents.exists(store.path))
  }

  @Test func savedScreensTooLargeToReadBackAreNotWritten() throws {
    let (store, bytes) = try savedScreens(for: data.path)
    try bytes.write(to: URL(fileURLWithPath: store.path))
    let huge = NavigationState.Screen(
      urn: "items:list", state: String(repeating: "x", count: FileContents.Limit.navigation))
    #expect {
      try store.save(NavigationState(layers: [[huge]]))
    } throws: { error in
      error is NavigationStoreError && "\(error)".contains(store.path)
        && "\(error)".contains("\(FileContents.Limit.navigation >> 20) MiB")
    }
    #expect(try Data(contentsOf: URL(fileURLWithPath: store.path)) == bytes)
  }

  /// Runs `vivarium arguments` as a child that is killed if it still runs
  /// after a minute, with at most 4 GiB of memory: one reading `/dev/zero`
  /// without end fails at that, not by filling the machine's memory.
  private func boundedVivarium(_ arguments: [String]) throws -> ProcessResult {
    try ProcessRunner.run(
      "/bin/sh", ["-c", #"ulimit -v 4194304 && exec "$0" "$@""#, BuildProducts.vivarium] + arguments, killAfter: 60)
  }

  /// A FIFO or a link to `/dev/zero` as the registry cache (`vivarium
  /// plugins`) or as the saved screens (`vivarium run`) hung the host until
  /// it was killed: each command is run as a child, killed if it is still
  /// running after a minute, and must have ended by itself with the warning.
  @Test(arguments: [UntrustedFile.fifo, .linkToDevZero])
  func aFIFOOrEndlessFileIsRefusedWithoutHanging(kind: UntrustedFile) throws {
    let plugins = try TemporaryDirectory()
    try kind.make(at: registryPath, contents: Data(), limit: FileContents.Limit.registry)
    let listed = try boundedVivarium(["plugins", "--plugins", plugins.path, "--data", data.path])
    #expect(listed.exited, "vivarium plugins was killed: it hung")
    #expect(listed.stderr.contains(registryPath) && listed.stderr.contains(kind.reason), "\(listed.stderr)")
    #expect(FileContents.exists(registryPath + ".refused-1"))

    let (store, _) = try savedScreens(for: plugins.path)
    try kind.make(at: store.path, contents: Data(), limit: FileContents.Limit.navigation)
    let script = try data.write("script", Data())
    let run = try boundedVivarium(["run", "--plugins", plugins.path, "--data", data.path, "--script", script])
    #expect(run.exited, "vivarium run was killed: it hung")
    #expect(run.stderr.contains(store.path) && run.stderr.contains(kind.reason), "\(run.stderr)")
    #expect(FileContents.exists(store.path + ".refused-1"))
  }

  /// A FIFO as `vivarium.log` made the first line logged wait for a reader
  /// forever; here the line saying what an interrupted save left is logged.
  @Test func aFIFOAsTheLogDoesNotHang() throws {
    try UntrustedFile.fifo.make(at: data.path + "/vivarium.log", contents: Data(), limit: 0)
    _ = try data.write(".settings.json.1.tmp", Data())
    let plugins = try TemporaryDirectory()
    let script = try data.write("script", Data())
    let run = try boundedVivarium(["run", "--plugins", plugins.path, "--data", data.path, "--script", script])
    #expect(run.exited, "vivarium run was killed: it hung")
    #expect(!FileContents.exists(data.path + "/.settings.json.1.tmp"), "the line was logged")
  }
}
