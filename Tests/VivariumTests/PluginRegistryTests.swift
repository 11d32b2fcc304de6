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
    // Bodies whose checksum was made to match them: only their keys give them away.
    var stamp = RegistryWriter()
    for part in PluginRegistry.currentStamp { stamp.string(part) }
    let goodBody = Array(good[PluginRegistry.magic.count + 1..<good.count - 8])
    return [
      ("empty", [], .notARegistry),
      ("the JSON of an older host", Array(#"{"entries": ["#.utf8), .notARegistry),
      ("cut short", Array(good.prefix(good.count - 20)), .damaged),
      ("only its first line", PluginRegistry.magic + [PluginRegistry.formatVersion], .damaged),
      ("a byte changed", flipped, .damaged),
      ("more entries than it holds", PluginRegistry.sealed(stamp.bytes + [0x80, 0x01]), .damaged),
      ("a key cut short", PluginRegistry.sealed(stamp.bytes + [1, 4] + Array("/p/a".utf8) + [1, 2, 3]), .damaged),
      (
        "a path that is not UTF-8",
        PluginRegistry.sealed(stamp.bytes + [1, 2, 0xFF, 0xFE] + Array(repeating: 0, count: 40)), .damaged
      ),
      ("bytes after its last entry", PluginRegistry.sealed(goodBody + [0]), .damaged),
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

  /// A record with something in every field the format keeps, so that a
  /// field lost on the way shows.
  static let richRecord = PluginRecord(
    name: "Rich ✓", sdkVersion: ViperKitVersion(major: 3, minor: 0, patch: 1),
    contracts: WireProtocolTests.contracts + [
      Contract(
        urn: "rich:settings:{id}", version: -4, summary: "",
        arguments: [
          ArgumentSpec(
            name: "id", type: .int, required: false, defaultValue: .int(.min), description: "日本",
            choices: [.int(.max), .string(""), .bool(true), .double(-.infinity)])
        ],
        settings: [
          SettingDeclaration("session.user", readableByOthers: true), SettingDeclaration("theme"),
          SettingDeclaration("a.flag", .bool(default: true), description: "A flag."),
          SettingDeclaration("a.count", .int(default: 3, in: -2...9), description: "A count.", readableByOthers: true),
          SettingDeclaration("a.text", .string(default: "x"), description: "A text."),
          SettingDeclaration("a.pick", .choice(default: "b", among: ["a", "b"]), description: "A pick."),
        ],
        commands: [
          CommandSpec("refresh", title: "Refresh ✓", key: CommandKey("é")),
          CommandSpec("sort", title: "Sort", key: .ctrl("s")), CommandSpec("plain", title: ""),
        ])
    ],
    version: SemanticVersion(1, 2, 3),
    provides: [
      ServiceProvision(
        service: "items", version: "1.4",
        requires: [ServiceRequirement(service: "api", versions: VersionRange("1"..<"1"), isOptional: true)],
        services: [.storage])
    ],
    hosts: ["api.example.com", "*.example.org"],
    topics: PluginTopics(publishes: ["wallet.balance-changed"], subscribes: ["a.b", "wallet.balance-changed"]))

  @Test func everyFieldOfARecordOrARefusalComesBack() throws {
    let refused = Rejection(data.path + "/x", .timedOut, ["it hung", ""], checks: ["load.entry", "x"])
    var (registry, _) = PluginRegistry.open(dataDirectory: data.path)
    registry.remember(key(data.path), .success(Self.richRecord))
    #expect(registry.entry(for: key(data.path))?.record == Self.richRecord)
    registry.remember(key(data.path + "/x"), .failure(refused))
    #expect(registry.entry(for: key(data.path + "/x"))?.rejection == refused)
    try write(PluginRegistry.encode([.init(key: key(data.path), outcome: .success(Self.richRecord))]))
    #expect(PluginRegistry.open(dataDirectory: data.path).0.entry(for: key(data.path))?.record == Self.richRecord)
  }

  /// The format writes each type field by field: one the SDK or the host adds
  /// must be added to it (or it is lost between a scan and the next start).
  @Test func theFormatKeepsEveryFieldOfEveryTypeItWrites() throws {
    let contract = try #require(Self.richRecord.contracts.first)
    let provision = try #require(Self.richRecord.provides.first)
    let fields: [(String, Any, Int)] = [
      ("PluginRecord", Self.richRecord, 7), ("Contract", contract, 13),
      ("ArgumentSpec", contract.arguments[0], 6), ("MessageSpec", contract.outputs[0], 3),
      ("SlotSpec", contract.slots[0], 4), ("RouteGuard", contract.guards[0], 3),
      ("NavigationTarget", contract.opens[0], 4), ("ServiceRequirement", contract.requires[0], 3),
      ("ServiceProvision", provision, 4), ("SettingDeclaration", SettingDeclaration("k"), 4),
      ("CommandSpec", CommandSpec("k", title: "K"), 3), ("CommandKey", CommandKey("k"), 1),
      ("SemanticVersion", provision.version, 3), ("VersionRange", contract.requires[0].versions, 2),
      // A rejection's plugin name and patterns are a plugin turned off's, made
      // from the person's choice at each start after the cache is read: never cached.
      ("ViperKitVersion", ViperKitVersion.current, 3), ("Rejection", Rejection("/p", .crashed, "x"), 6),
      ("PluginFileKey", key(), 5),
    ]
    for (name, value, count) in fields {
      #expect(
        Mirror(reflecting: value).children.count == count,
        "\(name) no longer has \(count) fields: write and read them all in RegistryBytes+Records.swift, and raise PluginRegistry.formatVersion"
      )
    }
    #expect(ArgumentType.allCases.count == 4 && NavigationTarget.Kind.allCases.count == 3)
  }

  /// Record bytes written by hand, field by field, as RegistryBytes+Records.swift writes them.
  private static func handWritten(requirement: (lower: Int, upper: Int)) -> [UInt8] {
    var bytes = RegistryWriter()
    bytes.string("A")
    for part in [3, 0, 0] { bytes.signed(part) }
    bytes.unsigned(1)
    bytes.string("a:list")
    bytes.signed(1)
    bytes.string("A list.")
    // No arguments, inputs, outputs, slots, services, guards or opens.
    for _ in 0..<7 { bytes.unsigned(0) }
    bytes.unsigned(1)
    bytes.string("s")
    for part in [requirement.lower, 0, 0, requirement.upper, 0, 0] { bytes.unsigned(UInt64(part)) }
    bytes.flag(false)
    // No settings or commands; then the plugin's version, no provisions, no hosts and no topics.
    bytes.unsigned(0)
    bytes.unsigned(0)
    for part: UInt64 in [1, 0, 0] { bytes.unsigned(part) }
    for _ in 0..<4 { bytes.unsigned(0) }
    return bytes.bytes
  }

  /// Entries whose own bytes do not read, in a file that checks out: whether
  /// each is a record, and its bytes.
  static let unreadableEntries: [(String, Bool, [UInt8])] = {
    var good = RegistryWriter()
    good.record(PluginRecord(name: "A", sdkVersion: .current, contracts: [Contract(urn: "a:list", summary: "A.")]))
    var noContracts = RegistryWriter()
    noContracts.record(PluginRecord(name: "A", sdkVersion: .current, contracts: []))
    var unknownKind = RegistryWriter()
    unknownKind.strings(["/p/a.so", "melted", "it melted"])
    unknownKind.strings(["load.entry"])
    var checksMissing = RegistryWriter()
    checksMissing.strings(["/p/a.so", Rejection.Kind.crashed.rawValue])
    checksMissing.strings(["it crashed", "twice"])
    checksMissing.strings(["load.entry"])
    let name = [UInt8(1)] + Array("A".utf8)
    // More contracts than the limit, each as empty as can be (13 zero bytes:
    // three empty fields and ten empty lists), then the version and two
    // empty lists: all of it reads, but for the count.
    var tooMany = RegistryWriter()
    tooMany.unsigned(UInt64(PluginLimits.modules + 1))
    tooMany.append(ArraySlice(repeating: 0, count: (PluginLimits.modules + 1) * 13 + 5))
    return [
      ("as written by hand", true, handWritten(requirement: (1, 2))),
      ("a record without contracts", true, noContracts.bytes),
      ("a record cut short", true, Array(good.bytes.dropLast(3))),
      ("a record with bytes after it", true, good.bytes + [0]),
      ("a name that is not UTF-8", true, [2, 0xFF, 0xFE] + Array(good.bytes.dropFirst(name.count))),
      ("more contracts than it holds", true, name + [6, 0, 0, 0xFF, 0xFF, 0x03]),
      ("more contracts than a plugin may offer", true, name + [6, 0, 0] + tooMany.bytes),
      ("a version range that ends before it starts", true, handWritten(requirement: (2, 1))),
      ("a refusal of a kind this host does not know", false, unknownKind.bytes),
      ("a refusal with fewer checks than reasons", false, checksMissing.bytes),
    ]
  }()

  @Test(arguments: unreadableEntries.indices)
  func anEntryWhoseBytesDoNotReadIsAMissAndIsReplaced(index: Int) throws {
    let (what, isRecord, payload) = Self.unreadableEntries[index]
    try write(PluginRegistry.file([.init(key: key(data.path), isRecord: isRecord, payload: payload[...])]))
    var (registry, warning) = PluginRegistry.open(dataDirectory: data.path)
    #expect(warning == nil, "\(what): the file itself is sound")
    // The first case is the control: written by hand as the format has it, it reads.
    guard index > 0 else {
      let contract = try #require(registry.entry(for: key(data.path))?.record?.contracts.first)
      #expect(contract.requires.map(\.versions.description) == ["1.0.0..<2.0.0"])
      return
    }
    let found = registry.entry(for: key(data.path)) != nil
    #expect(!found, "\(what) is a miss")
    registry.remember(key(data.path), .success(record))
    try registry.save()
    #expect(PluginRegistry.open(dataDirectory: data.path).0.entry(for: key(data.path))?.record == record)
  }

  @Test func noByteChangedOrCutOffCrashesOrHangsTheReader() throws {
    let file = PluginRegistry.file([
      .init(.init(key: key(data.path), outcome: .success(Self.richRecord))),
      .init(.init(key: key("/p/crash.so"), outcome: .failure(Rejection("/p/crash.so", .crashed, "it crashed")))),
    ])
    for length in 0..<file.count {
      guard case .failure = PluginRegistry.decode(Array(file.prefix(length)), path: registryPath) else {
        Issue.record("the first \(length) of \(file.count) bytes were read as a registry")
        return
      }
    }
    let body = Array(file[PluginRegistry.magic.count + 1..<file.count - 8])
    var read = 0
    for index in body.indices {
      for mask: UInt8 in [0x01, 0x80, 0xFF] {
        var changed = body
        changed[index] ^= mask
        var unsealed = file
        unsealed[PluginRegistry.magic.count + 1 + index] ^= mask
        guard case .failure(let problem) = PluginRegistry.decode(unsealed, path: registryPath),
          problem.kind == .damaged
        else {
          Issue.record("byte \(index) ^ \(mask) went unnoticed")
          return
        }
        // Sealed again, the change reaches the reader: whatever it makes of it, it returns.
        if case .success(let entries?) = PluginRegistry.decode(PluginRegistry.sealed(changed), path: registryPath) {
          read += entries.compactMap(\.entry).count
        }
      }
    }
    #expect(read > 0, "some changes leave entries that read")
  }

  @Test func entriesNoScanAskedForAreWrittenBackAsTheyWere() throws {
    let other = try TemporaryDirectory()
    let kept = PluginRegistry.StoredEntry(.init(key: key(other.path), outcome: .success(Self.richRecord)))
    try write(PluginRegistry.file([kept]))
    var (registry, _) = PluginRegistry.open(dataDirectory: data.path)
    registry.remember(key(data.path), .success(record))
    try registry.save()
    let saved = try Data(contentsOf: URL(fileURLWithPath: registryPath))
    guard case .success(let entries?) = PluginRegistry.decode(Array(saved), path: registryPath) else {
      Issue.record("the saved registry does not read")
      return
    }
    #expect(entries.map(\.key.path) == [data.path, other.path].sorted())
    #expect(entries.first { $0.key.path == other.path } == kept)
  }

  @Test func aCacheOfAnotherFormatIsIgnoredAndRewritten() throws {
    var older = PluginRegistry.encode([entry])
    older[PluginRegistry.magic.count] -= 1
    try write(older)
    var (registry, warning) = PluginRegistry.open(dataDirectory: data.path)
    #expect(warning == nil && registry.entry(for: key(data.path)) == nil)
    try registry.save()
    let saved = try Data(contentsOf: URL(fileURLWithPath: registryPath))
    #expect(saved[PluginRegistry.magic.count] == PluginRegistry.formatVersion)
    guard case .success(let entries?) = PluginRegistry.decode(Array(saved), path: registryPath) else {
      Issue.record("the rewritten registry does not read")
      return
    }
    #expect(entries.isEmpty, "nothing of the older file is kept")
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

  @Test func anEntryThatDoesNotReadIsScannedAgainAndRewritten() throws {
    let dir = try TemporaryDirectory()
    let path = try dir.copy(BuildProducts.itemsList, as: "libItemsList.so")
    _ = try plugins(dir)
    let cached = Array(try Data(contentsOf: URL(fileURLWithPath: registryPath)))
    guard case .success(let entries?) = PluginRegistry.decode(cached, path: registryPath) else {
      Issue.record("the cache the scan wrote does not read")
      return
    }
    #expect(entries.map(\.key.path) == [path])
    // Its checksum made to match: only the entry's own bytes are wrong.
    try write(
      PluginRegistry.file(entries.map { .init(key: $0.key, isRecord: true, payload: ArraySlice<UInt8>([0xFF, 0xFF])) }))
    let rescanned = try plugins(dir)
    #expect(rescanned.status == 0 && rescanned.stderr.isEmpty, "\(rescanned.stderr)")
    #expect(rescanned.stdout.contains("\"from\" : \"manifest\""), "read again: \(rescanned.stdout)")
    let again = try plugins(dir)
    #expect(again.stdout.contains("\"from\" : \"cache\""), "the entry was rewritten: \(again.stdout)")
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
