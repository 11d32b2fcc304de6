// Prints, side by side, plugins hosted in processes of their own (the default
// of `vivarium run` and `render`) and --in-process, in a release build on the
// demo plugin directory:
//  1. the round trip of a view event to the screen redrawn and laid out as
//     text (80 columns), on products:search (Next and Previous in turn: the
//     module reads its storage, a call back into the host, then draws a new
//     page) and on login:form (Sign in with nothing typed: it draws a notice,
//     with no call back into the host); both modes are up at once and take
//     turns, 200 events at a time;
//  2. session start: `vivarium render login:form` in a fresh process each
//     time, the two modes in turn, until the screen is printed and until
//     the process has exited;
//  3. resident memory: in a fresh host per mode that has loaded the plugins
//     and opened login:form and products:search, each plugin process and the
//     host (VmRSS, and PSS, which splits pages the processes share).
//  4. the boundary (issue 28; Boundary.swift): an empty round trip over a
//     socket pair as the floor, the same with each side's main actor in the
//     loop, and the same carrying each event's own messages through the
//     codec (CodedEcho.swift), measured between the events; the CPU time per
//     event of the host and the plugin processes; a tap while another plugin
//     is hung, and a tap with 1, 100 and 1,000 live modules in one plugin
//     process. `--codec` prints the codec's figures alone: a draw of 1, 10
//     and 100 rows, whole and, for 10 and 100, one row changed sent as
//     changes (a ViewTreeDiff).
// Built and run by Scripts/benchmark:
//   process-benchmark VIVARIUM PLUGIN-DIR FAULTY-PLUGIN-DIR
// where VIVARIUM is the release `vivarium` that plugin processes run as
// (`vivarium __plugin FILE`), PLUGIN-DIR one made by Scripts/make-plugin-dir
// and FAULTY-PLUGIN-DIR one made with VIVARIUM_DEMO_FAULTY=1.
import Foundation
import Glibc
import ViperKit
import VivariumApp
import VivariumLoading
import VivariumRuntime
import VivariumWire

/// How the plugins are hosted.
enum Mode: String, CaseIterable {
  case outOfProcess = "out"
  case inProcess = "in"

  var label: String { self == .outOfProcess ? "out of process" : "--in-process" }
}

/// A fixed time, so that no module's clock runs on its own.
let virtualNow = 1_795_262_400.0

func fail(_ message: String) -> Never {
  FileHandle.standardError.write(Data("process-benchmark: \(message)\n".utf8))
  exit(1)
}

func nanoseconds() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

/// `text` padded with spaces to `width` characters.
func pad(_ text: String, _ width: Int) -> String {
  text.padding(toLength: max(width, text.count), withPad: " ", startingAt: 0)
}

/// `median (min–max)` of `values`.
func summary(_ values: [Double], _ format: String = "%.1f") -> String {
  let sorted = values.sorted()
  return String(
    format: "\(format) (\(format)–\(format))", sorted[sorted.count / 2], sorted[0], sorted[sorted.count - 1])
}

func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }

/// A runtime over the plugins of `directory`, hosted as `mode` says.
@MainActor
func makeRuntime(
  _ mode: Mode, vivarium: String, plugins directory: String, data: String, responseLimit: Int = 3,
  now: Double? = virtualNow, confined: Bool = true
) async -> HostRuntime {
  let discovery = PluginDiscovery(commandLine: [directory], environment: [:], executable: vivarium)
  var hosting = PluginProcessOptions(executable: vivarium, responseLimit: .seconds(responseLimit))
  hosting.confined = confined
  let outcomes = mode == .outOfProcess ? await discovery.load(hosting: hosting) : discovery.load(with: PluginLoader())
  let catalog = PluginCatalog(outcomes: outcomes)
  for rejection in catalog.rejected where !rejection.isSDKLibrary {
    fail("\(mode.label): \(rejection.path) refused: \(rejection.reasons.joined(separator: "; "))")
  }
  guard !catalog.loaded.isEmpty else { fail("no plugins in \(directory)") }
  return HostRuntime(catalog: catalog, services: HostServices(dataDirectory: data, now: now))
}

// MARK: 1. Round trips

/// A screen and the events sent to it in turn, each with text the screen
/// shows once the module has redrawn.
struct Scenario {
  let title: String
  let urn: String
  let steps: [(event: ViewEvent, shows: String)]
}

let scenarios = [
  Scenario(
    title: "products:search, Next and Previous in turn (reads its storage, draws a new page)",
    urn: "products:search",
    steps: [(.tap(button: "next"), "page 2 of 3"), (.tap(button: "previous"), "page 1 of 3")]),
  Scenario(
    title: "login:form, Sign in with nothing typed (draws a notice; no call back into the host)",
    urn: "login:form",
    steps: [(.tap(button: "signIn"), "Type a user name and a password.")]),
]

/// The draw a plugin process sends for each step of `scenario`, in turn:
/// what changed from the screen before it (whole, if that is smaller).
/// Taken by going through the steps once in `runtime`, in one process,
/// which they leave where they found it.
@MainActor
func drawMessages(_ scenario: Scenario, _ runtime: HostRuntime) async -> [PluginMessage] {
  guard var before = runtime.screen()?.tree else { fail("\(scenario.urn) drew nothing") }
  var draws: [PluginMessage] = []
  for (event, _) in scenario.steps {
    do {
      try runtime.send(event)
    } catch {
      fail("\(scenario.urn): \(error)")
    }
    await runtime.settleCalls(limit: 60)
    guard let after = runtime.screen()?.tree else { fail("\(scenario.urn) drew nothing") }
    let changes = ViewTreeDiff.diff(from: before, to: after)
    draws.append(changes.wholeTree.map { .draw(module: 1, $0) } ?? .drawChanges(module: 1, changes))
    before = after
  }
  return draws
}

/// Microseconds from each event sent to its screen redrawn (the host's
/// screen showing the change, laid out as text), per mode, and to the
/// event's call settled as a script's line waits for it: `events` per mode,
/// in turns of `turn`, after `turn / 2` not counted. Before each event out
/// of process, one trip of each floor (`echoes`), so that the floors are
/// measured under the same load and core placement as the events.
@MainActor
func roundTrips(
  _ scenario: Scenario, _ runtimes: [Mode: HostRuntime], events: Int, turn: Int,
  echoes: (blocking: BlockingEcho, handoff: HandoffEcho), benchmark: String
) async -> (shown: [Mode: [Double]], settled: [Mode: [Double]], floors: Floors) {
  var (shown, settled): ([Mode: [Double]], [Mode: [Double]]) = ([:], [:])
  var (blocking, handoff, codedTrips): ([Double], [Double], [Double]) = ([], [], [])
  var sent: [Mode: Int] = [:]
  // CPU time, µs: the host's for each event (every thread of this process,
  // from the event sent until its call settled) and for each trip of the
  // floors (the host's side of them), and the plugin processes' per turn.
  var (cpuHost, cpuFloors, cpuPlugin): ([Double], [[Double]], [Double]) = ([], [[], [], []], [])
  let screens = runtimes.mapValues(ScreenWaiter.init)
  for mode in Mode.allCases {
    do {
      try await runtimes[mode]!.open(scenario.urn)
    } catch {
      fail("\(mode.label): cannot open \(scenario.urn): \(error)")
    }
  }
  // The coded floor answers each event with the screen's own draw, as a
  // plugin process sends it (what changed), and the call's answer.
  let draws = await drawMessages(scenario, runtimes[.inProcess]!)
  let coded = CodedEcho<HostMessage, PluginMessage>(
    benchmark: benchmark, replies: draws.map { [$0, .done(call: 1)] })
  defer { coded.close() }
  for round in 0...(events / turn) {
    // Round 0 warms up; the order of the modes alternates.
    for mode in round % 2 == 0 ? Mode.allCases : Mode.allCases.reversed() {
      let runtime = runtimes[mode]!
      let cpuBefore = mode == .outOfProcess ? pluginCPUNanoseconds(runtime) : 0
      defer {
        if mode == .outOfProcess, round > 0 {
          cpuPlugin.append(Double(pluginCPUNanoseconds(runtime) - cpuBefore) / 1000 / Double(turn))
        }
      }
      for _ in 0..<(round == 0 ? turn / 2 : turn) {
        let (event, shows) = scenario.steps[sent[mode, default: 0] % scenario.steps.count]
        sent[mode, default: 0] += 1
        if mode == .outOfProcess {
          var cpu = [hostCPUNanoseconds()]
          let blockingTrip = echoes.blocking.trip()
          cpu.append(hostCPUNanoseconds())
          let handoffTrip = await echoes.handoff.trip()
          cpu.append(hostCPUNanoseconds())
          let codedTrip = await coded.trip(.event(call: UInt32(sent[mode, default: 0]), module: 1, event))
          cpu.append(hostCPUNanoseconds())
          if round > 0 {
            (blocking, handoff, codedTrips) = (
              blocking + [blockingTrip], handoff + [handoffTrip], codedTrips + [codedTrip]
            )
            for floor in 0..<3 { cpuFloors[floor].append(Double(cpu[floor + 1] - cpu[floor]) / 1000) }
          }
        }
        screens[mode]!.expect(shows)
        let cpuStart = hostCPUNanoseconds()
        let start = nanoseconds()
        do {
          try runtime.send(event)
        } catch {
          fail("\(mode.label): \(scenario.urn): \(error)")
        }
        // Out of process the draw comes on its own time; a script's line
        // then waits for the call's answer too.
        let drawn = await screens[mode]!.shown(now: mode == .inProcess)
        await runtime.settleCalls(limit: 60)
        let done = nanoseconds()
        if round > 0, mode == .outOfProcess { cpuHost.append(Double(hostCPUNanoseconds() - cpuStart) / 1000) }
        if round > 0 {
          shown[mode, default: []].append(Double(drawn - start) / 1000)
          settled[mode, default: []].append(Double(done - start) / 1000)
        }
      }
    }
  }
  // Where the time goes: CPU time, not waiting. The host's per event is
  // from the event sent until its call settled, with the screen laid out
  // as text; beside it, the host's share of each floor's trip.
  print("    CPU time per event out of process: host \(tail(cpuHost)); plugin processes, per turn \(tail(cpuPlugin))")
  let hostMedian = median(cpuHost)
  let codedMedian = median(cpuFloors[2])
  print(
    String(
      format:
        "    the host's CPU per trip of the floors: socket pair %.1f, main actors %.1f, main actors and the codec %.1f µs; host per event ≤ 100 µs: %@; / the coded floor's %.1f× (≤ 2×: %@)",
      median(cpuFloors[0]), median(cpuFloors[1]), codedMedian, hostMedian <= 100 ? "met" : "MISSED",
      hostMedian / codedMedian, hostMedian <= 2 * codedMedian ? "met" : "MISSED"))
  for (mode, runtime) in runtimes {
    for problem in runtime.takeProblems() { print("  problem (\(mode.label)): \(problem)") }
  }
  return (shown, settled, Floors(blocking: blocking, handoff: handoff, coded: codedTrips))
}

/// CPU time so far, in nanoseconds, of this process: every thread.
func hostCPUNanoseconds() -> UInt64 {
  var now = timespec()
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now)
  return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
}

/// CPU time so far, in nanoseconds, of `runtime`'s plugin processes
/// together, from /proc's schedstat.
@MainActor
func pluginCPUNanoseconds(_ runtime: HostRuntime) -> UInt64 {
  func process(_ pid: pid_t) -> UInt64 {
    let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
    return tasks.reduce(0) { total, task in
      total + (contents("/proc/\(pid)/task/\(task)/schedstat")?.split(separator: " ").first.flatMap { UInt64($0) } ?? 0)
    }
  }
  let plugins = runtime.catalog.loaded.compactMap { $0.process?.pid }.filter { $0 > 0 }
  return plugins.reduce(0) { $0 + process($1) }
}

// MARK: 2. Child processes

/// How a child process ran: microseconds to its first byte on stdout and to
/// its exit, its wait status, and what it wrote.
struct ChildRun {
  var firstOutput: Double
  var exit: Double
  var status: Int32
  var output: String
  var errors: String

  var exitedCleanly: Bool { status & 0x7f == 0 && (status >> 8) & 0xff == 0 }
}

/// Runs `arguments` (the executable first) with stdin from /dev/null and
/// stdout and stderr read here, and times it.
func timedRun(_ arguments: [String]) -> ChildRun {
  var outPipe: [Int32] = [0, 0]
  var errPipe: [Int32] = [0, 0]
  guard pipe(&outPipe) == 0, pipe(&errPipe) == 0 else { fail("pipe: \(String(cString: strerror(errno)))") }
  for fd in outPipe + errPipe { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
  var actions = posix_spawn_file_actions_t()
  posix_spawn_file_actions_init(&actions)
  defer { posix_spawn_file_actions_destroy(&actions) }
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
  posix_spawn_file_actions_adddup2(&actions, outPipe[1], 1)
  posix_spawn_file_actions_adddup2(&actions, errPipe[1], 2)
  let argv = arguments.map { strdup($0) } + [nil]
  let envp = ProcessInfo.processInfo.environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
  defer { (argv + envp).forEach { free($0) } }
  var pid: pid_t = 0
  let start = nanoseconds()
  let spawned = posix_spawn(&pid, arguments[0], &actions, nil, argv, envp)
  close(outPipe[1])
  close(errPipe[1])
  guard spawned == 0 else { fail("cannot start \(arguments[0]): \(String(cString: strerror(spawned)))") }
  var first: UInt64?
  var output: [UInt8] = []
  var errors: [UInt8] = []
  var open = [outPipe[0], errPipe[0]]
  var buffer = [UInt8](repeating: 0, count: 65_536)
  while !open.isEmpty {
    var fds = open.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
    guard poll(&fds, nfds_t(fds.count), -1) >= 0 else {
      if errno == EINTR { continue }
      fail("poll: \(String(cString: strerror(errno)))")
    }
    for entry in fds where entry.revents != 0 {
      let count = buffer.withUnsafeMutableBytes { read(entry.fd, $0.baseAddress, $0.count) }
      if count < 0, errno == EINTR { continue }
      guard count > 0 else {
        open.removeAll { $0 == entry.fd }
        close(entry.fd)
        continue
      }
      if entry.fd == outPipe[0] {
        first = first ?? nanoseconds()
        output += buffer[0..<count]
      } else {
        errors += buffer[0..<count]
      }
    }
  }
  var status: Int32 = 0
  while waitpid(pid, &status, 0) < 0, errno == EINTR {}
  let end = nanoseconds()
  return ChildRun(
    firstOutput: Double((first ?? end) - start) / 1000, exit: Double(end - start) / 1000, status: status,
    output: String(decoding: output, as: UTF8.self), errors: String(decoding: errors, as: UTF8.self))
}

// MARK: 3. Memory

/// The whole of `path`, read to its end (files in /proc say they are empty).
func contents(_ path: String) -> String? {
  let fd = open(path, O_RDONLY | O_CLOEXEC)
  guard fd >= 0 else { return nil }
  defer { close(fd) }
  var bytes: [UInt8] = []
  var buffer = [UInt8](repeating: 0, count: 4096)
  while true {
    let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
    guard count > 0 else { break }
    bytes += buffer[0..<count]
  }
  return String(decoding: bytes, as: UTF8.self)
}

/// The value in kB of the line starting `field` in /proc/PID/`file`, or nil.
func procKilobytes(_ pid: pid_t, _ file: String, _ field: String) -> Double? {
  let line = contents("/proc/\(pid)/\(file)")?.split(separator: "\n").first { $0.hasPrefix(field + ":") }
  return line.flatMap { $0.split(separator: " ").dropFirst().first.flatMap { Double($0) } }
}

/// `rss pss` of process `pid`, in kB.
func memory(_ pid: pid_t) -> String {
  let rss = procKilobytes(pid, "status", "VmRSS") ?? -1
  let pss = procKilobytes(pid, "smaps_rollup", "Pss") ?? -1
  return "\(rss) \(pss)"
}

/// The child of figure 3: loads the plugins as `mode` says, opens the two
/// screens, and prints `host RSS PSS` and `plugin NAME PID RSS PSS` lines (kB).
@MainActor
func resident(_ mode: Mode, vivarium: String, plugins: String, data: String) async {
  let runtime = await makeRuntime(mode, vivarium: vivarium, plugins: plugins, data: data)
  for urn in ["login:form", "products:search"] {
    do {
      try await runtime.open(urn)
    } catch {
      fail("\(mode.label): cannot open \(urn): \(error)")
    }
  }
  for _ in 0..<10 { await Task.yield() }
  print("host \(memory(getpid()))")
  for plugin in runtime.catalog.loaded {
    guard let process = plugin.process else { continue }
    print("plugin \(plugin.name) \(process.pid) \(memory(process.pid))")
  }
  runtime.shutdown()
}

// MARK: Main

@MainActor
func main() async {
  var arguments = Array(CommandLine.arguments.dropFirst())
  if arguments.first == "--echo-through-main" { echoThroughTheMainActor() }
  // `--codec`: only the codec's figures, to profile them.
  if arguments.first == "--codec" {
    for rows in [1, 10, 100] { codecFigures(rows: rows, changes: rows > 1) }
    return
  }
  if arguments.first == "--resident", arguments.count == 5, let mode = Mode(rawValue: arguments[1]) {
    await resident(mode, vivarium: arguments[2], plugins: arguments[3], data: arguments[4])
    return
  }
  // `--round-trips` alone: only the round trips and their floors, to profile them;
  // `--service-calls`: only business service calls (Scripts/benchmark services);
  // `--sandbox`: only confinement's cost (Scripts/benchmark sandbox).
  let onlyRoundTrips = arguments.first == "--round-trips"
  let onlyServiceCalls = arguments.first == "--service-calls"
  let onlySandbox = arguments.first == "--sandbox"
  if arguments.first == "--echo-coded" { echoCodedThroughTheMainActor(playing: arguments.dropFirst().first) }
  if onlyRoundTrips || onlyServiceCalls || onlySandbox { arguments.removeFirst() }
  guard arguments.count == 3 else {
    fail(
      "usage: process-benchmark [--round-trips | --service-calls | --sandbox] VIVARIUM PLUGIN-DIR FAULTY-PLUGIN-DIR")
  }
  arguments = arguments.map { URL(fileURLWithPath: $0).standardizedFileURL.path }
  let (vivarium, plugins, faulty) = (arguments[0], arguments[1], arguments[2])
  guard access(vivarium, X_OK) == 0 else { fail("\(vivarium) is not an executable") }
  let benchmark =
    (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
  let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("vivarium-process-\(getpid())").path
  defer { try? FileManager.default.removeItem(atPath: scratch) }
  func data(_ name: String) -> String {
    let path = scratch + "/" + name
    try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
  }

  // Other work on the machine moves every figure: say how busy it was.
  let load = contents("/proc/loadavg")?.split(separator: " ").prefix(3)
  print(
    "(\(ProcessInfo.processInfo.activeProcessorCount) cores; load average at the start \(load?.joined(separator: " ") ?? "unknown") over 1, 5, 15 minutes)"
  )

  if onlySandbox {
    await sandboxFigures(vivarium: vivarium, plugins: plugins, data: data)
    return
  }
  if onlyServiceCalls {
    await serviceCallFigures(vivarium: vivarium, benchmark: benchmark, plugins: faulty, data: data)
    await serviceChaos(vivarium: vivarium, plugins: faulty, data: data("chaos"))
    return
  }

  // 1. One process each way, both up at once.
  let events = 2_000
  print(
    "Round trip: one view event until the host's screen shows the change, laid out as text (\(events) events per mode; µs)"
  )
  // The floors of a call into another process, for the round trips and the boundary.
  let floors = Floors(
    blocking: socketPairFloor(count: 5_000), handoff: await handoffFloor(benchmark: benchmark, count: 5_000))
  var runtimes: [Mode: HostRuntime] = [:]
  for mode in Mode.allCases {
    runtimes[mode] = await makeRuntime(mode, vivarium: vivarium, plugins: plugins, data: data("trips-\(mode.rawValue)"))
  }
  let echoes = (blocking: BlockingEcho(), handoff: HandoffEcho(benchmark: benchmark))
  defer {
    echoes.blocking.close()
    echoes.handoff.close()
  }
  for scenario in scenarios {
    print("  \(scenario.title)")
    let (times, settled, between) = await roundTrips(
      scenario, runtimes, events: events, turn: 200, echoes: echoes, benchmark: benchmark)
    for mode in Mode.allCases { print("    \(pad(mode.label, 16)) \(tail(times[mode]!))") }
    for mode in Mode.allCases {
      print("    \(pad(mode.label, 16)) \(tail(settled[mode]!))  (until a script's line returns)")
    }
    let out = times[.outOfProcess]!.sorted()
    let (outMedian, outP99) = (out[out.count / 2], out[out.count * 99 / 100])
    print(
      "    target out of process: median < 300 µs \(outMedian < 300 ? "met" : "MISSED"), p99 < 1000 µs \(outP99 < 1000 ? "met" : "MISSED")"
    )
    print(floors.ratios(of: outMedian) + " (against the floors measured before)")
    print(
      "    floors measured between its events: socket pair \(tail(between.blocking)); main actors \(tail(between.handoff)); main actors and the codec, carrying this event and this screen's draw \(tail(between.coded))"
    )
    print(between.ratios(of: outMedian) + " (against those)")
  }
  for runtime in runtimes.values { runtime.shutdown() }
  if onlyRoundTrips { return }
  await boundaryFigures(vivarium: vivarium, floors: floors, plugins: plugins, faulty: faulty, data: data)

  // 2. A fresh `vivarium render` each time.
  let runs = 15
  print(
    "Session start: vivarium render login:form in a fresh process, until its screen is printed and until it exits (\(runs) runs per mode in turn; ms)"
  )
  var printed: [Mode: [Double]] = [:]
  var exited: [Mode: [Double]] = [:]
  var notes: Set<String> = []
  for run in 0...runs {
    for mode in run % 2 == 0 ? Mode.allCases : Mode.allCases.reversed() {
      let command =
        [vivarium, "render", "login:form", "--plugins", plugins, "--data", data("render-\(mode.rawValue)")]
        + (mode == .inProcess ? ["--in-process"] : [])
      let result = timedRun(command)
      guard result.exitedCleanly, result.output.contains("Sign in") else {
        fail("\(command.joined(separator: " ")) failed (status \(result.status)):\n\(result.output)\(result.errors)")
      }
      if !result.errors.isEmpty { notes.insert("\(mode.label) wrote on stderr: \(result.errors)") }
      // Run 0 warms the page cache up.
      guard run > 0 else { continue }
      printed[mode, default: []].append(result.firstOutput / 1000)
      exited[mode, default: []].append(result.exit / 1000)
    }
  }
  for mode in Mode.allCases {
    print(
      "    \(pad(mode.label, 16)) screen printed \(summary(printed[mode]!))   exited \(summary(exited[mode]!))"
    )
  }
  let ratio = median(printed[.outOfProcess]!) / median(printed[.inProcess]!)
  let exitRatio = median(exited[.outOfProcess]!) / median(exited[.inProcess]!)
  print(
    String(
      format: "    out of process / in process (medians): screen printed %.2f×, exited %.2f×", ratio, exitRatio)
      + "  target ≤ 2×: \(ratio <= 2 ? "met" : "MISSED")")
  for note in notes.sorted() { print("    note: \(note)") }

  // 3. A fresh host per mode.
  print(
    "Resident memory: a fresh host per mode with login:form and products:search open (VmRSS MB; PSS, shared pages split, beside it)"
  )
  var hosts: [Mode: (rss: Double, pss: Double)] = [:]
  var processes: [(name: String, rss: Double, pss: Double)] = []
  for mode in Mode.allCases {
    let result = timedRun([
      benchmark, "--resident", mode.rawValue, vivarium, plugins, data("resident-\(mode.rawValue)"),
    ])
    guard result.exitedCleanly else { fail("the --resident \(mode.rawValue) child failed:\n\(result.errors)") }
    for line in result.output.split(separator: "\n") {
      let words = line.split(separator: " ").map(String.init)
      if words.first == "host", words.count == 3 {
        hosts[mode] = ((Double(words[1]) ?? 0) / 1024, (Double(words[2]) ?? 0) / 1024)
      } else if words.first == "plugin", words.count == 5, mode == .outOfProcess {
        processes.append((words[1], (Double(words[3]) ?? 0) / 1024, (Double(words[4]) ?? 0) / 1024))
      }
    }
  }
  guard let outHost = hosts[.outOfProcess], let inHost = hosts[.inProcess], !processes.isEmpty else {
    fail("the --resident children printed nothing usable")
  }
  for process in processes {
    let figures = String(format: "%6.1f MB  (PSS %5.1f)", process.rss, process.pss)
    print("    plugin process \(pad(process.name, 20)) \(figures)")
  }
  let rss = processes.map(\.rss)
  let pss = processes.map(\.pss)
  print(
    "    plugin processes: median \(summary(rss)) MB  "
      + String(
        format: "(PSS median %.1f); %d together %.1f MB (PSS %.1f)", median(pss), processes.count, rss.reduce(0, +),
        pss.reduce(0, +)))
  print(String(format: "    host, out of process       %6.1f MB  (PSS %5.1f)", outHost.rss, outHost.pss))
  print(String(format: "    host, --in-process         %6.1f MB  (PSS %5.1f)", inHost.rss, inHost.pss))
  print(
    String(
      format: "    all together: out of process %.1f MB (PSS %.1f), --in-process %.1f MB (PSS %.1f)",
      outHost.rss + rss.reduce(0, +), outHost.pss + pss.reduce(0, +), inHost.rss, inHost.pss))
}

await main()
