// Prints, for an app of many plugins in one host process (a release build;
// docs/many-plugins.md), inputs of growing size side by side:
//  1. an event between plugins delivered to 1, 100 and 1,000 subscribers:
//     N sessions each showing the demo's feed, which embeds the wallet
//     preview, so N previews subscribe to `wallet.balance-changed`. The
//     event is published on the Wallet plugin's bus in the host (the
//     EventRouter, as a top-up's `publish` message reaches it) with a new
//     balance each time, and timed until every preview has drawn the new
//     balance and the host has it (each session told its screen changed):
//     median and p99, and per subscriber. With the plugins each in a
//     process of their own, that is one message to the Wallet process,
//     which hands the event to its N previews in turn, and N draws back;
//     then the same with --in-process, the router handing the event to the
//     N handlers in the host's process, each drawing there;
//  2. turning the Wallet plugin off and on (SharedHost.turnOff, turnOn)
//     while 1 and 100 sessions show its preview in their feed: each until
//     it returns, then until every preview says it is off (the host saw
//     its process end) and until every preview is back, rebuilt in the new
//     process and drawn (each session's text looked at, between sleeps of
//     0.1 ms), median (min–max) of 7 rounds after one, and per session;
//  3. the host's look at what each plugin is doing, taken each second while
//     a plugins screen is open or `vivarium plugins --live` asks
//     (SharedHost.sampleProcesses, off the main actor, then activity), with
//     1, 10 and 100 plugin processes running (generated plugins, each a
//     module shown): the host's CPU time per look, which is per second of
//     looking, and the main actor's part of it (activity alone), median
//     (min–max) of 50, and per process.
// Built and run by Scripts/benchmark plugins:
//   plugins-benchmark VIVARIUM PLUGIN-DIR GENERATED-DIR...
// where VIVARIUM is the release `vivarium` that plugin processes run as,
// PLUGIN-DIR one made by Scripts/make-plugin-dir, each GENERATED-DIR a
// directory of N generated plugins Gen0 … Gen{N-1} (URNs gen0:list …), one
// host each.
import Foundation
import Glibc
import ViperKit
import VivariumLoading
import VivariumRuntime
import VivariumSupport

func fail(_ message: String) -> Never {
  FileHandle.standardError.write(Data("plugins-benchmark: \(message)\n".utf8))
  exit(1)
}

func nanoseconds() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

/// CPU time of this process so far (every thread), in nanoseconds.
func processCPU() -> UInt64 {
  var time = timespec()
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
  return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
}

/// `median (min–max)` of `values`.
func summary(_ values: [Double], _ format: String = "%.1f") -> String {
  let sorted = values.sorted()
  return String(
    format: "\(format) (\(format)–\(format))", sorted[sorted.count / 2], sorted[0], sorted[sorted.count - 1])
}

func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }

/// The value below which 99 % of `values` lie (the largest but one of 100).
func p99(_ values: [Double]) -> Double {
  let sorted = values.sorted()
  return sorted[min(sorted.count - 1, Int((Double(sorted.count) * 0.99).rounded(.up)) - 1)]
}

/// The Wallet's topic, as its subscribers know it: a name and a payload's form.
enum BalanceChanged: EventTopic {
  static let name = "wallet.balance-changed"
  struct Payload: Codable, Sendable, Equatable { var balance: Int }
}

let arguments = CommandLine.arguments
guard arguments.count >= 4 else { fail("usage: plugins-benchmark VIVARIUM PLUGIN-DIR GENERATED-DIR...") }
let (vivarium, pluginDirectory, generatedDirectories) = (arguments[1], arguments[2], Array(arguments[3...]))
let hosting = PluginProcessOptions(executable: vivarium, responseLimit: .seconds(30))

@MainActor
final class Bench {
  let host: SharedHost
  let inProcess: Bool
  var sessions: [HostRuntime] = []
  /// Each session's wallet preview, and the tree it last drew.
  var previews: [ModuleNode] = []
  let renderer = TextRenderer(width: 100)

  init(directory: String, data: String, inProcess: Bool) async {
    self.inProcess = inProcess
    let discovery = PluginDiscovery(commandLine: [directory], environment: [:], executable: vivarium)
    let outcomes = inProcess ? discovery.load(with: PluginLoader()) : await discovery.load(hosting: hosting)
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
    host.reloader = PluginReloader(hosting: inProcess ? nil : hosting)
  }

  var wallet: PluginIdentity {
    guard let route = host.catalog.loaded.first(where: { $0.path.hasSuffix("/libWallet.so") }) else {
      fail("no Wallet plugin in \(pluginDirectory)")
    }
    return PluginIdentity(name: route.name, path: route.path)
  }

  /// Opens `urn` in a new session and waits for it to settle.
  func openSession(_ urn: String) async -> HostRuntime {
    let session = host.openSession()
    do {
      try await session.open(urn)
      _ = await session.settleWork(limit: 60)
    } catch {
      fail("cannot open \(urn): \(error)")
    }
    let problems = session.takeProblems()
    if !problems.isEmpty { fail("\(urn): \(problems)") }
    return session
  }

  func preview(of session: HostRuntime) -> ModuleNode? {
    session.nodes.first { $0.urn == "wallet:preview" && $0.tree != nil }
  }

  /// Sessions on the feed up to `count`, each with its wallet preview.
  func openFeeds(upTo count: Int) async {
    while sessions.count < count { sessions.append(await openSession("feed:home")) }
    previews = sessions.map { session in
      guard let node = preview(of: session) else { fail("a feed shows no wallet preview") }
      return node
    }
  }

  func text(_ session: HostRuntime) -> String { session.screen()?.lines(renderer).joined(separator: "\n") ?? "" }

  var balance = 1_000

  /// Microseconds from publishing a new balance to every preview having drawn it.
  func event() async -> Double {
    balance += 1
    let before = previews.map(\.tree)
    var left = Set(previews.indices)
    let bus = host.services.events.bus(for: wallet, module: "wallet:preview")
    let start = nanoseconds()
    var end: UInt64 = 0
    await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
      var resumed = false
      for (index, session) in sessions.enumerated() {
        session.onScreenChanged = { [unowned self] in
          guard left.contains(index), previews[index].tree != before[index] else { return }
          left.remove(index)
          if left.isEmpty, !resumed {
            end = nanoseconds()
            resumed = true
            done.resume()
          }
        }
      }
      do {
        try bus.publish(BalanceChanged.self, .init(balance: balance))
      } catch {
        fail("cannot publish: \(error)")
      }
      Task { @MainActor in
        try? await Task.sleep(for: .seconds(30))
        if !resumed {
          resumed = true
          fail("\(left.count) of \(previews.count) previews did not draw the balance \(balance) within 30 s")
        }
      }
    }
    for session in sessions { session.onScreenChanged = {} }
    return Double(end - start) / 1000
  }

  /// Checks the first and the last session show `€balance`.
  func check() {
    for session in [sessions[0], sessions[sessions.count - 1]] where !text(session).contains("Wallet: €\(balance)") {
      fail("a session does not show the balance €\(balance):\n\(text(session))")
    }
  }

  /// Every session settled.
  func settle() async {
    for session in sessions { _ = await session.settleWork(limit: 60) }
  }
}

/// The median with one subscriber, and the cost of each subscriber past
/// the first at the count before.
struct Growth {
  var one: Double?
  var added: (count: Int, cost: Double)?
}

@MainActor
func events(_ bench: Bench, at count: Int, growth: inout Growth) async {
  let timed = count >= 1_000 ? 100 : 200
  for _ in 0..<10 { _ = await bench.event() }
  var times: [Double] = []
  for _ in 0..<timed { times.append(await bench.event()) }
  bench.check()
  var linear = ""
  if let one = growth.one {
    let added = (median(times) - one) / Double(count - 1)
    linear = String(format: "; %.2f µs for each subscriber past the first", added)
    if let before = growth.added {
      linear += String(format: ", %.2f× that at %d", added / before.cost, before.count)
    }
    growth.added = (count, added)
  } else {
    growth.one = median(times)
  }
  print(
    String(
      format: "  %5d %@: median %.1f µs, p99 %.1f µs (%.1f–%.1f, %d events)%@",
      count, count == 1 ? "subscriber" : "subscribers", median(times), p99(times), times.min() ?? 0, times.max() ?? 0,
      timed, linear))
}

@MainActor
func switches(_ bench: Bench, at count: Int, rounds: Int = 7) async {
  let name = bench.wallet.name
  var (off, offSettled, on, onSettled): ([Double], [Double], [Double], [Double]) = ([], [], [], [])
  for round in 0..<(rounds + 1) {
    guard let process = bench.host.catalog.loaded.first(where: { $0.name == name })?.process else {
      fail("\(name) runs in no process")
    }
    var start = nanoseconds()
    let turnedOff = await bench.host.turnOff(name)
    let offCall = Double(nanoseconds() - start) / 1e6
    // Its modules say it is off once the host has seen its process end.
    while process.isRunning { try? await Task.sleep(for: .microseconds(100)) }
    let offAll = Double(nanoseconds() - start) / 1e6
    if let problem = turnedOff.problem { fail("turning \(name) off: \(problem)") }
    if let showing = bench.sessions.first(where: { bench.text($0).contains("Wallet: €") }) {
      fail("a preview does not say the plugin is off:\n\(bench.text(showing))")
    }
    start = nanoseconds()
    let turnedOn = await bench.host.turnOn(name)
    let onCall = Double(nanoseconds() - start) / 1e6
    var waiting = bench.sessions
    while true {
      waiting.removeAll { bench.text($0).contains("Wallet: €") }
      if waiting.isEmpty { break }
      try? await Task.sleep(for: .microseconds(100))
      if Double(nanoseconds() - start) > 60e9 { fail("\(waiting.count) previews not back within 60 s") }
    }
    let onAll = Double(nanoseconds() - start) / 1e6
    if let problem = turnedOn.problem { fail("turning \(name) on: \(problem)") }
    await bench.settle()
    for session in bench.sessions { _ = session.takeProblems() }
    if round == 0 { continue }  // the first round warms up
    off.append(offCall)
    offSettled.append(offAll)
    on.append(onCall)
    onSettled.append(onAll)
  }
  await bench.openFeeds(upTo: count)
  let per = { (values: [Double]) in String(format: "%.2f", median(values) / Double(count)) }
  print(
    "        turning the Wallet off and on with \(count) \(count == 1 ? "session" : "sessions") showing its preview: off \(summary(off)) ms, until every preview says so \(summary(offSettled)) ms (\(per(offSettled)) per session); on \(summary(on)) ms, until every preview is back \(summary(onSettled)) ms (\(per(onSettled)) per session); \(rounds) rounds"
  )
}

@MainActor
func eventsAndSwitches(inProcess: Bool) async {
  let data = NSTemporaryDirectory() + "plugins-benchmark-\(getpid())-\(inProcess)"
  defer { try? FileManager.default.removeItem(atPath: data) }
  let bench = await Bench(directory: pluginDirectory, data: data, inProcess: inProcess)
  var growth = Growth()
  for count in [1, 100, 1_000] {
    await bench.openFeeds(upTo: count)
    await events(bench, at: count, growth: &growth)
    // Turning it off and on, while these sessions show its preview.
    if !inProcess && count <= 100 { await switches(bench, at: count) }
  }
  for problem in bench.sessions.flatMap({ $0.takeProblems() }).prefix(5) { print("  problem: \(problem)") }
  for session in bench.sessions { session.shutdown() }
  for plugin in bench.host.catalog.loaded { plugin.process?.terminate() }
}

@MainActor
func activity(in directory: String, perProcessAtOne: inout Double?) async {
  let data = NSTemporaryDirectory() + "plugins-benchmark-\(getpid())-activity"
  defer { try? FileManager.default.removeItem(atPath: data) }
  let bench = await Bench(directory: directory, data: data, inProcess: false)
  let count = bench.host.catalog.loaded.count
  // A module of each shown, so that each process runs.
  while bench.sessions.count < count {
    bench.sessions.append(await bench.openSession("gen\(bench.sessions.count):list"))
  }
  let running = bench.host.catalog.loaded.filter { ($0.process?.pid ?? 0) > 0 && $0.process?.isRunning == true }
    .count
  guard running == count else { fail("\(running) plugin processes running, not \(count)") }
  var cpu: [Double] = []
  var onMain: [Double] = []
  for index in 0..<55 {
    let startCPU = processCPU()
    await bench.host.sampleProcesses()
    let sampled = nanoseconds()
    let plugins = bench.host.activity()
    let (endCPU, end) = (processCPU(), nanoseconds())
    guard plugins.filter({ $0.state == .running && $0.residentKiB != nil }).count == count else {
      fail("not every process is running and sampled")
    }
    if index >= 5 {
      cpu.append(Double(endCPU - startCPU) / 1e6)
      onMain.append(Double(end - sampled) / 1e6)
    }
    try? await Task.sleep(for: .milliseconds(20))
  }
  let perProcess = median(cpu) * 1000 / Double(count)
  let growth = perProcessAtOne.map { String(format: ", %.2f× that with one", perProcess / $0) } ?? ""
  if perProcessAtOne == nil { perProcessAtOne = perProcess }
  print(
    String(
      format: "  %3d %@: %@ ms of host CPU per second of looking (on the main actor %@ ms), %.0f µs per process%@",
      count, count == 1 ? "plugin process" : "plugin processes", summary(cpu, "%.2f"), summary(onMain, "%.3f"),
      perProcess, growth))
  for session in bench.sessions { session.shutdown() }
  for plugin in bench.host.catalog.loaded { plugin.process?.terminate() }
}

@MainActor
func run() async {
  print("An event to N subscribers, from publish to every one drawn (plugins in processes of their own):")
  await eventsAndSwitches(inProcess: false)
  print("The same, --in-process (the router and the handlers in the host's process):")
  await eventsAndSwitches(inProcess: true)
  print("The host's look at what each plugin is doing, once a second while someone looks:")
  var perProcessAtOne: Double?
  for directory in generatedDirectories { await activity(in: directory, perProcessAtOne: &perProcessAtOne) }
}

await run()
