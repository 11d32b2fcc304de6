import Foundation
import Testing
import ViperKit

@testable import VivariumLoading
@testable import VivariumRuntime
@testable import VivariumSupport

/// Plugins turned off and on while the app runs, in every session: a
/// screen of the plugin closes back to the one below, its module embedded
/// elsewhere says it is off and offers to turn it on, its routes and its
/// services leave, and turning it on brings all of it back.
@Suite("Plugins turned off and on while the app runs")
@MainActor
struct PluginSwitchTests {
  /// The faulty plugin's declared name.
  static let faulty = "FaultyPlugin"

  @Test func offLeavesEverySessionAndOnComesBackInPlace() async throws {
    let host = try await FaultyHost(plugins: ["Faulty", "FaultyFrame"])
    let consumer = host.runtime
    let other = consumer.host.openSession()
    // One session calls the faulty service; the other shows a frame
    // embedding a faulty module, with a faulty screen pushed over it.
    try await consumer.open("ask:echo")
    try await consumer.act(.tap(button: "ask"))
    _ = try await host.waitForText("Answer 1")
    try await other.open("frame:trap?at=tap")
    try await other.open("faulty:demo")
    await other.settleAll()
    #expect(other.layers[0].map(\.urn) == ["frame:trap?at=tap", "faulty:demo"])

    let off = await consumer.host.turnOff(Self.faulty)
    #expect(off.problem == nil && off.files.map(PathName.lastComponent) == ["libFaulty.so"])
    #expect(PluginSwitches(dataDirectory: host.data.path).disabled == [Self.faulty], "the choice is kept")
    // A new build of it (as `--watch` sees one) is refused while it is off.
    let reloader = try #require(consumer.host.reloader)
    let rebuilt = await consumer.host.reload(await reloader.load(try #require(off.files.first)))
    #expect(!rebuilt.accepted && rebuilt.refusal?.kind == .disabled)
    // Its screen closed back to the one below; its embedded module says it is off.
    #expect(other.layers[0].map(\.urn) == ["frame:trap?at=tap"])
    try await Self.waitUntil("the embedded module says it is off") { Self.showsOff(other) }
    // Its routes left: opening or embedding one of its modules says it is off.
    do {
      _ = try consumer.catalog.resolve("faulty:demo")
      Issue.record("a module of a plugin turned off resolved")
    } catch {
      #expect(error.kind == .pluginOff)
    }
    try await other.open("frame:exit?at=tap")
    #expect(other.takeProblems().map(\.cause).contains(.pluginOff))
    // Its service is unavailable to the consumer.
    try await consumer.act(.tap(button: "ask"))
    _ = try await host.waitForText("Failed 2 (unavailable)")

    // Turned on from the module that says it is off, in the other session.
    try await other.back()
    try await other.act(.tap(button: "inner/" + PluginFailure.enableButton))
    try await Self.waitUntil("the choice kept") { PluginSwitches(dataDirectory: host.data.path).disabled.isEmpty }
    try await Self.waitUntil("the embedded module back") { !Self.showsOff(other) }
    #expect(
      other.nodes.map(\.urn).contains("faulty:trap?at=tap"), "the embedded module is back: \(other.nodes.map(\.urn))")
    _ = try consumer.catalog.resolve("faulty:demo")
    try await consumer.act(.tap(button: "ask"))
    _ = try await host.waitForText("Answer 3")
  }

  /// Changes are carried out one at a time, in the order asked: a plugin
  /// turned off while it is being turned on (its process starting) ends off.
  @Test func offAskedWhileOnIsUnderWayEndsOff() async throws {
    let host = try await FaultyHost(plugins: ["Faulty", "FaultyFrame"])
    let shared = host.runtime.host
    _ = await shared.turnOff(Self.faulty)
    let on = Task.immediate { await shared.turnOn(Self.faulty) }
    let off = Task.immediate { await shared.turnOff(Self.faulty) }
    let (turnedOn, turnedOff) = (await on.value, await off.value)
    #expect(turnedOn.on && !turnedOff.on && turnedOn.problem == nil && turnedOff.problem == nil)
    #expect(PluginSwitches(dataDirectory: host.data.path).isDisabled(Self.faulty))
    #expect(!shared.catalog.loaded.contains { $0.name == Self.faulty })
    #expect(shared.catalog.rejected.contains { $0.kind == .disabled && $0.plugin == Self.faulty })
  }

  @Test func aChoiceSavedByAnotherProcessIsFollowed() async throws {
    let host = try await FaultyHost(plugins: ["Faulty", "FaultyFrame"])
    try await host.runtime.open("frame:trap?at=tap")
    await host.runtime.settleAll()
    // As `vivarium plugins disable` beside the app does.
    var elsewhere = PluginSwitches(dataDirectory: host.data.path)
    #expect(try elsewhere.set(Self.faulty, enabled: false))
    await host.runtime.host.takeSwitchesSavedElsewhere()
    #expect(host.runtime.catalog.rejected.contains { $0.kind == .disabled && $0.plugin == Self.faulty })
    #expect(host.runtime.notifications.takeNotices().contains { $0.text.contains(Self.faulty) })
    try await Self.waitUntil("the embedded module says it is off") { Self.showsOff(host.runtime) }
    // A frame opened while it is off cannot embed its module.
    try await host.runtime.open("frame:exit?at=tap")
    #expect(host.runtime.top?.allChildren.isEmpty == true)
    #expect(try elsewhere.set(Self.faulty, enabled: true))
    await host.runtime.host.takeSwitchesSavedElsewhere()
    #expect(host.runtime.catalog.loaded.contains { $0.name == Self.faulty })
    try await Self.waitUntil("the embedded module back") { !Self.showsOff(host.runtime) }
    // The frame that missed it is built again, and embeds it.
    try await Self.waitUntil("the frame's module embedded") {
      host.runtime.top?.allChildren.map(\.urn) == ["faulty:exit?at=tap"]
    }
  }

  /// Whether a module of `session` says the faulty plugin is off.
  static func showsOff(_ session: HostRuntime) -> Bool {
    session.nodes.contains { node in
      node.tree?.contains { if case .button(PluginFailure.enableButton, _) = $0 { true } else { false } } == true
    }
  }

  /// Waits, within ``TestServices/settleLimit``, until `condition` holds:
  /// a process's end and a reload arrive on their own time.
  static func waitUntil(_ what: String, _ condition: () -> Bool) async throws {
    let deadline = ContinuousClock.now + .seconds(TestServices.settleLimit)
    while !condition() {
      guard ContinuousClock.now < deadline else { throw WaitedTooLong(what: what) }
      try await Task.sleep(for: .milliseconds(10))
    }
  }

  struct WaitedTooLong: Error {
    let what: String
  }
}

/// The plugins turned off, as the data directory keeps them.
@Suite struct PluginSwitchesStoreTests {
  @Test func aChoiceIsKeptAndAnotherProcessesChangeIsRead() throws {
    let data = try TemporaryDirectory()
    var mine = PluginSwitches(dataDirectory: data.path)
    var theirs = PluginSwitches(dataDirectory: data.path)
    #expect(try mine.set("Weather", enabled: false))
    #expect(try !mine.set("Weather", enabled: false), "already off: nothing changed")
    #expect(theirs.isStale)
    theirs.reload()
    #expect(theirs.isDisabled("Weather") && !theirs.isStale)
    #expect(try theirs.set("Weather", enabled: true))
    #expect(mine.isStale)
    mine.reload()
    #expect(mine.disabled.isEmpty)
  }

  @Test func aFileThatCannotBeReadIsNeverOverwritten() throws {
    let data = try TemporaryDirectory()
    let path = data.path + "/plugins.json"
    try Data("not json".utf8).write(to: URL(fileURLWithPath: path))
    var switches = PluginSwitches(dataDirectory: data.path)
    #expect(switches.damage?.contains(path) == true)
    #expect(switches.disabled.isEmpty, "every plugin counts as on")
    #expect(throws: ChoicesFileError.self) { try switches.set("Weather", enabled: false) }
    #expect(try String(contentsOfFile: path, encoding: .utf8) == "not json")
  }
}

/// What each plugin is doing and what it costs, as the app's plugins
/// screen and `vivarium plugins --live` show it.
@Suite("What each plugin costs")
@MainActor
struct PluginActivityTests {
  @Test func eachPluginsStateProcessMemoryModulesAndCallsAreCounted() async throws {
    let host = try await FaultyHost(plugins: ["Faulty", "FaultyFrame"])
    var byName = Dictionary(uniqueKeysWithValues: host.runtime.host.activity().map { ($0.plugin, $0) })
    #expect(byName.values.allSatisfy { $0.state == .notStarted || $0.state == .idle }, "\(byName)")

    try await host.runtime.open("ask:echo")
    try await host.runtime.act(.tap(button: "ask"))
    _ = try await host.waitForText("Answer 1")
    #expect(host.runtime.host.activity().allSatisfy { $0.residentKiB == nil }, "nothing sampled yet")
    await host.runtime.host.sampleProcesses()
    byName = Dictionary(uniqueKeysWithValues: host.runtime.host.activity().map { ($0.plugin, $0) })
    let consumer = try #require(byName["FaultyFramePlugin"], "\(byName.keys)")
    #expect(consumer.state == .running && consumer.modules == 1)
    #expect(consumer.pid == host.process(named: "libFaultyFrame.so")?.pid)
    #expect((consumer.residentKiB ?? 0) > 0 && (consumer.proportionalKiB ?? 0) > 0)
    #expect(consumer.businessServiceCalls == 1, "the call to the faulty service")
    let provider = try #require(byName[PluginSwitchTests.faulty])
    #expect(provider.state == .idle && provider.modules == 0, "it serves, and shows nothing")
    // The host's second sample gives each process's share of a core since its first.
    #expect(host.runtime.host.activity().allSatisfy { $0.cpuPercent == nil }, "one sample gives no share")
    await host.runtime.host.sampleProcesses()
    #expect(host.runtime.host.activity().allSatisfy { $0.pid == nil || $0.cpuPercent != nil })
    #expect(host.runtime.host.activity().allSatisfy { $0.pid == nil || $0.cpuPercent != nil }, "the last share, kept")

    _ = await host.runtime.host.turnOff(PluginSwitchTests.faulty)
    byName = Dictionary(uniqueKeysWithValues: host.runtime.host.activity().map { ($0.plugin, $0) })
    #expect(byName[PluginSwitchTests.faulty]?.state == .disabled && byName[PluginSwitchTests.faulty]?.pid == nil)
  }

  @Test func thePluginsScreenShowsEachPluginAndEndsRestartsAndTurnsThemOffAndOn() async throws {
    let host = try await FaultyHost(plugins: ["Faulty", "FaultyFrame"])
    let runtime = host.runtime
    try await runtime.open("ask:echo")
    try await runtime.open("vivarium:plugins")
    await runtime.settleAll()
    let screen = try #require(runtime.top)
    #expect(screen.urn == "vivarium:plugins" && screen.pluginPath.isEmpty, "a screen of the host's own")
    func rows() -> [String: ListRow] {
      guard case .stack(_, let lines)? = screen.tree else { return [:] }
      for case .list(PluginsScreen.listID, let rows) in lines {
        return Dictionary(uniqueKeysWithValues: rows.map { ($0.id, $0) })
      }
      return [:]
    }
    #expect(rows()["FaultyFramePlugin"]?.marker?.label == PluginActivity.State.running.rawValue, "\(rows())")

    // The consumer's process, ended and restarted from the screen.
    try await runtime.act(.select(list: PluginsScreen.listID, row: "FaultyFramePlugin"))
    try await runtime.act(.tap(button: PluginsScreen.endID))
    try await PluginSwitchTests.waitUntil("ended") {
      (screen.module?.presenter as? PluginsScreen.Presenter)?.refresh()
      return rows()["FaultyFramePlugin"]?.marker?.label == PluginActivity.State.crashed.rawValue
    }
    try await runtime.act(.tap(button: PluginsScreen.restartID))
    try await PluginSwitchTests.waitUntil("restarted") {
      (screen.module?.presenter as? PluginsScreen.Presenter)?.refresh()
      return rows()["FaultyFramePlugin"]?.marker?.label == PluginActivity.State.running.rawValue
    }
    #expect(host.process(named: "libFaultyFrame.so")?.restarts == 1)

    // The provider, turned off and on from the screen.
    try await runtime.act(.select(list: PluginsScreen.listID, row: PluginSwitchTests.faulty))
    try await runtime.act(.tap(button: PluginsScreen.turnOffID))
    try await PluginSwitchTests.waitUntil("turned off") {
      rows()[PluginSwitchTests.faulty]?.marker?.label == PluginActivity.State.disabled.rawValue
    }
    try await runtime.act(.tap(button: PluginsScreen.turnOnID))
    try await PluginSwitchTests.waitUntil("turned on") {
      runtime.catalog.loaded.contains { $0.name == PluginSwitchTests.faulty }
    }
  }

  /// Two files declaring one name (both turned off, so both listed) are two
  /// rows of their own; selecting the second shows its file's actions.
  @Test func twoFilesOfOneNameAreTwoRows() throws {
    func off(_ file: String) -> PluginActivity {
      PluginActivity(
        plugin: "Twin", file: file, state: .disabled, pid: nil, cpuPercent: nil, residentKiB: nil,
        proportionalKiB: nil, modules: 0, hostServiceCalls: 0, businessServiceCalls: 0, httpRequests: 0, restarts: 0)
    }
    let plugins = [off("/a/libTwin.so"), off("/b/libTwin.so")]
    let ids = PluginsScreen.rowIDs(plugins)
    #expect(Set(ids.values).count == 2 && ids["/a/libTwin.so"] == "Twin")
    let tree = PluginsScreen.tree(plugins, order: .name, selected: ids["/b/libTwin.so"])
    #expect(tree.contains(.text("/b/libTwin.so", tone: .muted)), "the second file's actions")
    #expect(!tree.contains(.text("/a/libTwin.so", tone: .muted)))
  }

  @Test func sortingPutsTheLargestFirstAndTiesByName() {
    func plugin(_ name: String, cpu: Double?, memory: Int?) -> PluginActivity {
      PluginActivity(
        plugin: name, file: "/p/lib\(name).so", state: .running, pid: 1, cpuPercent: cpu, residentKiB: memory,
        proportionalKiB: memory, modules: 0, hostServiceCalls: 0, businessServiceCalls: 0, httpRequests: 0,
        restarts: 0)
    }
    let plugins = [plugin("b", cpu: 1, memory: 10), plugin("a", cpu: 1, memory: nil), plugin("c", cpu: 5, memory: 30)]
    #expect(plugins.sorted { PluginActivity.SortKey.cpu.orders($0, before: $1) }.map(\.plugin) == ["c", "a", "b"])
    #expect(plugins.sorted { PluginActivity.SortKey.memory.orders($0, before: $1) }.map(\.plugin) == ["c", "b", "a"])
    #expect(plugins.sorted { PluginActivity.SortKey.name.orders($0, before: $1) }.map(\.plugin) == ["a", "b", "c"])
  }

  @Test func liveShowsWhatARunningAppPublishedAndNothingOfOneThatEnded() throws {
    let data = try TemporaryDirectory()
    let small = PluginActivity(
      plugin: "Small", file: "/p/libSmall.so", state: .idle, pid: 10, cpuPercent: 0.5, residentKiB: 100,
      proportionalKiB: 50, modules: 0, hostServiceCalls: 0, businessServiceCalls: 0, httpRequests: 0, restarts: 0)
    let large = PluginActivity(
      plugin: "Large", file: "/p/libLarge.so", state: .running, pid: 11, cpuPercent: 9, residentKiB: 900,
      proportionalKiB: 500, modules: 2, hostServiceCalls: 3, businessServiceCalls: 1, httpRequests: 4, restarts: 1)
    // Published as by a host that runs (this test's own process) and answers the ask (a time to come).
    let later = Date().timeIntervalSince1970 + 600
    try PluginActivityFile(host: getpid(), time: later, plugins: [small, large]).write(in: data.path)
    let shown = try ProcessRunner.vivarium(["plugins", "--live", "--times", "1", "--json", "--data", data.path])
    #expect(shown.status == 0, "\(shown.stderr)")
    #expect(FileManager.default.fileExists(atPath: data.path + "/state/plugins-live.asked"), "the host is asked")
    let file = try JSONDecoder().decode(PluginActivityFile.self, from: Data(shown.stdout.utf8))
    #expect(file.plugins.map(\.plugin) == ["Large", "Small"], "sorted by cpu")
    let table = try ProcessRunner.vivarium(["plugins", "--live", "--times", "1", "--sort", "name", "--data", data.path])
    #expect(table.status == 0, "\(table.stderr)")
    let lines = table.stdout.split(separator: "\n")
    let largeRow = try #require(lines.firstIndex { $0.hasPrefix("Large ") }, "\(lines)")
    let smallRow = try #require(lines.firstIndex { $0.hasPrefix("Small ") }, "\(lines)")
    #expect(largeRow < smallRow, "sorted by name")
    #expect(try ProcessRunner.vivarium(["plugins", "--live", "--sort", "size", "--data", data.path]).status == 2)

    // A host that ended leaves its last snapshot, which is not shown (no process has the largest id).
    try PluginActivityFile(host: Int32.max, time: later, plugins: [small]).write(in: data.path)
    #expect(try ProcessRunner.vivarium(["plugins", "--live", "--times", "1", "--data", data.path]).status == 1)
  }
}
