import Foundation
import Glibc
import Synchronization
import Testing
import ViperKit

@testable import VivariumLoading
@testable import VivariumRuntime
@testable import VivariumSupport
@testable import VivariumTools
@testable import VivariumWire

/// Plugins that trap, segfault, exit, run out of memory or garble their
/// channel, at build, on attach, on a tap, and as an embedded child of
/// another plugin's module: each time the host goes on, the failure shows
/// where the module was, and the other modules keep working.
@Suite("Plugin processes that fail")
@MainActor
struct PluginProcessFailureTests {
  /// What each misbehaviour shows in the failed module's place.
  static let causes = [
    "trap": "signal 4", "segfault": "signal 11", "exit": "status 3",
    "allocate": "128 MiB", "garble": "cannot read",
  ]

  @Test(arguments: ["trap", "segfault", "exit", "allocate", "garble"], ["build", "present", "tap"])
  func aFailingScreenShowsTheFailureAndTheRestGoesOn(how: String, at moment: String) async throws {
    let host = try await FaultyHost()
    try await host.runtime.open("items:list")
    await host.runtime.settleAll()
    try await host.runtime.open("faulty:\(how)?at=\(moment)")
    if moment == "tap" { try await host.runtime.act(.tap(button: "go")) }
    let shown = try await host.waitForText("stopped")
    #expect(shown.contains("⚠ libFaulty.so stopped"))
    #expect(shown.contains(try #require(Self.causes[how])))
    #expect(shown.contains("[ Restart libFaulty.so ] (restart)"))
    if how == "trap" { #expect(shown.contains("Faulty.swift:") && shown.contains("asked to trap at \(moment)")) }
    let problems = host.runtime.takeProblems().map(\.description)
    #expect(problems.contains { $0.hasPrefix("faulty:\(how)?at=\(moment): libFaulty.so: ") })
    // The module under it, from another plugin process, still answers.
    try await host.runtime.back()
    try await host.runtime.act(.tap(button: "deleteAll"))
    try await host.runtime.actUntilIdle(.tap(button: "confirmDeleteAll"))
    #expect(host.text.contains("0 items"))
  }

  @Test(arguments: ["trap", "segfault", "exit", "allocate", "garble"], ["build", "present", "tap"])
  func aFailingChildShowsInItsSlotAndItsParentIsTold(how: String, at moment: String) async throws {
    let host = try await FaultyHost()
    try await host.runtime.open("frame:\(how)?at=\(moment)")
    if moment == "tap" { try await host.runtime.act(.tap(button: "inner/go")) }
    let shown = try await host.waitForText("Told: child failed")
    #expect(shown.contains("│ ⚠ libFaulty.so stopped"), "the failure is drawn inside the parent's frame")
    #expect(shown.contains("Told: child failed: libFaulty.so: "))
    try await host.runtime.act(.tap(button: "ping"))
    #expect(host.text.contains("Frame still works (pings: 1)"))
  }

  @Test func restartRebuildsTheModuleInItsPlaceAndKeepsWhatItSaved() async throws {
    let host = try await FaultyHost()
    try await host.runtime.open("frame:trap")
    try await host.runtime.open("faulty:demo")
    try await host.runtime.act(.type(field: "note", text: "milk"))
    try await host.runtime.act(.tap(button: "save"))
    let before = try #require(host.process(named: "libFaulty.so")?.pid)
    try await host.runtime.act(.tap(button: "crash"))
    #expect(try await host.waitForText("stopped").contains("the Crash button was tapped"))
    try await host.runtime.act(.tap(button: "restart"))
    #expect(host.text.contains("Saved note: milk"))
    #expect(host.process(named: "libFaulty.so")?.pid != before)
    // The crashed process was reaped: no zombie is left.
    for _ in 0..<500 where FileManager.default.fileExists(atPath: "/proc/\(before)") {
      try await Task.sleep(nanoseconds: 10_000_000)
    }
    #expect(!FileManager.default.fileExists(atPath: "/proc/\(before)"))
    // The embedded child under it, of the same plugin, was rebuilt too.
    try await host.runtime.back()
    #expect(host.text.contains("│ Faulty: trap"))
    let stored = try String(contentsOfFile: host.data.path + "/storage/FaultyPlugin.json", encoding: .utf8)
    #expect(stored.contains("milk"))
  }

  /// Two sessions asking at once to restart a plugin that crashed share
  /// one new process: neither starts another, and both are answered.
  @Test func restartsAskedAtOnceShareOneNewProcess() async throws {
    let host = try await FaultyHost(plugins: ["Faulty"])
    try await host.runtime.open("faulty:demo")
    let process = try #require(host.process(named: "libFaulty.so"))
    let generation = process.generation
    try await host.runtime.act(.tap(button: "crash"))
    #expect(await host.waitFor { if case .ended = process.state { true } else { false } })
    let answers = Answers()
    for _ in 0..<2 { Task { @MainActor in answers.all.append(await process.restart()) } }
    // A restart whose caller is never answered fails here, not the whole run.
    #expect(await host.waitFor { answers.all.count == 2 }, "a restart was never answered: \(answers.all)")
    #expect(answers.all.allSatisfy { $0 == nil }, "\(answers.all)")
    #expect(process.generation == generation + 1)
    #expect(process.state == .running)
  }

  /// What the restarts asked at once answered, in the order they did.
  @MainActor final class Answers {
    var all: [Rejection?] = []
  }

  @Test func aHangingModuleIsNotRespondingAndCanBeStopped() async throws {
    let host = try await FaultyHost(responseLimit: .milliseconds(300))
    try await host.runtime.open("frame:hang")
    try await host.runtime.act(.tap(button: "inner/go"))
    #expect(host.text.contains("│ ◷ Not responding"))
    let faulty = try #require(host.process(named: "libFaulty.so"))
    #expect(faulty.state == .notResponding(what: "a tap on 'go'", waiting: false), "\(faulty.state)")
    // The plugin, the button, and the limit it is over.
    #expect(["libFaulty.so", "'go'", "0.3 s"].allSatisfy(host.text.contains), "\(host.text)")
    // The parent, in another process, answers meanwhile.
    try await host.runtime.act(.tap(button: "ping"))
    #expect(host.text.contains("pings: 1"))
    try await host.runtime.act(.tap(button: "inner/wait"))
    #expect(faulty.state == .notResponding(what: "a tap on 'go'", waiting: true), "\(faulty.state)")
    try await host.runtime.act(.tap(button: "inner/stop"))
    let shown = try await host.waitForText("stopped")
    guard case .ended(let failure) = faulty.state else {
      Issue.record("it was not stopped: \(faulty.state)")
      return
    }
    #expect(failure.cause.contains("'go'") && shown.contains(failure.cause), "why, drawn in its place: \(shown)")
  }

  /// A plugin process hung with its socket full is never waited for: what
  /// the host sends it is kept (waiting, the host would block for the hour
  /// of its response limit, and the guard end the run), and another
  /// plugin's module takes a tap and draws meanwhile.
  @Test func aPluginThatStopsReadingIsNotWaitedFor() async throws {
    let host = try await FaultyHost(responseLimit: .seconds(3600), plugins: ["Faulty", "FaultyFrame"])
    try await host.runtime.open("frame:hang")
    let faulty = try #require(host.process(named: "libFaulty.so"))
    try host.runtime.send(.tap(button: "inner/go"))
    let flood = (0..<200).map {
      HostMessage.storeChanged(.storage, key: "\($0)", .string(String(repeating: "x", count: 10_000)))
    }
    HangGuard.bounding("sending 2 MB to a plugin that does not read") {
      for message in flood { faulty.send(message) }
    }
    try host.runtime.send(.tap(button: "ping"))
    #expect(try await host.waitForText("pings: 1").contains("pings: 1"))
    #expect(faulty.state == .running)
    faulty.terminate()
  }

  /// A plugin that leaves what the host sent it unread past its response
  /// limit is stopped.
  @Test func aPluginThatLeavesItsSocketUnreadIsStopped() async throws {
    let host = try await FaultyHost(responseLimit: .milliseconds(300), plugins: ["Faulty"])
    try await host.runtime.open("faulty:hang")
    let faulty = try #require(host.process(named: "libFaulty.so"))
    try host.runtime.send(.tap(button: "go"))
    for index in 0..<200 {
      faulty.send(.storeChanged(.storage, key: "\(index)", .string(String(repeating: "x", count: 10_000))))
    }
    #expect(await host.waitFor { if case .ended = faulty.state { true } else { false } }, "\(faulty.state)")
  }

  /// The host never waits on a plugin: while a module's process is busy
  /// with a tap it never finishes (and its response limit is far off),
  /// another plugin's module takes a tap and draws. Shown by the order of
  /// events: the ping is answered while the hung tap is still under way.
  /// (Blocking, the host would wait out the minute and fail.)
  @Test func anotherModuleAnswersWhileAModuleIsHung() async throws {
    let host = try await FaultyHost(responseLimit: .seconds(60))
    try await host.runtime.open("frame:hang")
    try host.runtime.send(.tap(button: "inner/go"))
    try host.runtime.send(.tap(button: "ping"))
    #expect(try await host.waitForText("pings: 1").contains("pings: 1"))
    let faulty = try #require(host.process(named: "libFaulty.so"))
    #expect(faulty.state == .running, "the hung tap is not overdue yet")
    #expect(host.runtime.work.inFlight.contains { $0.contains("a tap on 'go'") }, "\(host.runtime.work.inFlight)")
    faulty.stop(because: "the test is over")
  }

  /// Nor while a module is being built: opening a module whose process
  /// hangs in its factory suspends that navigation alone. Another plugin's
  /// module takes a tap and draws meanwhile; the person's `back`, asked
  /// while the open is under way, waits its turn and runs after it, in
  /// order. Shown by the order of events, not by time.
  @Test func keysAreActedOnWhileAModuleHangsAsItIsBuilt() async throws {
    let host = try await FaultyHost(responseLimit: .seconds(60))
    try await host.runtime.open("frame:trap?at=tap")
    var events: [String] = []
    let opening = Task { @MainActor in
      try await host.runtime.open("faulty:hang?at=build")
      events.append("opened")
    }
    let goingBack = Task { @MainActor in
      try await host.runtime.back()
      events.append("back")
    }
    // The build is under way in the Faulty process, which never answers it.
    let faulty = try #require(host.process(named: "libFaulty.so"))
    try host.runtime.send(.tap(button: "ping"))
    #expect(try await host.waitForText("pings: 1").contains("pings: 1"))
    events.append("ping drawn")
    #expect(host.runtime.layers.map(\.count) == [1], "nothing is shown before it is built")
    #expect(faulty.state == .running, "the build is not overdue yet")
    faulty.stop(because: "the test is over")
    try await opening.value
    try await goingBack.value
    #expect(events == ["ping drawn", "opened", "back"])
    #expect(host.runtime.top?.urn == "frame:trap?at=tap")
  }

  @Test func aSlowModuleComesBackByItselfWhenItAnswers() async throws {
    let host = try await FaultyHost(responseLimit: .milliseconds(200))
    try await host.runtime.open("faulty:slow")
    let process = try #require(host.process(named: "libFaulty.so"))
    try host.runtime.send(.tap(button: "go"))
    // Its storage read, made while it was late, is answered, and it carries on.
    let shown = try await host.waitForText("Tapped")
    #expect(shown.contains("Faulty: slow") && !shown.contains("Not responding"))
    // It answered a second after the tap, over the limit: it was not
    // responding meanwhile, however late the host got to its answer.
    #expect(process.timesNotResponding >= 1)
    #expect(process.state == .running)
  }

  @Test(arguments: ["build", "present"])
  func aModuleHangingBeforeItDrawsIsNotResponding(at moment: String) async throws {
    let host = try await FaultyHost(responseLimit: .milliseconds(300))
    try await host.runtime.open("frame:hang?at=\(moment)")
    #expect(host.text.contains("│ ◷ Not responding"))
    try await host.runtime.act(.tap(button: "ping"))
    #expect(host.text.contains("pings: 1"))
  }

  @Test func aModuleWhoseRolesOutliveItIsReportedNamingThem() async throws {
    let host = try await FaultyHost()
    try await host.runtime.open("items:list")
    try await host.runtime.open("faulty:leak")
    try await host.runtime.back()
    var problems: [String] = []
    for _ in 0..<500 where problems.isEmpty {
      try await Task.sleep(nanoseconds: 10_000_000)
      problems = host.runtime.takeProblems().map(\.description)
    }
    #expect(
      problems.contains { $0.contains("faulty:leak") && $0.contains("FaultyView") && $0.contains("FaultyPresenter") },
      "the module and the types that outlive it: \(problems)")
  }

  @Test func aPluginProcessHasOnlyItsOwnDescriptorsAndBelongsToItsHost() async throws {
    let host = try await FaultyHost()
    let pid = try #require(host.process(named: "libFaulty.so")?.pid)
    let descriptors = try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").compactMap { Int($0) }
    func target(_ fd: Int) -> String {
      (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\(fd)")) ?? ""
    }
    // stdin, stdout and stderr, the channel, the plugin file; above them
    // only what the process's own runtime opened (dispatch's event loop).
    #expect(target(0) == "/dev/null")
    #expect(target(1).hasPrefix("pipe:") && target(2) == target(1))
    #expect(target(3).hasPrefix("socket:"))
    #expect(target(4).hasSuffix("/libFaulty.so"))
    let others = descriptors.filter { $0 > 4 }.map(target)
    #expect(others.allSatisfy { $0.hasPrefix("anon_inode:") }, "\(others)")
    // Forked from the zygote (the process 1 of its PID namespace, forked
    // by the process this host started).
    let parent = try #require(Self.parent(of: pid))
    let ancestors = sequence(first: parent) { Self.parent(of: $0) }.prefix(3)
    #expect(ancestors.contains(getpid()), "\(Array(ancestors))")
  }
}

extension PluginProcessFailureTests {
  /// A plugin whose process clears its parent-death signal and blocks
  /// still ends with a host killed without warning: the filter refuses the
  /// change, and the kernel ends every process of the zygote's PID
  /// namespace when the zygote dies with the host, whatever its forks did.
  @Test func pluginProcessesDoNotOutliveAHostKilledWithoutWarning() async throws {
    let host = try await FaultyHost()
    let marks = try TemporaryDirectory()
    let mark = marks.path + "/lingering"
    let app = SpawnedProcess()
    app.executableURL = URL(fileURLWithPath: BuildProducts.vivarium)
    app.arguments = [
      "run", "--plugins", host.plugins.path, "--data", host.data.path, "--start",
      "faulty:escape?then=linger&mark=\(mark.replacingOccurrences(of: "/", with: "%2F"))", "--line",
    ]
    app.environment = ProcessRunner.environment([:])
    let input = Pipe()
    app.standardInput = input
    app.standardOutput = FileHandle.nullDevice
    app.standardError = FileHandle.nullDevice
    try app.run()
    // The plugin has tried to clear its signal, and blocks, once the mark is there.
    var said: String?
    for _ in 0..<1500 where said == nil {
      usleep(20_000)
      said = try? String(contentsOfFile: mark, encoding: .utf8)
    }
    let children = Self.descendants(of: app.processIdentifier)
    let plugin = children.first { Self.commandLine(of: $0).contains(PluginProcessLaunch.pluginCommand) }
    kill(app.processIdentifier, SIGKILL)
    app.waitUntilExit()
    #expect(said == "pdeathsig: refused (EPERM)\n", "\(said ?? "no mark")")
    #expect(plugin != nil, "no plugin process among \(children)")
    // The zygote, the process 1 of its namespace, and the plugin's process.
    #expect(children.count >= 3, "\(children)")
    for child in children {
      var gone = false
      for _ in 0..<500 where !gone {
        let stat = (try? String(contentsOfFile: "/proc/\(child)/stat", encoding: .utf8))?.split(separator: " ")
        gone = stat == nil || stat?[2] == "Z"
        if !gone { usleep(20_000) }
      }
      if !gone { kill(child, SIGKILL) }
      #expect(gone, "process \(child) (\(Self.commandLine(of: child))) outlived its host")
    }
    try input.fileHandleForWriting.close()
  }

  /// Process `pid`'s command line, its arguments joined by spaces.
  static func commandLine(of pid: Int32) -> String {
    let raw = (try? String(contentsOfFile: "/proc/\(pid)/cmdline", encoding: .utf8)) ?? ""
    return raw.split(separator: "\0").joined(separator: " ")
  }

  /// The processes `ancestor` started, and theirs.
  static func descendants(of ancestor: Int32) -> [Int32] {
    let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
    let parents = entries.compactMap(Int32.init).map { ($0, parent(of: $0)) }
    var found: [Int32] = []
    var frontier = [ancestor]
    while let next = frontier.popLast() {
      let children = parents.filter { $0.1 == next }.map(\.0)
      found += children
      frontier += children
    }
    return found
  }

  /// The parent of process `pid`, if it is still there.
  static func parent(of pid: Int32) -> Int32? {
    guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
      let line = status.split(separator: "\n").first(where: { $0.hasPrefix("PPid:") })
    else { return nil }
    return Int32(line.dropFirst(5).trimmingCharacters(in: .whitespaces))
  }
}

/// A host with the faulty plugins, the frame and the items list (or the
/// plugins named), each in a process of its own.
@MainActor
final class FaultyHost {
  let plugins: TemporaryDirectory
  let data: TemporaryDirectory
  let catalog: PluginCatalog
  let runtime: HostRuntime

  init(
    responseLimit: Duration = TestServices.responseLimit,
    plugins names: [String] = ["Faulty", "FaultyFrame", "ItemsList"]
  )
    async throws
  {
    plugins = try TemporaryDirectory()
    try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: plugins.path)
    for name in names {
      try FileManager.default.createSymbolicLink(
        atPath: "\(plugins.path)/lib\(name).so", withDestinationPath: "\(BuildProducts.directory)/lib\(name).so")
    }
    data = try TemporaryDirectory()
    let options = PluginProcessOptions(
      executable: BuildProducts.vivarium, responseLimit: responseLimit, memoryLimit: 128 << 20)
    catalog = PluginCatalog(
      outcomes: await PluginDiscovery(commandLine: [plugins.path], environment: [:], executable: BuildProducts.vivarium)
        .load(hosting: options))
    runtime = HostRuntime(catalog: catalog, services: TestServices.make(in: data))
    // A plugin turned on is loaded as the others were.
    runtime.host.reloader = PluginReloader(hosting: options)
  }

  func process(named file: String) -> PluginSupervisor? {
    catalog.loaded.first { ($0.path as NSString).lastPathComponent == file }?.process
  }

  /// The screen, lines not wrapped.
  var text: String { runtime.screen()?.lines(TextRenderer(width: 1000)).joined(separator: "\n") ?? "" }

  /// The screen once it shows `words`: a process's end arrives on its own
  /// time, after the call that caused it may have returned.
  func waitForText(_ words: String) async throws -> String {
    for _ in 0..<3000 where !text.contains(words) {
      try await Task.sleep(nanoseconds: 10_000_000)
    }
    return text
  }

  /// Whether `condition` became true within 30 s, looked at every 10 ms:
  /// for what a plugin process does on its own time.
  func waitFor(_ condition: () -> Bool) async -> Bool {
    for _ in 0..<3000 where !condition() {
      try? await Task.sleep(nanoseconds: 10_000_000)
    }
    return condition()
  }

  deinit {
    MainActor.assumeIsolated {
      runtime.shutdown()
      for plugin in catalog.loaded { plugin.process?.terminate() }
    }
  }
}

@Suite("Long-lived child processes")
struct LongLivedChildTests {
  /// A child that dies with its parent dies when the thread that started it
  /// ends; the threads running tasks come and go, so the thread that starts
  /// a plugin process must stay as long as the process.
  @Test func aChildOutlivesTheShortLivedThreadThatAskedForIt() throws {
    let done = DispatchSemaphore(value: 0)
    let release = DispatchSemaphore(value: 0)
    let child = Mutex<pid_t>(0)
    // A zygote: it ties its life to its parent's, then waits on its socket.
    var pair: [Int32] = [0, 0]
    #expect(socketpair(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pair) == 0)
    let (local, end) = (pair[0], pair[1])
    defer { pair.forEach { close($0) } }
    Thread.detachNewThread {
      let started = ChildProcess.startWatched {
        ChildProcess.spawn(BuildProducts.vivarium, [PluginProcessLaunch.zygoteCommand], [(end, 3)])
      } watch: { pid in
        release.wait()
        kill(pid, SIGKILL)
        var status: Int32 = 0
        waitpid(pid, &status, 0)
      }
      if case .success(let pid) = started { child.withLock { $0 = pid } }
      // Once the zygote answers a (bad) request, it has tied its life to its
      // parent's; only then does this thread end.
      var bad: UInt8 = 0
      _ = send(local, &bad, 1, 0)
      var reply = [UInt8](repeating: 0, count: 9)
      _ = reply.withUnsafeMutableBytes { recv(local, $0.baseAddress, 9, 0) }
      done.signal()
    }
    done.wait()
    let pid = child.withLock { $0 }
    #expect(pid > 0)
    // The asking thread has ended; a child tied to it would be gone at once.
    usleep(300_000)
    let state = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8))?.split(separator: " ")
    #expect(state != nil && state?[2] != "Z", "the child died with the thread that asked for it")
    release.signal()
  }
}
