import Foundation
import Synchronization
import Testing
import ViperKit

@testable import VivariumApp
@testable import VivariumLoading
@testable import VivariumRuntime
@testable import VivariumSupport

/// Logs per plugin: each line names the plugin whose line it is, each
/// plugin logs at a level of its own, kept in the data directory and
/// followed by a running host, and the log is read back by plugin and
/// level, as it is written.
@Suite("Logs per plugin")
@MainActor
struct PluginLogTests {
  let data: TemporaryDirectory

  init() throws {
    data = try TemporaryDirectory()
  }

  static let wallet = PluginIdentity(name: "WalletPlugin", path: "/p/libWallet.so")
  static let feed = PluginIdentity(name: "FeedPlugin", path: "/p/libFeed.so")

  /// The log of `plugin`'s module `urn`, as the host gives it.
  private func log(_ services: HostServices, _ plugin: PluginIdentity, _ urn: String) throws -> any ModuleLogger {
    try #require(
      services.services(for: Contract(urn: urn, summary: "s", services: [.log]), plugin: plugin, urn: urn).log)
  }

  private var records: [LogRecord] {
    let text = (try? String(contentsOfFile: data.path + "/" + LogRecord.fileName, encoding: .utf8)) ?? ""
    return text.split(separator: "\n").compactMap { LogRecord(parsing: $0) }
  }

  // MARK: The line

  @Test func aLineNamesItsPluginAndALineOfTheHostOrOfBeforeNamesNone() throws {
    let line = LogRecord(
      time: "2026-01-01T00:00:00Z", level: .warning, plugin: "WalletPlugin", module: "wallet:preview", message: "low")
    #expect(LogRecord(parsing: line.line[...]) == line)
    let host = LogRecord(time: "2026-01-01T00:00:00Z", level: .info, plugin: nil, module: "host", message: "a: b")
    #expect(LogRecord(parsing: host.line[...]) == host)
    // As hosts wrote them before lines named their plugin, and as the crash handler writes one.
    let old = try #require(LogRecord(parsing: "2026-01-01T00:00:00Z error wallet:preview: it failed: twice"))
    #expect(
      old.plugin == nil && old.level == .error && old.module == "wallet:preview" && old.message == "it failed: twice")
    #expect(
      LogRecord(parsing: "2026-01-01T00:00:00Z error host: vivarium crashed: signal 11 (SIGSEGV)")?.module == "host")
    for other in ["", "garbage", "2026-01-01T00:00:00Z loud host: x", "2026-01-01T00:00:00Z info no colon"] {
      #expect(LogRecord(parsing: other[...]) == nil, "\(other)")
    }
  }

  /// A declared name with a space, a `]` or a `%` in it (a raw identifier)
  /// cannot end its tag early: it reads back as it was.
  @Test(arguments: ["My Plugin", "Odd]Name", "Fifty%", "] [x] y: z"])
  func anOddPluginNameReadsBackWhole(name: String) throws {
    let line = LogRecord(time: "t", level: .info, plugin: name, module: "m:n", message: "said")
    let read = try #require(LogRecord(parsing: line.line[...]))
    #expect(read.plugin == name && read.module == "m:n" && read.message == "said")
  }

  @Test func aPluginsLinesNameItAndTheHostsNone() throws {
    let services = TestServices.make(in: data)
    try log(services, Self.wallet, "wallet:preview").log(.info, "balance shown")
    services.logLine(.info, module: "host", "started")
    #expect(records.map(\.plugin) == ["WalletPlugin", nil])
    #expect(services.recentEntries.map(\.plugin) == ["WalletPlugin", nil])
  }

  // MARK: Each plugin's level

  @Test func linesBelowAPluginsLevelAreDroppedAndOthersKept() throws {
    var levels = PluginLogLevels(dataDirectory: data.path)
    #expect(try levels.set(.warning, for: Self.wallet.name))
    // A host starting reads the levels.
    let services = TestServices.make(in: data)
    let wallet = try log(services, Self.wallet, "wallet:preview")
    wallet.log(.debug, "detail")
    wallet.log(.info, "shown")
    wallet.log(.warning, "low")
    wallet.log(.error, "failed")
    try log(services, Self.feed, "feed:home").log(.debug, "feed detail")
    services.logLine(.debug, module: "host", "host detail")
    #expect(records.map(\.message) == ["low", "failed", "feed detail", "host detail"])
  }

  /// As `vivarium log --set-level` beside a running app: the host follows
  /// the file (keepHouse looks each second), and says each change.
  @Test func aLevelSetByAnotherProcessIsFollowed() throws {
    let services = TestServices.make(in: data)
    let wallet = try log(services, Self.wallet, "wallet:preview")
    wallet.log(.info, "before")
    var elsewhere = PluginLogLevels(dataDirectory: data.path)
    #expect(try elsewhere.set(.error, for: Self.wallet.name))
    services.followLogLevels()
    wallet.log(.warning, "dropped")
    wallet.log(.error, "kept")
    // Back to every level: debug, the lowest, is forgotten, not kept.
    #expect(try elsewhere.set(.debug, for: Self.wallet.name))
    #expect(PluginLogLevels(dataDirectory: data.path).levels.isEmpty)
    services.followLogLevels()
    wallet.log(.debug, "after")
    let wallets = records.filter { $0.plugin == Self.wallet.name }
    #expect(wallets.map(\.module) == ["wallet:preview", "host", "wallet:preview", "host", "wallet:preview"])
    #expect(wallets.map(\.message).filter { !$0.contains("logs at") } == ["before", "kept", "after"])
    #expect(try !elsewhere.set(.debug, for: Self.wallet.name), "nothing to change")
  }

  /// A file that cannot be read is never overwritten, and changes nothing
  /// in a running host: its levels stay, and the log says why.
  @Test func aDamagedLevelsFileIsNeverOverwrittenAndChangesNothing() throws {
    let services = TestServices.make(in: data)
    var levels = PluginLogLevels(dataDirectory: data.path)
    try levels.set(.warning, for: Self.wallet.name)
    services.followLogLevels()
    let damaged = Data("{ \"levels\": { \"WalletPlugin\": \"loud\" } }".utf8)
    try damaged.write(to: URL(fileURLWithPath: levels.path))
    services.followLogLevels()
    try log(services, Self.wallet, "wallet:preview").log(.info, "still dropped")
    #expect(!records.contains { $0.message == "still dropped" })
    #expect(records.contains { $0.level == .warning && $0.plugin == nil && $0.message.contains(levels.path) })
    #expect(throws: ChoicesFileError.self) { try levels.set(.error, for: Self.feed.name) }
    #expect(try Data(contentsOf: URL(fileURLWithPath: levels.path)) == damaged)
    #expect(PluginLogLevels(dataDirectory: data.path).damage != nil)
  }

  // MARK: Following the file

  private func append(_ text: String, to name: String = LogRecord.fileName) throws {
    let path = data.path + "/" + name
    if !FileManager.default.fileExists(atPath: path) {
      _ = FileManager.default.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o600])
    }
    let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
    try handle.seekToEnd()
    try handle.write(contentsOf: Data(text.utf8))
    try handle.close()
  }

  @Test func theTailReadsWholeLinesAndFollowsTheFileWhenItIsRenamedOrCut() throws {
    var tail = LogTail(dataDirectory: data.path)
    #expect(tail.read().lines.isEmpty, "no log yet")
    try append("one\ntw")
    #expect(tail.read().lines == ["one"])
    #expect(tail.unfinished == "tw")
    try append("o\n")
    #expect(tail.read().lines == ["two"])
    // Renamed as the host renames it, a line written to it first; then a new one.
    try append("last of the old\n")
    try FileManager.default.moveItem(atPath: tail.path, toPath: data.path + "/" + LogRecord.previousFileName)
    try append("first of the new\n")
    #expect(tail.read().lines == ["last of the old", "first of the new"])
    // Cut short: read again from its start.
    try FileHandle(forWritingTo: URL(fileURLWithPath: tail.path)).truncate(atOffset: 0)
    try append("x\n")
    #expect(tail.read().lines == ["x"])
    tail.close()
  }

  @Test func aLogThatIsALinkIsNotRead() throws {
    try append("secret\n", to: "elsewhere")
    try FileManager.default.createSymbolicLink(
      atPath: data.path + "/" + LogRecord.fileName, withDestinationPath: data.path + "/elsewhere")
    var tail = LogTail(dataDirectory: data.path)
    let read = tail.read()
    #expect(read.lines.isEmpty && read.problem != nil)
    #expect(tail.read().problem == nil, "said once")
  }

  // MARK: The session's `log`

  @Test(
    arguments: [
      ("log", SessionCommand.log(plugin: nil, level: nil)),
      ("log warning", .log(plugin: nil, level: .warning)),
      ("log Wallet", .log(plugin: "Wallet", level: nil)),
      ("log Wallet error", .log(plugin: "Wallet", level: .error)),
    ])
  func theSessionsLogTakesAPluginAndALevel(line: String, command: SessionCommand) throws {
    #expect(try SessionCommand.parse(line) == command)
  }

  @Test(arguments: [("log Wallet loud", SessionCommand.ParseError.Kind.badLevel), ("log a b c", .usage)])
  func theSessionsLogRefuses(line: String, kind: SessionCommand.ParseError.Kind) {
    #expect {
      try SessionCommand.parse(line)
    } throws: { error in
      (error as? SessionCommand.ParseError)?.kind == kind
    }
  }

  @Test func theSessionsLogShowsThePluginsLinesAtTheLevelAndAbove() async throws {
    let runtime = HostRuntime(catalog: BuildProducts.demoCatalog, services: TestServices.make(in: data))
    let session = Session(
      runtime: runtime, renderer: TextRenderer(), plugins: "", routes: "", scheme: nil,
      settleLimit: TestServices.settleLimit)
    let wallet = try log(runtime.services, Self.wallet, "wallet:preview")
    wallet.log(.info, "shown")
    wallet.log(.warning, "low")
    try log(runtime.services, Self.feed, "feed:home").log(.warning, "late")
    // By its file's name, as `vivarium log --plugin` takes it.
    let step = await session.execute("log Wallet warning")
    #expect(step.errors.isEmpty, "\(step.errors)")
    #expect(step.output.count == 1 && step.output[0].hasSuffix("[WalletPlugin] wallet:preview: low"), "\(step.output)")
    #expect(await session.execute("log warning").output.count == 2)
    #expect(await session.execute("log Wallet").output.count == 2)
    #expect(await session.execute("log Nothing").errors.first?.contains("'Nothing'") == true)
  }
}

extension PluginLogTests {
  /// The full-screen app's `log` completes a plugin loaded or a level, then a level.
  @Test func theAppsLogCompletesPluginsAndLevels() async throws {
    let pilot = try await Pilot()
    let first = pilot.app.completions(["log"], "")
    #expect(first.contains("WalletPlugin") && first.contains("warning"))
    #expect(pilot.app.completions(["log", "WalletPlugin"], "") == LogLevel.allCases.map(\.rawValue))
    #expect(pilot.app.completions(["log", "WalletPlugin", "warning"], "").isEmpty)
  }
}

/// `vivarium log`, run as a person runs it.
@Suite("vivarium log")
@MainActor
struct LogCommandTests {
  let plugins: TemporaryDirectory
  let data: TemporaryDirectory
  var place: [String] { ["--plugins", plugins.path, "--data", data.path] }

  init() throws {
    plugins = try TemporaryDirectory()
    try plugins.copy(BuildProducts.itemsList, as: "libItemsList.so")
    data = try TemporaryDirectory()
  }

  /// The log as a running host would have left it: a line from before
  /// lines named their plugin, the items list's lines, another's.
  private func writeLog() throws {
    let lines = [
      "2026-01-01T00:00:00Z info items:list: from before",
      "2026-01-01T00:00:01Z debug [ItemsListPlugin] items:list: detail",
      "2026-01-01T00:00:02Z warning [ItemsListPlugin] items:list: low",
      "2026-01-01T00:00:03Z error [GonePlugin] gone:main: failed",
      "not a line of the log",
    ]
    _ = try data.write(LogRecord.previousFileName, Data((lines[0] + "\n").utf8), mode: 0o600)
    _ = try data.write(LogRecord.fileName, Data((lines.dropFirst().joined(separator: "\n") + "\n").utf8), mode: 0o600)
  }

  private struct Line: Decodable, Equatable {
    var level: String?
    var plugin: String?
    var message: String?
    var line: String?
  }

  private func lines(_ output: String) throws -> [Line] {
    try output.split(separator: "\n").map { try JSONDecoder().decode(Line.self, from: Data($0.utf8)) }
  }

  @Test func showsEveryLineOldestFirstOrThoseOfAPluginAtALevel() throws {
    try writeLog()
    let all = try ProcessRunner.vivarium(["log", "--json", "--data", data.path])
    #expect(all.status == 0, "\(all.stderr)")
    let every = try lines(all.stdout)
    #expect(every.map(\.message) == ["from before", "detail", "low", "failed", nil])
    #expect(every.last?.line == "not a line of the log")
    // By its file's name without lib and .so, as `plugins disable` takes it.
    let items = try ProcessRunner.vivarium(["log", "--plugin", "ItemsList", "--level", "info", "--json"] + place)
    #expect(items.status == 0, "\(items.stderr)")
    #expect(try lines(items.stdout) == [Line(level: "warning", plugin: "ItemsListPlugin", message: "low")])
    let warnings = try ProcessRunner.vivarium(["log", "--level", "warning", "--data", data.path])
    #expect(warnings.stdout.split(separator: "\n").count == 2, "\(warnings.stdout)")
    // A plugin no file declares any more is still named by its lines.
    let gone = try ProcessRunner.vivarium(["log", "--plugin", "GonePlugin", "--json"] + place)
    #expect(gone.status == 0, "\(gone.stderr)")
    #expect(try lines(gone.stdout).map(\.message) == ["failed"])
  }

  @Test func setLevelKeepsThePluginsLevelByItsDeclaredName() throws {
    let set = try ProcessRunner.vivarium(["log", "--plugin", "libItemsList.so", "--set-level", "warning"] + place)
    #expect(set.status == 0, "\(set.stderr)")
    #expect(PluginLogLevels(dataDirectory: data.path).levels == ["ItemsListPlugin": .warning])
    // A damaged file is never overwritten.
    let damaged = Data("not json".utf8)
    try damaged.write(to: URL(fileURLWithPath: PluginLogLevels(dataDirectory: data.path).path))
    let refused = try ProcessRunner.vivarium(["log", "--plugin", "ItemsList", "--set-level", "error"] + place)
    #expect(refused.status == 1)
    #expect(refused.stderr.contains("log-levels.json"))
    #expect(try Data(contentsOf: URL(fileURLWithPath: data.path + "/log-levels.json")) == damaged)
  }

  /// Each mistake exits 2 naming the argument, or 1 naming the plugin not found.
  @Test(
    arguments: [
      (["--level", "loud"], Int32(2), "--level"),
      (["--set-level", "info"], 2, "--set-level"),
      (["--plugin", "ItemsList", "--set-level", "loud"], 2, "--set-level"),
      (["--plugin", "ItemsList", "--set-level", "info", "--follow"], 2, "--follow"),
      (["ItemsList"], 2, "'ItemsList'"),
      (["--plugin", "Nothing"], 1, "'Nothing'"),
      (["--plugin", "Nothing", "--set-level", "info"], 1, "'Nothing'"),
    ])
  func refuses(arguments: [String], status: Int32, named: String) throws {
    let result = try ProcessRunner.vivarium(["log"] + arguments + place)
    #expect(result.status == status, "\(result.stderr)")
    #expect(result.stderr.contains(named), "\(result.stderr)")
  }

  /// `--follow` shows the last lines, then each new one, across the log's
  /// renaming, until SIGTERM, and exits 0.
  @Test func followShowsNewLinesAcrossARenameUntilSIGTERM() async throws {
    try writeLog()
    let process = SpawnedProcess()
    process.executableURL = URL(fileURLWithPath: BuildProducts.vivarium)
    process.arguments = ["log", "--follow", "--json", "--level", "warning", "--data", data.path]
    process.environment = ProcessRunner.environment([:])
    let out = Pipe()
    process.standardOutput = out
    process.standardError = FileHandle.nullDevice
    process.standardInput = FileHandle.nullDevice
    let seen = Mutex(Data())
    out.fileHandleForReading.readabilityHandler = { handle in
      let chunk = handle.availableData
      seen.withLock { $0.append(chunk) }
    }
    try process.run()
    defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
    // The whole lines written so far.
    let messages = { () -> [String?] in
      let text = String(decoding: seen.withLock { $0 }, as: UTF8.self)
      let whole = text.hasSuffix("\n") ? text : String(text[..<(text.lastIndex(of: "\n") ?? text.startIndex)])
      return (try? lines(whole).map(\.message)) ?? []
    }
    try await waitUntil("the last lines") { messages() == ["low", "failed"] }
    let path = data.path + "/" + LogRecord.fileName
    let append = { (line: String) in
      let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
      try handle.seekToEnd()
      try handle.write(contentsOf: Data((line + "\n").utf8))
      try handle.close()
    }
    try append("2026-01-01T00:00:04Z info [ItemsListPlugin] items:list: quiet")
    try append("2026-01-01T00:00:05Z error [ItemsListPlugin] items:list: before the rename")
    try FileManager.default.removeItem(atPath: data.path + "/" + LogRecord.previousFileName)
    try FileManager.default.moveItem(atPath: path, toPath: data.path + "/" + LogRecord.previousFileName)
    _ = try data.write(LogRecord.fileName, Data(), mode: 0o600)
    try append("2026-01-01T00:00:06Z warning [ItemsListPlugin] items:list: after the rename")
    try await waitUntil("the new lines") { messages() == ["low", "failed", "before the rename", "after the rename"] }
    kill(process.processIdentifier, SIGTERM)
    process.waitUntilExit()
    #expect(process.terminationReason == .exit && process.terminationStatus == 0)
  }

  private func waitUntil(_ what: String, _ condition: () -> Bool) async throws {
    let deadline = ContinuousClock.now + .seconds(TestServices.settleLimit)
    while !condition() {
      guard ContinuousClock.now < deadline else { throw PluginSwitchTests.WaitedTooLong(what: what) }
      try await Task.sleep(for: .milliseconds(20))
    }
  }
}
