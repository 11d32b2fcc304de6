import Foundation
import Testing
import VivariumLoading

/// A plugin that crashes or hangs while loading is named and skipped; the host
/// and the other plugins go on.
@Suite("Loading plugins in a probe process")
@MainActor
struct PluginIsolationTests {
  /// Generous: a crash must be reported as a crash even on a loaded machine.
  private let probe = PluginProbe(executable: BuildProducts.vivarium, timeout: .seconds(60))
  /// Short, where the time limit is what is tested: the plugin never returns.
  private let impatientProbe = PluginProbe(executable: BuildProducts.vivarium, timeout: .milliseconds(1500))

  private func rejection(_ entryBody: String, _ name: String, probe: PluginProbe? = nil) throws -> Rejection? {
    let probe = probe ?? self.probe
    let dir = try TemporaryDirectory()
    let path = try CPluginBuilder.plugin(entryBody: entryBody, named: name, in: dir)
    guard case .rejected(let rejection) = PluginLoader(probe: probe).load(path) else { return nil }
    return rejection
  }

  @Test func trapInTheEntryPointIsReportedAsACrash() throws {
    let rejection = try #require(try rejection("__builtin_trap(); return 0;", "trap.so"))
    #expect(rejection.kind == .crashed)
    #expect(rejection.reasons[0].contains("signal 4"))
  }

  @Test func segfaultInTheEntryPointIsReportedAsACrash() throws {
    let rejection = try #require(try rejection("*(volatile int *)0 = 1; return 0;", "segv.so"))
    #expect(rejection.kind == .crashed)
    #expect(rejection.reasons[0].contains("signal 11"))
  }

  @Test func hangingEntryPointIsKilledAfterTheTimeout() throws {
    let rejection = try #require(try rejection("for (;;) {} return 0;", "hang.so", probe: impatientProbe))
    #expect(rejection.kind == .timedOut)
    #expect(rejection.reasons[0].contains("\(Duration.milliseconds(1500))"), "the time it was given: \(rejection)")
  }

  @Test func probeReportsTheSameRejectionAsInProcessLoading() throws {
    let dir = try TemporaryDirectory()
    let path = try dir.write("text.so", Data("plain text".utf8))
    guard case .rejected(let probed) = PluginLoader(probe: probe).load(path),
      case .rejected(let direct) = PluginLoader().load(path)
    else {
      Issue.record("both loaders should refuse a text file")
      return
    }
    #expect(probed == direct)
  }

  @Test func goodPluginLoadsThroughTheProbe() {
    guard case .loaded(let plugin) = PluginLoader(probe: probe).load(BuildProducts.itemsList) else {
      Issue.record("the sample plugin should load through the probe")
      return
    }
    #expect(plugin.contracts.map(\.urn) == ["items:list"])
  }

  @Test func crashingPluginDoesNotStopTheOthersOnTheCommandLine() throws {
    let dir = try TemporaryDirectory()
    try dir.copy(BuildProducts.itemsList, as: "libItemsList.so")
    _ = try CPluginBuilder.plugin(entryBody: "__builtin_trap(); return 0;", named: "crash.so", in: dir)
    let result = try ProcessRunner.vivarium(["plugins", "--plugins", dir.path])
    #expect(result.status == 0)
    #expect(result.stdout.contains("rejected  crash.so"))
    #expect(result.stdout.contains("loaded    libItemsList.so"))
    let render = try ProcessRunner.vivarium(["render", "items:list", "--plugins", dir.path])
    #expect(render.status == 0)
    #expect(render.stderr.contains("skipped \(dir.path)/crash.so (crashed)"))
  }
}
