import Foundation
import Testing
import VivariumRuntime
import VivariumSupport

@Suite("Session commands")
@MainActor
struct SessionCommandTests {
  @Test(
    arguments: [
      ("tap tabs/deleteAll", SessionCommand.tap("tabs/deleteAll")),
      ("select items 2", .select("items", row: "2")),
      ("type query blue mug", .type("query", text: "blue mug")),
      ("type query \"  spaced \"", .type("query", text: "  spaced ")),
      ("open a:b/c:d", .open("a:b/c:d")),
      ("  back  ", .back),
      ("exit", .quit),
      ("wait 5s", .wait(5)),
      ("wait 300ms", .wait(0.3)),
      ("wait 2m", .wait(120)),
      ("wait 1.5", .wait(1.5)),
      ("tree", .tree(link: false)),
      ("tree  --link", .tree(link: true)),
    ])
  func parses(line: String, command: SessionCommand) throws {
    #expect(try SessionCommand.parse(line) == command)
  }

  @Test func blankLinesAndCommentsAreNothing() throws {
    #expect(try SessionCommand.parse("") == nil)
    #expect(try SessionCommand.parse("   # a comment") == nil)
  }

  /// Each mistake's kind, and the fact its message carries: the word not
  /// known, the command's usage line, or the duration refused.
  @Test(
    arguments: [
      ("jump", SessionCommand.ParseError.Kind.unknownCommand, "'jump'"),
      ("tap", .usage, "tap ADDRESS"),
      ("select items", .usage, "select ADDRESS ROW"),
      ("back now", .usage, "back"),
      ("tree --bogus", .usage, "tree [--link]"),
      ("tree --link --link", .usage, "tree [--link]"),
      ("wait", .usage, "wait DURATION"),
      ("wait 25h", .badDuration, "'25h'"),
      ("wait -1s", .badDuration, "'-1s'"),
      ("wait soon", .badDuration, "'soon'"),
      ("wait nan", .badDuration, "'nan'"),
    ])
  func refusesWithUsage(line: String, kind: SessionCommand.ParseError.Kind, fact: String) {
    #expect {
      try SessionCommand.parse(line)
    } throws: { error in
      let error = error as? SessionCommand.ParseError
      return error?.kind == kind && error?.message.contains(fact) == true
    }
  }

  // Wording matters: the usage line is what a person at the prompt reads to type the command right.
  @Test func aUsageMistakeShowsTheUsageLine() {
    #expect {
      try SessionCommand.parse("select items")
    } throws: { error in
      (error as? SessionCommand.ParseError)?.message == "usage: select ADDRESS ROW"
    }
  }

  /// Every spelling the command enumeration declares parses, as its name
  /// does, and is refused with its own usage line when its words are missing
  /// or one is extra: a command declared but not dispatched, or dispatched to
  /// another's usage, fails here. A word in brackets (`log [PLUGIN]`) may
  /// be left out.
  @Test(arguments: SessionCommand.Name.allCases)
  func everyDeclaredCommandParses(name: SessionCommand.Name) throws {
    let words = name.arguments.split(separator: " ")
    let arguments = words.filter { !$0.hasPrefix("[") }.map { _ in "1" }
    let command = try SessionCommand.parse(([name.rawValue] + arguments).joined(separator: " "))
    #expect(command != nil)
    for spelling in [name.rawValue] + name.aliases {
      #expect(try SessionCommand.parse(([spelling] + arguments).joined(separator: " ")) == command)
      let extra = Array(repeating: "extra", count: words.count + 1).joined(separator: " ")
      let wrong = arguments.isEmpty ? "\(spelling) \(extra)" : spelling
      #expect {
        try SessionCommand.parse(wrong)
      } throws: { error in
        let error = error as? SessionCommand.ParseError
        return error?.kind == .usage && error?.message.hasPrefix("usage: \(spelling)") == true
      }
    }
  }

  /// The help lists each command once by its usage, and each of its flags
  /// once, and nothing else; aliases stay out of it and of the names.
  @Test func theHelpListsEachCommandOnce() {
    let forms = SessionCommand.commandList.split(separator: "\n").filter { $0.hasPrefix("  ") }.map {
      $0.dropFirst(2).components(separatedBy: "  ")[0]
    }
    let expected = SessionCommand.Name.allCases.flatMap { name in
      [([name.rawValue] + (name.arguments.isEmpty ? [] : [name.arguments])).joined(separator: " ")]
        + name.options.map { "\(name.rawValue) \($0.flag)" }
    }
    #expect(forms == expected)
    #expect(SessionCommand.names == SessionCommand.Name.allCases.map(\.rawValue))
    let aliases = SessionCommand.Name.allCases.flatMap(\.aliases)
    #expect(Set(aliases).isDisjoint(with: SessionCommand.names))
    #expect(aliases.allSatisfy { !forms.joined(separator: " ").split(separator: " ").contains(Substring($0)) })
  }
}

/// Whole sessions from script files, compared with the expected screens, and
/// the things a person must be able to do without reading code.
@Suite("Recorded sessions")
@MainActor
struct RecordedSessionTests {
  /// Expected transcripts live here, as NAME.expected (stdout) and NAME.stderr.
  private static let sessions = BuildProducts.repository + "/Tests/VivariumTests/Sessions"
  /// The scripts: the demo's tour, and one full of mistakes.
  private static let scripts = [
    "tour": BuildProducts.repository + "/Scripts/tour.vivarium", "errors": sessions + "/errors.vivarium",
  ]

  private func run(_ script: String, plugins: String, data: String, extra: [String] = [], in directory: String? = nil)
    throws -> ProcessResult
  {
    try ProcessRunner.vivarium(
      ["run", "--plugins", plugins, "--data", data, "--script", script] + extra,
      environment: ["VIVARIUM_NOW": "2026-11-21T12:00:00Z", "COLUMNS": "80"], directory: directory)
  }

  /// Each transcript is the same whether every plugin runs in a process of
  /// its own (the default) or all in the host's (`--in-process`).
  @Test(arguments: ["tour", "errors"], [[], ["--in-process"]])
  func transcriptMatchesTheExpectedScreens(name: String, mode: [String]) throws {
    // Run where the directories are ./plugins and ./data, as Scripts/record-session
    // does: the commands its hints name repeat byte for byte.
    let work = try TemporaryDirectory()
    let made = try ProcessRunner.run(
      BuildProducts.repository + "/Scripts/make-plugin-dir", [BuildProducts.directory, work.path + "/plugins"])
    try #require(made.status == 0, "\(made.stderr)")
    // The tour's person granted the forecast its host; the other script's did not.
    let allow = name == "tour" ? ["--allow", "Weather"] : []
    let result = try run(
      try #require(Self.scripts[name]), plugins: "plugins", data: "data", extra: mode + allow, in: work.path)
    let expected = try String(contentsOfFile: "\(Self.sessions)/\(name).expected", encoding: .utf8)
    #expect(result.stdout == expected, "update with: Scripts/record-session \(name)")
    let wide = result.stdout.split(separator: "\n").filter { $0.count > 80 }
    #expect(wide.isEmpty, "lines wider than an 80-column terminal: \(wide)")
    let expectedErrors = (try? String(contentsOfFile: "\(Self.sessions)/\(name).stderr", encoding: .utf8)) ?? ""
    #expect(result.stderr == expectedErrors)
    #expect(result.status == (expectedErrors.isEmpty ? 0 : 1))
  }

  @Test func favouritesAreStillThereAfterARestart() throws {
    let plugins = try BuildProducts.demoPluginDirectory()
    let data = try TemporaryDirectory()
    let first = try data.write("first.vivarium", Data("select results 3\nquit\n".utf8))
    let second = try data.write("second.vivarium", Data("tap favourites\nquit\n".utf8))
    _ = try run(first, plugins: plugins.path, data: data.path, extra: ["--start", "products:search"])
    let again = try run(second, plugins: plugins.path, data: data.path, extra: ["--start", "products:search"])
    #expect(again.status == 0, "\(again.stderr)")
    #expect(again.stdout.contains("1 favourite · page 1 of 1"))
    #expect(again.stdout.contains("  (3) Teapot"))
  }

  /// A module a script's line closes, and whose roles outlive it, is
  /// reported under that line, not the next.
  @Test func aLeakIsReportedUnderTheLineThatCausedIt() throws {
    let plugins = try TemporaryDirectory()
    for name in ["libFaulty.so", "libItemsList.so"] {
      try FileManager.default.createSymbolicLink(
        atPath: plugins.path + "/" + name, withDestinationPath: BuildProducts.directory + "/" + name)
    }
    let data = try TemporaryDirectory()
    let script = try data.write("s.vivarium", Data("open faulty:leak\nback\nscreen\n".utf8))
    let result = try run(
      script, plugins: plugins.path, data: data.path, extra: ["--json", "--start", "items:list"])
    let steps = try result.stdout.split(separator: "\n").map {
      try #require(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
    }
    func errors(_ command: String) -> [String] {
      steps.first { $0["command"] as? String == command }?["errors"] as? [String] ?? []
    }
    #expect(errors("back").contains { $0.contains("faulty:leak") }, "\(result.stdout)")
    #expect(!errors("screen").contains { $0.contains("faulty:leak") }, "\(result.stdout)")
  }

  @Test func jsonModePrintsOneObjectPerStep() throws {
    let plugins = try BuildProducts.demoPluginDirectory()
    let data = try TemporaryDirectory()
    let script = try data.write("s.vivarium", Data("tap signIn\nbogus\n".utf8))
    let result = try run(script, plugins: plugins.path, data: data.path, extra: ["--json"])
    let steps = try result.stdout.split(separator: "\n").map {
      try #require(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
    }
    #expect(steps.map { $0["command"] as? String } == ["open login:form", "tap signIn", "bogus"])
    #expect((steps[2]["errors"] as? [String])?.first == "unknown command 'bogus'; type 'help' for the list")
    #expect(result.status == 1)
  }

  @Test func withoutAManifestOrStartTheCatalogIsShown() throws {
    let data = try TemporaryDirectory()
    let script = try data.write("s.vivarium", Data("open items:list\n".utf8))
    let result = try ProcessRunner.vivarium(["run", "--data", data.path, "--script", script])
    #expect(result.status == 0, "\(result.stderr)")
    let catalog = try #require(result.stdout.components(separatedBy: "> open items:list").first)
    #expect(catalog.contains("\ndashboard:home  libDashboard.so"), "the catalog comes before the first command")
    #expect(result.stdout.contains("> open items:list\n── items:list ─"))
  }
}

@Suite("Session behaviour")
@MainActor
struct SessionBehaviourTests {
  private func session() throws -> Session {
    let runtime = HostRuntime(catalog: BuildProducts.demoCatalog, services: try TestServices.make())
    return Session(
      runtime: runtime, renderer: TextRenderer(), plugins: "plugins", routes: "routes", scheme: nil,
      settleLimit: TestServices.settleLimit)
  }

  @Test func anAlertMustBeAcknowledgedBeforeAnythingElse() async throws {
    let session = try session()
    _ = await session.execute("open items:list")
    session.runtime.notifications.alert(title: "Save failed", message: "The disk is full.")
    let blocked = await session.execute("tap deleteAll")
    #expect(blocked.errors.count == 1 && blocked.errors[0].contains("'ok'"), "the command that closes it")
    #expect(blocked.output.contains("║ The disk is full."))
    #expect(session.runtime.top?.tree.map { "\($0)" }?.contains("Deleted") == false)
    let acknowledged = await session.execute("ok")
    #expect(acknowledged.errors.isEmpty)
    #expect(acknowledged.alert == nil)
    #expect(await session.execute("tap deleteAll").errors.isEmpty)
    #expect(await session.execute("ok").errors.count == 1, "no alert to acknowledge")
  }

  @Test func noticesShowOnceAfterTheScreen() async throws {
    let session = try session()
    _ = await session.execute("open products:search")
    let step = await session.execute("select results 2")
    #expect(step.output.last == "✓ ★ Red mug is now a favourite.")
    #expect(await session.execute("screen").notices.isEmpty)
  }

  @Test func moduleProblemsAreReportedAsErrors() async throws {
    let session = try session()
    _ = await session.execute("open items:detail:1")
    let step = await session.execute("tap back")
    // The module that asked, first, then what it asked for.
    #expect(step.errors.count == 1 && step.errors[0].hasPrefix("items:detail:1: "), "\(step.errors)")
    #expect(step.errors.first?.contains("pop") == true)
  }

  @Test func waitMovesTheVirtualClockAndTheFeedRefreshes() async throws {
    let session = try session()
    _ = await session.execute("open feed:home")
    let feed = try #require(session.runtime.top)
    #expect(feed.tree?.contains(.text("Loading posts…", tone: .muted)) == true, "loading takes time on the clock")
    #expect(await session.execute("wait 1s").errors.isEmpty)
    #expect(feed.tree?.contains(.text("Updated 12:00:00", tone: .muted)) == true)
    #expect(await session.execute("wait 30s").errors.isEmpty)
    #expect(feed.tree?.contains(.text("Updated 12:00:30", tone: .muted)) == true)
  }

  @Test func workStillBusyAtTheLimitIsNamedAndTheScreenDrawnAnyway() async throws {
    let runtime = HostRuntime(catalog: WorkerModule.catalog(), services: try TestServices.make())
    let session = Session(
      runtime: runtime, renderer: TextRenderer(), plugins: "", routes: "", scheme: nil, settleLimit: 0.05)
    _ = await session.execute("open probe:worker")
    let step = await session.execute("tap hang")
    // The limit, the module and its work.
    #expect(step.errors.count == 1, "\(step.errors)")
    #expect(
      ["50 ms", "probe:worker", "'hang'"].allSatisfy { step.errors.first?.contains($0) == true }, "\(step.errors)")
    #expect(step.screen != nil)
  }

  @Test func aSessionAtATerminalDrawsAtOnceAndDoesNotWaitForWork() async throws {
    let runtime = HostRuntime(catalog: WorkerModule.catalog(), services: try TestServices.make())
    let session = Session(
      runtime: runtime, renderer: TextRenderer(width: 40), plugins: "", routes: "", scheme: nil, settles: false)
    #expect(await session.execute("open probe:lazy").output.contains("(probe:lazy: loading…)"))
    let step = await session.execute("open probe:worker")
    #expect(await session.execute("tap hang").errors.isEmpty, "work that never ends does not hold the prompt")
    #expect(runtime.work.inFlight == ["probe:lazy: 'fetch'", "probe:worker: 'hang'"])
    #expect(step.errors.isEmpty)
  }
}
