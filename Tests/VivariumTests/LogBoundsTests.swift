import Foundation
import Testing
import ViperKit

@testable import VivariumLoading
@testable import VivariumRuntime

/// The log's disk use is bounded: a plugin logging as fast as it can is
/// held to its rate, the rest counted in one line, and `vivarium.log` is
/// renamed `vivarium.log.1` past its size, replacing the one before.
@Suite("Log bounds")
@MainActor
struct LogBoundsTests {
  let data: TemporaryDirectory

  init() throws {
    data = try TemporaryDirectory()
  }

  private var logText: String {
    (try? String(contentsOfFile: data.path + "/vivarium.log", encoding: .utf8)) ?? ""
  }

  @Test func aPluginLoggingAsFastAsItCanIsHeldToItsRateAndTheRestCountedInOneLine() async throws {
    let services = TestServices.make(in: data)
    let contract = Contract(urn: "chatty:main", summary: "logs", services: [.log])
    let plugin = PluginIdentity(name: "ChattyPlugin", path: data.path + "/libChatty.so")
    let log = try #require(services.services(for: contract, plugin: plugin, urn: "chatty:main").log)
    let line = String(repeating: "x", count: 1024)
    let start = ContinuousClock.now
    let attempts = 20_000
    for _ in 0..<attempts { log.log(.info, line) }
    let elapsed = ContinuousClock.now - start
    // The count, a second after the first line dropped.
    for _ in 0..<500 where !logText.contains("lines dropped") { try await Task.sleep(for: .milliseconds(10)) }
    let lines = logText.split(separator: "\n")
    let logged = lines.filter { $0.contains(" chatty:main: ") }.count
    let (rate, burst) = services.pluginLogRate
    let seconds = Double(elapsed.components.seconds) + 1
    #expect(logged <= Int(burst + rate * seconds), "\(logged) lines logged in \(elapsed)")
    let summary = try #require(lines.first { $0.contains("ChattyPlugin: ") && $0.contains(" lines dropped") })
    let dropped = summary.split(separator: " ").firstIndex(of: "lines").map { summary.split(separator: " ")[$0 - 1] }
    #expect(dropped.flatMap { Int($0) }.map { $0 + logged } == attempts, "\(summary)")
    // Another plugin is not held to the first one's rate.
    let other = try #require(
      services.services(for: contract, plugin: PluginIdentity(name: "Quiet", path: "/q/libQuiet.so"), urn: "quiet:main")
        .log)
    other.log(.info, "still heard")
    #expect(logText.contains("still heard"))
  }

  /// What the host logs about a plugin's requests counts against that
  /// plugin's rate: a module asking, as fast as it can, for a push its
  /// contract does not declare, and starting work that fails, fills no
  /// more of the log than its own lines would, and the lines past its rate
  /// are counted in one line.
  @Test func theHostsLinesAboutAPluginsRequestsCountAgainstItsRate() async throws {
    let services = TestServices.make(in: data)
    // A rate no machine's speed can reach with these attempts.
    services.pluginLogRate = (rate: 1, burst: 20)
    let recorder = ProbeRecorder()
    let contract = Contract(urn: "pushy:main", summary: "Pushes what it does not declare.")
    let plugin = LoadedPlugin(
      path: data.path + "/libPushy.so", name: "PushyPlugin",
      factories: [ProbeFactory(contract: contract, recorder: recorder).factory])
    let runtime = HostRuntime(catalog: PluginCatalog(outcomes: [.loaded(plugin)]), services: services)
    try await runtime.open("pushy:main")
    let router = try #require(recorder.context("pushy:main")).router
    let attempts = 300
    let start = ContinuousClock.now
    for _ in 0..<attempts {
      router.push("pushy:main")
      runtime.drain()
    }
    #expect(runtime.top?.urn == "pushy:main" && runtime.layers.count == 1, "no undeclared push was carried out")
    // Work it starts that fails, each failure a line of the host's about it.
    struct Refused: Error {}
    let work = try #require(recorder.context("pushy:main")).work
    for _ in 0..<attempts { work.start("fail") { throw Refused() } }
    for _ in 0..<500 where !runtime.work.isIdle { try await Task.sleep(for: .milliseconds(10)) }
    #expect(runtime.work.isIdle)
    for _ in 0..<500 where !logText.contains("lines dropped") { try await Task.sleep(for: .milliseconds(10)) }
    let lines = logText.split(separator: "\n")
    let refusals = lines.filter { $0.contains(" pushy:main: ") }.count
    #expect(refusals < 2 * attempts)
    let (rate, burst) = services.pluginLogRate
    let seconds = Double((ContinuousClock.now - start).components.seconds) + 1
    #expect(refusals <= Int(burst + rate * seconds) && refusals >= Int(burst), "\(refusals) of \(2 * attempts) logged")
    #expect(lines.contains { $0.contains("PushyPlugin: ") && $0.contains(" lines dropped") }, "\(lines.suffix(3))")
  }

  @Test func theLogIsRenamedPastItsSizeSoItsDiskUseIsBounded() throws {
    let services = TestServices.make(in: data)
    let line = String(repeating: "y", count: 1024)
    for _ in 0..<(20 << 10) { services.logLine(.info, module: "host", line) }
    let path = data.path + "/vivarium.log"
    let size = { (path: String) in
      ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int) ?? 0
    }
    let limit = services.logFileLimit
    #expect(size(path) < limit, "vivarium.log: \(size(path)) bytes")
    #expect(size(path + ".1") >= limit && size(path + ".1") < limit + 2048, "vivarium.log.1: \(size(path + ".1"))")
    #expect(!FileManager.default.fileExists(atPath: path + ".2"))
    services.logLine(.info, module: "host", "after the rename")
    #expect(logText.hasSuffix("after the rename\n"))
  }

  @Test func aLongMessageIsCutInTheLog() throws {
    let services = TestServices.make(in: data)
    services.logLine(.info, module: "host", String(repeating: "z", count: 1 << 20))
    #expect(logText.count < HostServices.longestMessage + 200)
    #expect(logText.contains("bytes more)"))
  }
}
