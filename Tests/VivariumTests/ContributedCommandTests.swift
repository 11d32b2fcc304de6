import Foundation
import Testing
import ViperKit
import ViperKitHosting
import VivariumSupport

@testable import VivariumLoading
@testable import VivariumRuntime
@testable import VivariumServe
@testable import VivariumTools

/// Commands modules contribute (ViperKit 3.1): checked in their contracts,
/// listed for the screen showing their modules with the first declared
/// winning, run by their id or their key, and checked across an app.
@Suite("Contributed commands")
@MainActor
struct ContributedCommandTests {
  // MARK: Contracts

  @Test func aKeyIsOneCharacterOrCtrlAndALetter() {
    for name in ["r", "R", "+", "é", "Ctrl-R"] { #expect(CommandCheck.key(named: name)?.name == name, "\(name)") }
    for name in ["", " ", "rr", "\u{7}", "Ctrl-r", "Ctrl-1", "Ctrl-", "ctrl-R", "Ctrl-RR"] {
      #expect(CommandCheck.key(named: name) == nil, "\(name)")
    }
    #expect(CommandKey.ctrl("r") == CommandKey.ctrl("R") && CommandKey.ctrl("r").name == "Ctrl-R")
  }

  @Test func eachBadCommandIsAProblemOfTheContract() throws {
    let good = Contract(
      urn: "a:b", summary: "s",
      commands: [CommandSpec("refresh", title: "Refresh", key: CommandKey("r")), CommandSpec("sort", title: "Sort")])
    #expect(ContractCheck.problems(good) == [])
    let bad: [CommandSpec] = [
      CommandSpec("not-a-name", title: "T"), CommandSpec("twice", title: "T"), CommandSpec("twice", title: "T"),
      CommandSpec("untitled", title: " "), CommandSpec("space", title: "T", key: CommandKey(" ")),
      CommandSpec("digit", title: "T", key: .ctrl("1")), CommandSpec("one", title: "T", key: CommandKey("x")),
      CommandSpec("other", title: "T", key: CommandKey("x")),
    ]
    let problems = CommandCheck.problems(Contract(urn: "a:b", summary: "s", commands: bad))
    #expect(problems.count == 6, "\(problems)")
    for id in ["not-a-name", "twice", "untitled", "space", "digit", "other"] {
      #expect(problems.contains { $0.contains("'\(id)'") }, "\(id): \(problems)")
    }
    // A plugin declaring one is refused before its code runs.
    let manifest = PluginManifest(
      name: "Bad", contracts: [Contract(urn: "a:b", summary: "s", commands: bad)], sdkVersion: .current,
      compiler: swiftCompilerIdentity())
    guard case .failure(let refused) = PluginManifest.record(manifest.json, path: "/p/x.so", validatingContracts: true)
    else {
      Issue.record("a contract with bad commands was accepted")
      return
    }
    #expect(refused.kind == .invalidContract && Set(refused.checks) == [CheckID.contractWellformed.rawValue])
  }

  @Test func aContractOfAnEarlierSDKDecodesWithNoCommands() throws {
    let contract = Contract(urn: "a:b", summary: "s", commands: [CommandSpec("go", title: "Go", key: .ctrl("g"))])
    var object = try #require(JSONSerialization.jsonObject(with: JSONEncoder().encode(contract)) as? [String: Any])
    #expect(try JSONDecoder().decode(Contract.self, from: JSONEncoder().encode(contract)) == contract)
    object["commands"] = nil
    let older = try JSONDecoder().decode(Contract.self, from: JSONSerialization.data(withJSONObject: object))
    #expect(older.commands.isEmpty && older.urn == "a:b")
  }

  // MARK: On a screen

  static let parent = Contract(
    urn: "cmd:parent", summary: "Parent.",
    slots: [
      SlotSpec(name: "main", accepts: ["cmd:child:{n}"], kind: .stack, description: "Children."),
      SlotSpec(name: "tabs", accepts: ["cmd:first", "cmd:extra"], kind: .tabs, description: "Tabs."),
    ],
    commands: [
      CommandSpec("refresh", title: "Refresh", key: CommandKey("r")),
      CommandSpec("leave", title: "Leave", key: CommandKey("q")),
    ])
  static let child = Contract(
    urn: "cmd:child:{n}", summary: "Child.", arguments: [.required("n", .int, "Which.")],
    commands: [
      CommandSpec("sort", title: "Sort", key: CommandKey("r")), CommandSpec("refresh", title: "Refresh too"),
      CommandSpec("save", title: "Save", key: .ctrl("s")),
    ])
  static let first = Contract(urn: "cmd:first", summary: "First tab.")
  static let extra = Contract(
    urn: "cmd:extra", summary: "Second tab.", commands: [CommandSpec("hidden", title: "Hidden", key: CommandKey("h"))])

  /// The parent, two of its children in `main` and both tabs, the first shown.
  private func screen() async throws -> (ProbeRecorder, HostRuntime) {
    let recorder = ProbeRecorder()
    let plugins = [("Parent", [Self.parent]), ("Child", [Self.child]), ("Tabs", [Self.first, Self.extra])].map {
      name, contracts in
      PluginOutcome.loaded(
        LoadedPlugin(
          path: "lib\(name).so", name: name,
          factories: contracts.map { ProbeFactory(contract: $0, recorder: recorder).factory }))
    }
    let runtime = HostRuntime(catalog: PluginCatalog(outcomes: plugins), services: try TestServices.make())
    try await runtime.open("cmd:parent")
    let router = try #require(recorder.context("cmd:parent")).router
    router.embed("cmd:child:1", in: "main")
    router.embed("cmd:child:2", in: "main")
    router.embed("cmd:first", in: "tabs")
    router.embed("cmd:extra", in: "tabs")
    runtime.drain()
    return (recorder, runtime)
  }

  @Test func theFirstDeclaredWinsAndEachConflictIsSaidOnce() async throws {
    let (_, runtime) = try await screen()
    let commands = runtime.screenCommands()
    // The parent's, then its first child's once (the second is the same
    // module), not the hidden tab's.
    #expect(commands.map(\.id) == ["refresh", "leave", "sort", "refresh", "save"])
    #expect(
      commands.map(\.conflict) == [
        nil, .hostKey(does: "quit"), .sameKey(id: "refresh", plugin: "Parent"), .sameID(plugin: "Parent"), nil,
      ])
    #expect(runtime.command(forKey: "r")?.plugin == "Parent" && runtime.command(forKey: "q") == nil)
    #expect(runtime.command(forKey: "Ctrl-S")?.id == "save" && runtime.command(forKey: "h") == nil)
    #expect(runtime.commandIDs == ["refresh", "leave", "sort", "save"])
    #expect(runtime.notifications.takeNotices().filter { $0.tone == .warning }.count == 3)
    _ = runtime.screenCommands()
    #expect(runtime.notifications.takeNotices().isEmpty, "each conflict is said once")
  }

  @Test func aCommandReachesTheModuleOfferingItAndOnlyWhileItIsShown() async throws {
    let (recorder, runtime) = try await screen()
    recorder.clear()
    try runtime.run(command: "save")
    try runtime.run(command: "refresh")
    #expect(
      recorder.log == [
        "cmd:child:1:\(ViewEvent.command(id: "save"))", "cmd:parent:\(ViewEvent.command(id: "refresh"))",
      ])
    #expect(throws: ViewEventError.self) { try runtime.run(command: "hidden") }
    try #require(recorder.context("cmd:parent")).router.showChild(at: 1, in: "tabs")
    runtime.drain()
    try runtime.run(command: "hidden")
    #expect(recorder.log.last == "cmd:extra:\(ViewEvent.command(id: "hidden"))")
    // The session runs one by its id alone, or by `run`.
    let session = Session(
      runtime: runtime, renderer: TextRenderer(width: 80), plugins: "", routes: "", scheme: nil, settles: false)
    recorder.clear()
    #expect(await session.execute("sort").errors == [])
    #expect(await session.execute("run leave").errors == [])
    #expect(
      recorder.log == ["cmd:child:1:\(ViewEvent.command(id: "sort"))", "cmd:parent:\(ViewEvent.command(id: "leave"))"])
    #expect(await session.execute("help").output.joined().contains("hidden (h)"))
  }

  @Test func anIdIsACommandOnlyWhereAModuleOffersIt() throws {
    #expect(try SessionCommand.parse("save", commands: ["save"]) == .run("save"))
    #expect(try SessionCommand.parse("run save") == .run("save"))
    #expect(try SessionCommand.parse("open a:b", commands: ["open"]) == .open("a:b"), "the session's own win")
    for (line, commands) in [("save", [String]()), ("save now", ["save"])] {
      #expect {
        _ = try SessionCommand.parse(line, commands: commands)
      } throws: { ($0 as? SessionCommand.ParseError)?.kind == .unknownCommand }
    }
  }

  // MARK: The page

  @Test func thePageIsSentTheCommandsWithTheKeysThatRunThem() async throws {
    let (_, runtime) = try await screen()
    let update = PageUpdate(
      tab: nil, page: PageRenderer.page([]), since: nil, runtime: runtime, status: nil, errors: [])
    #expect(update.commands.map(\.id) == ["refresh", "leave", "sort", "refresh", "save"])
    #expect(update.commands.map(\.key) == ["r", nil, nil, nil, "Ctrl-S"])
    #expect(update.commands.map { $0.conflict != nil } == [false, true, true, true, false])
    #expect(PageAssets.html.contains("id=\"screen-command-list\"") && PageAssets.script.contains("\"run \""))
    #expect(WebTab.allowed.contains(.run))
  }

  // MARK: A whole app

  @Test func theAppCheckFindsConflictsOfModulesThatCanShareAScreen() {
    let recorder = ProbeRecorder()
    let outcomes = [Self.parent, Self.child, Self.first, Self.extra].enumerated().map { index, contract in
      PluginOutcome.loaded(
        LoadedPlugin(
          path: "plugins/lib\(index).so", name: "P\(index)",
          factories: [ProbeFactory(contract: contract, recorder: recorder).factory]))
    }
    let manifest = AppManifest(name: "Commands", start: "cmd:parent", scheme: "cmd", path: "plugins/app.json")
    let findings = AppCheck.findings(AppFlow(catalog: PluginCatalog(outcomes: outcomes), manifest: manifest))
      .filter { $0.name.hasPrefix("app.command-") }
    #expect(
      findings.map(\.name).sorted() == [
        "app.command-id-conflict", "app.command-key-conflict", "app.command-key-conflict",
      ])
    #expect(findings.allSatisfy { $0.severity == .failed && $0.module != nil })
    #expect(Set(findings.flatMap(\.files)) == ["plugins/lib0.so", "plugins/lib1.so"])
    #expect(AppFinding.names.map(\.name).contains("app.command-key-conflict"))
  }
}
