import Foundation
import Testing
import ViperKit

@testable import VivariumHost

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

  @Test func aSavedRegistryIsReadBackOnlyByTheSameHostSDKAndCompiler() throws {
    var (registry, _) = PluginRegistry.open(dataDirectory: data.path)
    registry.remember(key(data.path), .success(record))
    try registry.save()
    #expect(PluginRegistry.open(dataDirectory: data.path).0.entry(for: key(data.path))?.record == record)
    let saved = try Data(contentsOf: URL(fileURLWithPath: registryPath))
    for field in ["host", "sdk", "compiler", "formatVersion"] {
      var object = try #require(try JSONSerialization.jsonObject(with: saved) as? [String: Any])
      #expect(object[field] != nil, "the registry names its \(field)")
      object[field] = field == "formatVersion" ? 99 : "other"
      try JSONSerialization.data(withJSONObject: object).write(to: URL(fileURLWithPath: registryPath))
      let (reopened, warning) = PluginRegistry.open(dataDirectory: data.path)
      #expect(reopened.entry(for: key(data.path)) == nil, "another \(field) is a miss")
      #expect(warning == nil, "another \(field) is no damage")
    }
  }

  @Test(arguments: [
    ("{\"entries\": [", "damaged"), ("", "damaged"),
    (
      #"{"format":"someone-else","formatVersion":1,"host":"","sdk":"","compiler":"","entries":[]}"#,
      "not a plugin registry"
    ),
  ])
  func aDamagedOrForeignCacheIsDiscardedWithAWarningAndReplaced(contents: String, said: String) throws {
    try contents.write(toFile: registryPath, atomically: true, encoding: .utf8)
    var (registry, warning) = PluginRegistry.open(dataDirectory: data.path)
    #expect(warning?.contains(registryPath) == true && warning?.contains(said) == true, "\(warning ?? "no warning")")
    #expect(warning?.contains("scanned again") == true)
    registry.remember(key(data.path), .success(record))
    try registry.save()
    let (reopened, again) = PluginRegistry.open(dataDirectory: data.path)
    #expect(again == nil && reopened.entry(for: key(data.path))?.record == record)
  }

  @Test func anIncompleteEntryDiscardsTheWholeCache() throws {
    var (registry, _) = PluginRegistry.open(dataDirectory: data.path)
    registry.remember(key(data.path), .success(record))
    try registry.save()
    let saved = try String(contentsOfFile: registryPath, encoding: .utf8)
    let broken = saved.replacingOccurrences(of: #""contracts":[{"#, with: #""contracts":[],"x":[{"#)
    try broken.write(toFile: registryPath, atomically: true, encoding: .utf8)
    let (reopened, warning) = PluginRegistry.open(dataDirectory: data.path)
    #expect(warning?.contains("damaged") == true, "\(warning ?? "no warning")")
    #expect(reopened.entry(for: key(data.path)) == nil)
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
    try Data("\u{1B}[31mnot json".utf8).write(to: URL(fileURLWithPath: registryPath))
    let dir = try TemporaryDirectory()
    _ = try dir.copy(BuildProducts.itemsList, as: "libItemsList.so")
    let result = try ProcessRunner.vivarium(["routes", "--plugins", dir.path, "--data", data.path])
    #expect(result.status == 0)
    #expect(result.stdout.contains("items:list"))
    #expect(result.stderr.contains("\(registryPath) is damaged"), "\(result.stderr)")
    #expect(PluginRegistry.open(dataDirectory: data.path).warning == nil, "replaced by a good one")
  }
}
