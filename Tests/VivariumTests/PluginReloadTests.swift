import Foundation
import Synchronization
import Testing
import ViperKit

@testable import VivariumLoading
@testable import VivariumRuntime
@testable import VivariumSupport

/// A rebuilt plugin is swapped into the running app: its modules are
/// rebuilt where they are, with their state, in one process and out of it;
/// a rebuilt file that fails its checks leaves the running version.
@Suite("Reloading a rebuilt plugin")
@MainActor
struct PluginReloadTests {
  /// A plugin directory holding a copy of the product search plugin, the
  /// runtime over it, and a way to "rebuild" it with another heading.
  @MainActor
  final class Bench {
    let plugins: TemporaryDirectory
    let path: String
    let runtime: HostRuntime
    let reloader: PluginReloader

    init(outOfProcess: Bool) async throws {
      plugins = try TemporaryDirectory()
      try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: plugins.path)
      path = try plugins.copy(BuildProducts.directory + "/libProductSearch.so", as: "libProductSearch.so")
      let hosting =
        outOfProcess
        ? PluginProcessOptions(executable: BuildProducts.vivarium, responseLimit: TestServices.responseLimit) : nil
      reloader = PluginReloader(hosting: hosting)
      runtime = HostRuntime(
        catalog: PluginCatalog(outcomes: [await reloader.load(path)]), services: try TestServices.make())
    }

    /// The plugin as a new build would be: the heading "Products" reads
    /// `heading` (8 bytes), written to a new file renamed over the old, as
    /// a linker does, or over the old file's bytes (`inPlace`).
    func rebuild(heading: String, inPlace: Bool = false) throws {
      var bytes = try Data(contentsOf: URL(fileURLWithPath: BuildProducts.directory + "/libProductSearch.so"))
      let old = Data("Products".utf8)
      let new = Data(heading.utf8)
      precondition(new.count == old.count)
      let range = try #require(bytes.range(of: old))
      bytes.replaceSubrange(range, with: new)
      if inPlace {
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try handle.truncate(atOffset: 0)
        try handle.write(contentsOf: bytes)
        try handle.close()
      } else {
        try bytes.write(to: URL(fileURLWithPath: path + ".tmp"))
        #expect(rename(path + ".tmp", path) == 0)
      }
    }

    var text: String { runtime.screen()?.lines(TextRenderer(width: 1000)).joined(separator: "\n") ?? "" }

    deinit {
      MainActor.assumeIsolated {
        runtime.shutdown()
        for plugin in runtime.catalog.loaded { plugin.process?.terminate() }
      }
    }
  }

  @Test(arguments: [false, true])
  func aRebuiltPluginShowsItsChangeInThePlaceAndStateItWasIn(outOfProcess: Bool) async throws {
    let bench = try await Bench(outOfProcess: outOfProcess)
    try await bench.runtime.open("products:search")
    try await bench.runtime.act(.type(field: "query", text: "e"))
    try await bench.runtime.act(.tap(button: "search"))
    try await bench.runtime.act(.tap(button: "next"))
    let before = bench.text
    #expect(before.contains("Products") && before.contains("page 2 of"))
    let oldProcess = bench.runtime.catalog.loaded.first?.process

    try bench.rebuild(heading: "Produkte")
    let reload = await bench.runtime.host.reload(await bench.reloader.load(bench.path))
    #expect(reload.accepted && reload.rebuilt == 1 && reload.problems.isEmpty, "\(reload)")
    #expect(reload.summary.contains("libProductSearch.so"), "the file: \(reload.summary)")
    #expect(bench.text == before.replacingOccurrences(of: "Products", with: "Produkte"))
    #expect(bench.runtime.takeProblems().isEmpty)
    if outOfProcess {
      let newProcess = try #require(bench.runtime.catalog.loaded.first?.process)
      #expect(newProcess !== oldProcess)
      let old = try #require(oldProcess)
      // The old build's process is let go; its end is noticed on its own time.
      for _ in 0..<1000 {
        if case .ended = old.state { break }
        try await Task.sleep(nanoseconds: 10_000_000)
      }
      #expect({ if case .ended = old.state { true } else { false } }())
    }
  }

  /// One reload rebuilds the plugin's modules in every session of the host,
  /// each where it was; the old process goes once no session uses it.
  @Test func aReloadRebuildsTheModulesOfEverySession() async throws {
    let bench = try await Bench(outOfProcess: true)
    let second = bench.runtime.host.openSession()
    defer { second.shutdown() }
    try await bench.runtime.open("products:search")
    try await second.open("products:search")
    try await second.act(.type(field: "query", text: "e"))
    try await second.act(.tap(button: "search"))
    try await second.act(.tap(button: "next"))
    func text(_ session: HostRuntime) -> String {
      session.screen()?.lines(TextRenderer(width: 1000)).joined(separator: "\n") ?? ""
    }
    let before = [text(bench.runtime), text(second)]
    #expect(before[1].contains("page 2 of") && !before[0].contains("page 2 of"))
    let old = try #require(bench.runtime.catalog.loaded.first?.process)

    try bench.rebuild(heading: "Produkte")
    let reload = await bench.runtime.host.reload(await bench.reloader.load(bench.path))
    #expect(reload.accepted && reload.rebuilt == 2 && reload.problems.isEmpty, "\(reload)")
    #expect(
      [text(bench.runtime), text(second)] == before.map { $0.replacingOccurrences(of: "Products", with: "Produkte") })
    #expect(bench.runtime.top?.remote?.process === second.top?.remote?.process)
    #expect(second.top?.remote?.process !== old)
    for _ in 0..<1000 {
      if case .ended = old.state { break }
      try await Task.sleep(nanoseconds: 10_000_000)
    }
    #expect({ if case .ended = old.state { true } else { false } }())
  }

  /// A session opened while a reload waits for another session's turn
  /// sees the new build, and the old build's process is let go only once
  /// no session, that one included, uses it.
  @Test func aSessionOpenedWhileAReloadWaitsEndsUpWithTheNewBuild() async throws {
    let bench = try await Bench(outOfProcess: true)
    try await bench.runtime.open("products:search")
    let old = try #require(bench.runtime.catalog.loaded.first?.process)
    // The first session's turn is held: the reload waits for it.
    let gate = Gate()
    Task.immediate { await bench.runtime.inTurn { await gate.wait() } }
    try bench.rebuild(heading: "Produkte")
    let outcome = await bench.reloader.load(bench.path)
    let result = Gate.Result<SharedHost.Reload>()
    Task.immediate { result.value = await bench.runtime.host.reload(outcome) }
    #expect(result.value == nil, "the reload waits for the first session's turn")

    let second = bench.runtime.host.openSession()
    defer { second.shutdown() }
    try await second.open("products:search")
    gate.open()
    let reload = try #require(await result.waited(), "the reload never ended")
    #expect(reload.accepted && reload.problems.isEmpty, "\(reload)")
    for session in [bench.runtime, second] {
      let text = session.screen()?.lines(TextRenderer(width: 1000)).joined(separator: "\n") ?? ""
      #expect(text.contains("Produkte") && !text.contains("Products"), "\(text)")
      #expect(session.top?.remote?.process !== old)
    }
    for _ in 0..<1000 {
      if case .ended = old.state { break }
      try await Task.sleep(nanoseconds: 10_000_000)
    }
    #expect({ if case .ended = old.state { true } else { false } }())
  }

  /// Holds what waits on it until opened.
  @MainActor
  final class Gate {
    private var waiting: [CheckedContinuation<Void, Never>] = []
    private var isOpen = false

    func wait() async {
      guard !isOpen else { return }
      await withCheckedContinuation { waiting.append($0) }
    }

    func open() {
      isOpen = true
      for waiter in waiting { waiter.resume() }
      waiting.removeAll()
    }

    /// A value set later, waited for within a bound.
    @MainActor
    final class Result<Value> {
      var value: Value?

      /// The value once set, looked at every 10 ms for 30 s; nil if never.
      func waited() async -> Value? {
        for _ in 0..<3000 where value == nil { try? await Task.sleep(nanoseconds: 10_000_000) }
        return value
      }
    }
  }

  @Test func aFileRewrittenInPlaceStillLoadsItsNewCodeInOneProcess() async throws {
    let bench = try await Bench(outOfProcess: false)
    try await bench.runtime.open("products:search")
    try bench.rebuild(heading: "Produkte", inPlace: true)
    await #expect(bench.runtime.host.reload(await bench.reloader.load(bench.path)).accepted)
    #expect(bench.text.contains("Produkte"))
    try bench.rebuild(heading: "Produits", inPlace: true)
    await #expect(bench.runtime.host.reload(await bench.reloader.load(bench.path)).accepted)
    #expect(bench.text.contains("Produits"))
  }

  @Test(arguments: [false, true])
  func aRebuiltFileThatFailsItsChecksLeavesTheRunningVersion(outOfProcess: Bool) async throws {
    let bench = try await Bench(outOfProcess: outOfProcess)
    try await bench.runtime.open("products:search")
    // Written as a new file: one written over in place would change the
    // pages a plugin process has mapped, and crash it before the reload.
    try Data("not a library".utf8).write(to: URL(fileURLWithPath: bench.path), options: .atomic)
    let rebuilt = await bench.reloader.load(bench.path)
    guard case .rejected(let refused) = rebuilt else {
      Issue.record("a file that is no library was loaded: \(rebuilt)")
      return
    }
    #expect(refused.kind == .notELF)
    let reload = await bench.runtime.host.reload(rebuilt)
    #expect(!reload.accepted)
    #expect(reload.summary.contains("libProductSearch.so"), "the file: \(reload.summary)")
    try await bench.runtime.act(.tap(button: "next"))
    #expect(bench.text.contains("Products") && bench.text.contains("page 2 of"), "\(bench.text)")
  }

  /// Work of the old build that is still asleep on the host's clock when
  /// the reload lets its process go wakes to nothing: the host must not
  /// reach back into the supervisor of a process it dropped (this crashed
  /// the whole host: "Attempted to read an unowned reference").
  @Test func workAsleepInTheOldProcessEndsQuietlyAfterAReload() async throws {
    let plugins = try TemporaryDirectory()
    try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: plugins.path)
    let path = try plugins.copy(BuildProducts.directory + "/libFeed.so", as: "libFeed.so")
    let reloader = PluginReloader(
      hosting: PluginProcessOptions(executable: BuildProducts.vivarium, responseLimit: TestServices.responseLimit))
    let services = try TestServices.make()
    let runtime: HostRuntime? = HostRuntime(
      catalog: PluginCatalog(outcomes: [await reloader.load(path)]), services: services)
    defer { runtime?.shutdown() }
    try await #require(runtime).open("feed:home")
    // The feed's first fetch sleeps on the virtual clock, in work of the old process.
    try await waitUntil { services.clock.sleeping > 0 }
    weak let oldProcess = runtime?.catalog.loaded.first?.process
    #expect(oldProcess != nil)
    let reload = try await #require(runtime).host.reload(reloader.load(path))
    #expect(reload.accepted, "\(reload)")
    // Everything of the old build is let go, then its sleeps wake.
    try await waitUntil { oldProcess == nil }
    await services.clock.advance(by: 60) { for _ in 0..<50 { await Task.yield() } }
    // The wallet preview it embeds is not in this directory: that is all.
    let problems = (runtime?.takeProblems() ?? []).filter { !$0.description.contains("'wallet:preview'") }
    #expect(problems.isEmpty, "\(problems)")
    #expect(runtime?.screen() != nil)
    for plugin in runtime?.catalog.loaded ?? [] { plugin.process?.terminate() }
  }

  /// The same, step by step: work whose process supervisor is gone is
  /// told to sleep, and wakes with no one to tell.
  @Test func workOutlivingItsProcessSupervisorWakesWithNoOneToTell() async throws {
    var process: PluginSupervisor? = PluginSupervisor(
      file: try PluginFile.open(BuildProducts.directory + "/libFeed.so"),
      options: PluginProcessOptions(executable: BuildProducts.vivarium, responseLimit: TestServices.responseLimit))
    let work = RemoteWork(id: 1, process: try #require(process))
    weak let gone = process
    process = nil
    #expect(gone == nil)
    let running = Task { try await work.run(clock: nil) }
    work.sleep(1, for: 1, waiting: false)
    work.end(.finished)
    try await running.value
  }

  /// Polls `condition` on the main actor for up to a generous minute.
  private func waitUntil(_ condition: () -> Bool) async throws {
    for _ in 0..<6000 where !condition() { try await Task.sleep(for: .milliseconds(10)) }
    try #require(condition())
  }

  @Test func theWatcherReportsAFileOnceItHoldsStill() async throws {
    let bench = try await Bench(outOfProcess: false)
    var changed: [String] = []
    let watcher = PluginWatcher(directories: [bench.plugins.path]) { changed.append($0) }
    watcher.look()
    #expect(changed.isEmpty)
    try bench.rebuild(heading: "Produkte")
    watcher.look()
    #expect(changed.isEmpty, "a file that just changed may still be being written")
    watcher.look()
    #expect(changed == [bench.path])
    watcher.look()
    #expect(changed == [bench.path])
    try bench.plugins.copy(BuildProducts.itemsList, as: "libItemsList.so")
    watcher.look()
    watcher.look()
    #expect(changed == [bench.path, bench.plugins.path + "/libItemsList.so"])
  }
}

/// `vivarium run --watch` as a person runs it: the rebuilt file is noticed,
/// swapped in, and the screen drawn again with a notice, without a command.
@Suite("vivarium run --watch")
struct WatchCommandTests {
  @Test func aRebuiltPluginIsShownWithoutACommand() throws {
    let plugins = try TemporaryDirectory()
    try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: plugins.path)
    let path = try plugins.copy(BuildProducts.directory + "/libProductSearch.so", as: "libProductSearch.so")
    let data = try TemporaryDirectory()
    let host = SpawnedProcess()
    host.executableURL = URL(fileURLWithPath: BuildProducts.vivarium)
    host.arguments = ["run", "--watch", "--plugins", plugins.path, "--data", data.path, "--start", "products:search"]
    host.environment = ProcessRunner.environment(["COLUMNS": "80"])
    let input = Pipe()
    let output = Pipe()
    host.standardInput = input
    host.standardOutput = output
    host.standardError = FileHandle.nullDevice
    input.fileHandleForWriting.write(Data("tap next\n".utf8))
    try host.run()
    let pid = host.processIdentifier
    // Whether the host was reaped; its pid may belong to another process after.
    let reaped = Mutex(false)
    defer {
      reaped.withLock { reaped in
        kill(pid, SIGKILL)
        reaped = true
      }
      host.waitUntilExit()
    }
    // Should the reload never come, the reads below end instead of hanging.
    DispatchQueue.global().asyncAfter(deadline: .now() + 60) {
      reaped.withLock { reaped in if !reaped { kill(pid, SIGKILL) } }
    }
    var text = ""
    /// Reads until what came after the first `from` characters holds every one of `words`.
    func read(from start: Int = 0, until words: [String]) -> String {
      while !words.allSatisfy({ text.dropFirst(start).contains($0) }) {
        let chunk = output.fileHandleForReading.availableData
        if chunk.isEmpty { break }
        text += String(decoding: chunk, as: UTF8.self)
      }
      return String(text.dropFirst(start))
    }
    #expect(read(until: ["Products", "page 2 of"]).contains("page 2 of"), "\(text)")
    var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
    let range = try #require(bytes.range(of: Data("Products".utf8)))
    bytes.replaceSubrange(range, with: Data("Produkte".utf8))
    try bytes.write(to: URL(fileURLWithPath: path), options: .atomic)
    let after = read(from: text.count, until: ["Reloaded", "Produkte", "page"])
    #expect(
      after.contains("libProductSearch.so") && after.contains("1 module"), "the file, and what was rebuilt: \(after)")
    #expect(after.contains("Produkte") && !after.contains("Products"), "\(after)")
    #expect(after.contains("page 2 of"), "the page shown was kept: \(after)")
    try input.fileHandleForWriting.close()
  }
}

/// `--watch` on a plugin file named by one relative path component (run
/// from the plugin's own folder) watches the folder it is in: `.`.
@Suite("Watching a file by a relative name")
@MainActor
struct WatchingARelativeFileTests {
  @Test func aFileNamedByOneRelativeComponentIsWatchedInItsFolder() throws {
    // The tests run in the package's folder, where Package.swift is a file.
    #expect(FileManager.default.fileExists(atPath: "Package.swift"))
    let watcher = PluginWatcher(directories: ["Package.swift"]) { _ in }
    watcher.start()
    defer { watcher.stop() }
    #expect(watcher.watchedFolders == ["."])
  }
}
