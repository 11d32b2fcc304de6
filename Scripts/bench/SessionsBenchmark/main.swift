// Prints, for 1, 100, 1,000 and 10,000 sessions in one host process (a
// release build, the demo's plugins each in a process of its own), each
// session signed in on the demo's dashboard with its search tab shown:
//  1. memory per session, the host and the plugin processes together
//     (proportional set sizes, /proc/PID/smaps_rollup), over the host with
//     its plugins started and no session open; and that of each session
//     opened since the count before (after the events timed there), which
//     leaves out what the first session pays once;
//  2. one view event in the first session (the search tab's Next and
//     Previous in turn, settled and laid out as text), median (min–max) of
//     200, and its ratio to the same with one session open;
//  3. with 1,000 sessions open, every session sending events at once: events
//     a second, and per second of CPU time (host and plugin processes);
//  4. the host's look at what each plugin is doing and costs, which it
//     takes each second while a plugins screen is open or `vivarium plugins
//     --live` asks (SharedHost.activity), median (min–max) of 50.
// Built and run by Scripts/benchmark:
//   sessions-benchmark VIVARIUM PLUGIN-DIR [LARGEST [EVENTS]]
// where VIVARIUM is the release `vivarium` that plugin processes run as,
// PLUGIN-DIR one made by Scripts/make-plugin-dir, and LARGEST the largest
// count (10000 unless given), EVENTS the events timed at each count (200
// unless given; more, to profile).
import Foundation
import Glibc
import ViperKit
import VivariumLoading
import VivariumRuntime
import VivariumSupport

func fail(_ message: String) -> Never {
  FileHandle.standardError.write(Data("sessions-benchmark: \(message)\n".utf8))
  exit(1)
}

func nanoseconds() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

/// `median (min–max)` of `values`.
func summary(_ values: [Double], _ format: String = "%.1f") -> String {
  let sorted = values.sorted()
  return String(
    format: "\(format) (\(format)–\(format))", sorted[sorted.count / 2], sorted[0], sorted[sorted.count - 1])
}

func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }

/// What `path` (a file in /proc, which says it is empty) holds.
func contents(_ path: String) -> String? { try? String(contentsOfFile: path, encoding: .utf8) }

/// The proportional set size of process `pid`, in KB.
func pss(_ pid: pid_t) -> Double {
  guard let text = contents("/proc/\(pid)/smaps_rollup"),
    let line = text.split(separator: "\n").first(where: { $0.hasPrefix("Pss:") }),
    let kilobytes = line.split(separator: " ").dropFirst().first.flatMap({ Double($0) })
  else { fail("cannot read the memory of process \(pid)") }
  return kilobytes
}

/// CPU time so far, in nanoseconds, of process `pid` (every thread).
func cpu(_ pid: pid_t) -> UInt64 {
  let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
  return tasks.reduce(0) { total, task in
    total + (contents("/proc/\(pid)/task/\(task)/schedstat")?.split(separator: " ").first.flatMap { UInt64($0) } ?? 0)
  }
}

let arguments = CommandLine.arguments
guard arguments.count >= 3 else { fail("usage: sessions-benchmark VIVARIUM PLUGIN-DIR [LARGEST [EVENTS]]") }
let (vivarium, pluginDirectory) = (arguments[1], arguments[2])
let largest = arguments.count > 3 ? Int(arguments[3]) ?? 10_000 : 10_000
let counts = [1, 100, 1_000, 10_000].filter { $0 <= largest }
let eventsTimed = arguments.count > 4 ? Int(arguments[4]) ?? 200 : 200

@MainActor
final class Bench {
  let host: SharedHost
  var sessions: [HostRuntime] = []
  let renderer = TextRenderer(width: 100)

  init(data: String) async {
    let discovery = PluginDiscovery(commandLine: [pluginDirectory], environment: [:], executable: vivarium)
    let outcomes = await discovery.load(
      hosting: PluginProcessOptions(executable: vivarium, responseLimit: .seconds(30)))
    let catalog = PluginCatalog(outcomes: outcomes)
    for rejection in catalog.rejected where !rejection.isSDKLibrary {
      fail("\(rejection.path) refused: \(rejection.reasons.joined(separator: "; "))")
    }
    let services = HostServices(dataDirectory: data, now: 1_795_262_400)
    services.httpMode = .replay(FileManager.default.currentDirectoryPath + "/Plugins/demo-http")
    do {
      try services.setSetting(.string("ada"), forKey: "session.user")
    } catch {
      fail("cannot sign in: \(error)")
    }
    host = SharedHost(catalog: catalog, services: services)
  }

  var pluginProcesses: [pid_t] { host.catalog.loaded.compactMap { $0.process?.pid }.filter { $0 > 0 } }

  /// The host's and the plugin processes' memory, in KB.
  func memory() -> (host: Double, plugins: Double) {
    (pss(getpid()), pluginProcesses.reduce(0) { $0 + pss($1) })
  }

  /// A new session on the dashboard, its search tab shown.
  func openSession() async -> HostRuntime {
    let session = host.openSession()
    do {
      try await session.open("dashboard:home")
      _ = await session.settleWork(limit: 60)
      try session.send(.tap(button: "tab.search"))
      _ = await session.settleWork(limit: 60)
    } catch {
      fail("cannot open the dashboard: \(error)")
    }
    let problems = session.takeProblems()
    if !problems.isEmpty { fail("the dashboard: \(problems)") }
    return session
  }

  func text(_ session: HostRuntime) -> String { session.screen()?.lines(renderer).joined(separator: "\n") ?? "" }

  /// Sends session's `index`-th event (Next, then Previous) and waits for it to be carried out.
  func event(_ session: HostRuntime, _ index: Int) async {
    do {
      try session.send(.tap(button: index % 2 == 0 ? "tabs/next" : "tabs/previous"))
    } catch {
      fail("the event: \(error)")
    }
    await session.settleCalls(limit: 60)
  }

  /// Microseconds per event in `session`, `count` of them, each checked on screen.
  func eventTimes(_ session: HostRuntime, count: Int) async -> [Double] {
    var times: [Double] = []
    for index in 0..<(count + 20) {
      let start = nanoseconds()
      await event(session, index)
      let shown = text(session)
      let end = nanoseconds()
      guard shown.contains(index % 2 == 0 ? "page 2 of" : "page 1 of") else {
        fail("the event \(index) was not carried out:\n\(shown)")
      }
      if index >= 20 { times.append(Double(end - start) / 1000) }
    }
    return times
  }
}

@MainActor
func run() async {
  let data = NSTemporaryDirectory() + "sessions-benchmark-\(getpid())"
  defer { try? FileManager.default.removeItem(atPath: data) }
  let bench = await Bench(data: data)
  // The first session loads the plugins' code and the host's; it is let go
  // before the baseline, which holds no session.
  let warmUp = await bench.openSession()
  warmUp.shutdown()
  _ = await warmUp.settleWork(limit: 60)
  let baseline = bench.memory()
  print(
    String(
      format: "  host with its plugins started, no session: host %.0f KB, plugin processes %.0f KB (%d processes)",
      baseline.host, baseline.plugins, bench.pluginProcesses.count))
  var oneSessionEvent: Double?
  // The memory before the sessions of each count were opened, after the
  // events timed at the count before (what they keep is not a session's).
  var before = (sessions: 0, memory: baseline)
  for count in counts {
    let start = nanoseconds()
    while bench.sessions.count < count { bench.sessions.append(await bench.openSession()) }
    let opened = Double(nanoseconds() - start) / 1e9
    let memory = bench.memory()
    let (host, plugins) = (
      (memory.host - baseline.host) / Double(count), (memory.plugins - baseline.plugins) / Double(count)
    )
    // Each session opened since the count before: a session's own cost,
    // without what the first one pays once (the allocator's arenas
    // touched, caches filled).
    let added = Double(count - before.sessions)
    let (addedHost, addedPlugins) = (
      (memory.host - before.memory.host) / added, (memory.plugins - before.memory.plugins) / added
    )
    print(
      String(
        format:
          "%6d sessions: %.1f KB per session (host %.1f, plugin processes %.1f); each of the %d opened since %d sessions: %.1f KB (host %.1f, plugin processes %.1f)%@; opened in %.1f s",
        count, host + plugins, host, plugins, count - before.sessions, before.sessions, addedHost + addedPlugins,
        addedHost, addedPlugins,
        before.sessions == 0 ? "" : addedHost + addedPlugins <= 64 ? ", ≤ 64 KB: met" : ", ≤ 64 KB: MISSED",
        opened))
    let times = await bench.eventTimes(bench.sessions[0], count: eventsTimed)
    let ratio = oneSessionEvent.map { median(times) / $0 } ?? 1
    if oneSessionEvent == nil { oneSessionEvent = median(times) }
    print(
      "        one event in the first session: \(summary(times)) µs, \(String(format: "%.2f", ratio))× that with one session"
    )
    if count == 1_000 { await throughput(bench) }
    let looks = (0..<50).map { _ in
      let start = nanoseconds()
      _ = bench.sessions[0].host.activity()
      return Double(nanoseconds() - start) / 1000
    }
    print("        the host's look at what each plugin costs (activity): \(summary(looks)) µs")
    before = (count, bench.memory())
  }
  for problem in bench.sessions.flatMap({ $0.takeProblems() }).prefix(5) { print("  problem: \(problem)") }
}

/// Every one of the first 1,000 sessions sends events at once, each waiting
/// for its own to be carried out before the next.
@MainActor
func throughput(_ bench: Bench) async {
  let sessions = Array(bench.sessions.prefix(1_000))
  let each = 10
  let processes = [getpid()] + bench.pluginProcesses
  let cpuBefore = processes.map(cpu).reduce(0, +)
  let start = nanoseconds()
  let senders = sessions.map { session in
    Task { @MainActor in
      for index in 0..<each { await bench.event(session, index) }
    }
  }
  for sender in senders { await sender.value }
  let seconds = Double(nanoseconds() - start) / 1e9
  let cpuSeconds = Double(processes.map(cpu).reduce(0, +) - cpuBefore) / 1e9
  let events = Double(sessions.count * each)
  print(
    String(
      format:
        "        %d sessions each sending %d events at once: %.0f events a second, %.0f per second of CPU (host and plugin processes, %.1f s of CPU in %.1f s)",
      sessions.count, each, events / seconds, events / cpuSeconds, cpuSeconds, seconds))
}

await run()
