import Foundation
import Glibc
import Testing

@testable import VivariumLoading

/// What was checked is what runs: a file replaced between its checks (or its
/// probe) and its loading is not what the host loads. Each test replaces the
/// file at the worst moment, just before the host's own `dlopen`.
@Suite("Replacing a plugin while it loads")
@MainActor
struct LoadingRaceTests {
  @Test func aFileReplacedAfterItsProbeIsNotWhatTheHostLoads() throws {
    let dir = try TemporaryDirectory()
    let path = try dir.copy(BuildProducts.itemsList, as: "libItemsList.so")
    // Were the host to load this one, the test process would die here.
    let crasher = try CPluginBuilder.plugin(constructor: "__builtin_trap();", named: "crasher.so", in: dir)
    let loader = PluginLoader(
      probe: PluginProbe(executable: BuildProducts.vivarium, timeout: .seconds(30)),
      beforeLoading: { rename(crasher, $0) })
    guard case .loaded(let plugin) = loader.load(path) else {
      Issue.record("the probed copy of ItemsList should load")
      return
    }
    #expect(plugin.contracts.map(\.urn) == ["items:list"])
    #expect(!FileManager.default.fileExists(atPath: crasher), "the swap happened")
  }

  @Test func aFileSwappedForAWorldWritableOneAfterItsChecksDoesNotRun() throws {
    let dir = try TemporaryDirectory()
    let path = try dir.copy(BuildProducts.itemsList, as: "libItemsList.so")
    let marker = dir.path + "/ran"
    let intruder = try CPluginBuilder.plugin(
      constructor: "fclose(fopen(\"\(marker)\", \"w\"));", named: "intruder.so", in: dir)
    chmod(intruder, 0o666)
    let loader = PluginLoader(beforeLoading: { rename(intruder, $0) })
    guard case .loaded(let plugin) = loader.load(path) else {
      Issue.record("the checked copy of ItemsList should load")
      return
    }
    #expect(plugin.contracts.map(\.urn) == ["items:list"])
    #expect(!FileManager.default.fileExists(atPath: marker), "code from the mode-666 file ran in the host")
  }
}
