import Foundation
import Testing
import ViperKit

@testable import VivariumLoading
@testable import VivariumTools

/// The registry cache (issue 13): a plugin file that has not changed is not
/// loaded again, a crash is remembered until the file changes, and a damaged
/// cache is discarded with a warning.
@Suite("Plugin registry cache")
struct PluginRegistryTests {
  let data: TemporaryDirectory
  init() throws { data = try TemporaryDirectory() }

  private var registryPath: String { data.path + "/" + PluginRegistry.fileName }

  private func key(_ path: String = "/p/libA.so") -> PluginFileKey {
    PluginFileKey(path: path, size: 1000, modified: 1_700_000_000_000_000_000, inode: 42, device: 7)
  }

  private let record = PluginRecord(
    name: "A", sdkVersion: .current, contracts: [Contract(urn: "a:list", summary: "A list.")])

  @Test func anEntryIsUsedOnlyForTheVerySameFile() {
    var (registry, warning) = PluginRegistry.open(dataDirectory: data.path)
    #expect(warning == nil)
    registry.remember(key(), .success(record))
    #expect(registry.entry(for: key())?.record == record)
    var changed = [key("/p/libB.so"), key(), key(), key(), key()]
    changed[1].size += 1
    changed[2].modified += 1
    changed[3].inode += 1
    changed[4].device += 1
    for other in changed { #expect(registry.entry(for: other) == nil, "\(other)") }
  }

  private func write(_ bytes: [UInt8]) throws {
    try Data(bytes).write(to: URL(fileURLWithPath: registryPath))
  }

  private var entry: PluginRegistry.Entry { .init(key: key(data.path), outcome: .success(record)) }

  @Test func aSavedRegistryIsReadBackOnlyByTheSameHostSDKAndCompiler() throws {
    var (registry, _) = PluginRegistry.open(dataDirectory: data.path)
    registry.remember(key(data.path), .success(record))
    let refused = Rejection("/p/crash.so", .crashed, ["it crashed"])
    registry.remember(key("/p/crash.so"), .failure(refused))
    try registry.save()
    let reopened = PluginRegistry.open(dataDirectory: data.path).0
    #expect(reopened.entry(for: key(data.path))?.record == record)
    #expect(reopened.entry(for: key("/p/crash.so")) == nil, "a file that is gone is left out")
    var others = [
      PluginRegistry.encode([entry], host: "0.0.1"), PluginRegistry.encode([entry], sdk: "1.0.0"),
      PluginRegistry.encode([entry], compiler: "Swift 5.10"),
    ]
    var otherFormat = PluginRegistry.encode([entry])
    otherFormat[PluginRegistry.magic.count] += 1
    others.append(otherFormat)
    for (index, bytes) in others.enumerated() {
      try write(bytes)
      let (reopened, warning) = PluginRegistry.open(dataDirectory: data.path)
      #expect(reopened.entry(for: key(data.path)) == nil, "another writer (\(index)) is a miss")
      #expect(warning == nil, "another writer (\(index)) is no damage")
    }
  }

  @Test func aRefusalComesBackWithItsReasonsAndChecks() throws {
    let refused = Rejection(
      data.path, .crashed, ["it crashed with signal 11", "rebuild it"], checks: ["load.entry", "x"])
    try write(PluginRegistry.encode([.init(key: key(data.path), outcome: .failure(refused))]))
    let (reopened, warning) = PluginRegistry.open(dataDirectory: data.path)
    #expect(warning == nil)
    #expect(reopened.entry(for: key(data.path))?.rejection == refused)
  }

  /// Files that are not a registry this host wrote, and why.
  static let unusable: [(String, [UInt8], RegistryError.Kind)] = {
    var good = PluginRegistry.encode([
      .init(
        key: PluginFileKey(path: "/p/libA.so", size: 1, modified: 2, inode: 3, device: 4),
        outcome: .success(PluginRecord(name: "A", sdkVersion: .current, contracts: WireProtocolTests.contracts)))
    ])
    var flipped = good
    flipped[flipped.count / 2] ^= 0x20
    let noContracts = PluginRegistry.encode([
      .init(
        key: PluginFileKey(path: "/p/libA.so", size: 1, modified: 2, inode: 3, device: 4),
        outcome: .success(PluginRecord(name: "A", sdkVersion: .current, contracts: [])))
    ])
    return [
      ("empty", [], .notARegistry),
      ("the JSON of an older host", Array(#"{"entries": ["#.utf8), .notARegistry),
      ("cut short", Array(good.prefix(good.count - 20)), .damaged),
      ("only its first line", PluginRegistry.magic + [PluginRegistry.formatVersion], .damaged),
      ("a byte changed", flipped, .damaged),
      ("an entry without contracts", noContracts, .damaged),
    ]
  }()

  @Test(arguments: unusable.indices)
  func aDamagedOrForeignCacheIsDiscardedWithAWarningAndReplaced(index: Int) throws {
    let (what, bytes, kind) = Self.unusable[index]
    guard case .failure(let problem) = PluginRegistry.decode(bytes, path: registryPath) else {
      Issue.record("\(what) was read as a registry")
      return
    }
    #expect(problem.kind == kind, "\(what): \(problem)")
    try write(bytes)
    var (registry, warning) = PluginRegistry.open(dataDirectory: data.path)
    #expect(warning?.contains(registryPath) == true, "\(what): \(warning ?? "none")")
    registry.remember(key(data.path), .success(record))
    try registry.save()
    let (reopened, again) = PluginRegistry.open(dataDirectory: data.path)
    #expect(again == nil && reopened.entry(for: key(data.path))?.record == record)
  }

  // MARK: Through the command line

  /// How many times the C plugin at `marker`'s constructor ran.
  private func loads(_ marker: String) -> Int {
    ((try? String(contentsOfFile: marker, encoding: .utf8)) ?? "").count
  }

  private func plugins(_ dir: TemporaryDirectory, _ extra: [String] = []) throws -> ProcessResult {
    try ProcessRunner.vivarium(["plugins", "--json", "--plugins", dir.path, "--data", data.path] + extra)
  }

  @Test func anUnchangedFileIsNotLoadedAgainAndAChangedOneIs() throws {
    let dir = try TemporaryDirectory()
    let marker = dir.path + "/loads"
    let path = try CPluginBuilder.plugin(
      constructor: "FILE *f = fopen(\"\(marker)\", \"a\"); fputs(\"x\", f); fclose(f);", named: "counted.so", in: dir)
    _ = try dir.copy(BuildProducts.itemsList, as: "libItemsList.so")
    let first = try plugins(dir)
    #expect(first.stdout.contains("\"from\" : \"manifest\""), "\(first.stdout)")
    #expect(loads(marker) == 1)
    let second = try plugins(dir)
    #expect(second.stdout.contains("foreign-sdk-copy"), "the refusal is remembered: \(second.stdout)")
    #expect(
      second.stdout.contains("\"from\" : \"cache\"") && !second.stdout.contains("\"from\" : \"probe\"")
        && !second.stdout.contains("\"from\" : \"manifest\""))
    #expect(loads(marker) == 1, "an unchanged file is not loaded again")
    // Rewritten with the same bytes: a new modification time.
    let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
    usleep(10_000)
    try bytes.write(to: URL(fileURLWithPath: path))
    _ = try plugins(dir)
    #expect(loads(marker) == 2, "a changed file is probed again")
    _ = try plugins(dir, ["--rescan"])
    #expect(loads(marker) == 3, "--rescan probes every file")
    _ = try plugins(dir, ["--no-cache"])
    _ = try plugins(dir)
    #expect(loads(marker) == 4, "--no-cache probes, and the cache --rescan wrote still holds")
  }

  @Test func aCrashingPluginIsRememberedUntilItsFileChanges() throws {
    let dir = try TemporaryDirectory()
    let marker = dir.path + "/loads"
    let path = try CPluginBuilder.plugin(
      constructor: "FILE *f = fopen(\"\(marker)\", \"a\"); fputs(\"x\", f); fclose(f); raise(SIGSEGV);",
      named: "crash.so", in: dir)
    for _ in 0..<2 {
      let result = try plugins(dir)
      #expect(result.stdout.contains("crashed") && result.stdout.contains("signal 11"), "\(result.stdout)")
    }
    #expect(loads(marker) == 1, "the crash is remembered, not probed again")
    try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: 5)], ofItemAtPath: path)
    let forgiven = try plugins(dir)
    #expect(forgiven.stdout.contains("crashed"))
    #expect(loads(marker) == 2, "once the file changes it is probed again")
  }

  @Test func aDamagedCacheIsNamedOnStderrAndTheScanGoesOn() throws {
    try write(PluginRegistry.magic + [PluginRegistry.formatVersion] + Array("\u{1B}[31m damaged".utf8))
    let dir = try TemporaryDirectory()
    _ = try dir.copy(BuildProducts.itemsList, as: "libItemsList.so")
    let result = try ProcessRunner.vivarium(["routes", "--plugins", dir.path, "--data", data.path])
    #expect(result.status == 0)
    #expect(result.stdout.contains("items:list"))
    #expect(result.stderr.contains(registryPath), "the file: \(result.stderr)")
    #expect(PluginRegistry.open(dataDirectory: data.path).warning == nil, "replaced by a good one")
  }
}
