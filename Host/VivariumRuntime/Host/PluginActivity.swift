import Foundation
import Glibc
import Synchronization
import VivariumLoading
import VivariumSupport

/// What one plugin is doing and what it costs, now: its state, its process,
/// CPU and memory, its modules live in every session, the calls it made in
/// the last minute and its restarts (Chrome's task manager, VS Code's
/// Running Extensions). The app's plugins screen and `vivarium plugins
/// --live` show it.
package struct PluginActivity: Codable, Sendable, Equatable {
  /// What a plugin is doing.
  package enum State: String, Codable, Sendable, CaseIterable {
    /// Its process runs and shows modules.
    case running
    /// Its process runs, with no module shown (its providers may serve).
    case idle
    /// Nothing of it was needed yet: no process was started.
    case notStarted = "not-started"
    /// The person turned it off.
    case disabled
    /// Its process ended (crashed, exited or was stopped); a restart starts it.
    case crashed
    /// Its process did not answer within the response limit.
    case notResponding = "not-responding"
    /// It runs inside the host's process (`--in-process`): no process of its own.
    case inProcess = "in-process"
  }

  /// The plugin's declared name.
  package let plugin: String
  /// Its file.
  package let file: String
  /// What it is doing.
  package let state: State
  /// Its process, while one runs.
  package let pid: Int32?
  /// The share of one core its process used since the last look, in percent.
  package let cpuPercent: Double?
  /// Its process's resident memory, in KiB.
  package let residentKiB: Int?
  /// Its process's proportional set size (shared pages divided among
  /// their users), in KiB.
  package let proportionalKiB: Int?
  /// Its modules live, in every session.
  package let modules: Int
  /// Host service calls its process made in the last minute.
  package let hostServiceCalls: Int
  /// Business service calls its process made in the last minute.
  package let businessServiceCalls: Int
  /// Http requests its process made in the last minute.
  package let httpRequests: Int
  /// How many times its process was started again.
  package let restarts: Int

  /// The host and business service calls its process made in the last minute.
  package var calls: Int { hostServiceCalls + businessServiceCalls }

  /// What plugins can be sorted by: the name and the state in alphabetical
  /// order, the others the largest first.
  package enum SortKey: String, CaseIterable, Sendable {
    /// The plugin's declared name.
    case name
    /// Its state's name.
    case state
    /// The share of a core its process used.
    case cpu
    /// Its process's proportional memory, else its resident memory.
    case memory
    /// Its modules live.
    case modules
    /// Its host and business service calls in the last minute.
    case calls
    /// Its process's restarts.
    case restarts

    /// Whether `a` goes before `b`; ties go by name.
    package func orders(_ a: PluginActivity, before b: PluginActivity) -> Bool {
      func larger<Value: Comparable>(_ value: (PluginActivity) -> Value) -> Bool {
        value(a) != value(b) ? value(a) > value(b) : a.plugin < b.plugin
      }
      switch self {
      case .name: return a.plugin != b.plugin ? a.plugin < b.plugin : a.file < b.file
      case .state: return a.state != b.state ? a.state.rawValue < b.state.rawValue : a.plugin < b.plugin
      case .cpu: return larger { $0.cpuPercent ?? -1 }
      case .memory: return larger { $0.proportionalKiB ?? $0.residentKiB ?? -1 }
      case .modules: return larger(\.modules)
      case .calls: return larger(\.calls)
      case .restarts: return larger(\.restarts)
      }
    }
  }
}

/// What plugin processes cost, read from `/proc` off the main actor: the
/// share of a core each used since the sample before, and its memory. A
/// look at a hundred processes reads a few hundred files (`smaps_rollup`
/// walks each process's whole memory map), so the host's main actor only
/// reads the last sample; a sample is taken on a queue of its own.
final class ProcessSampler: Sendable {
  /// What one process cost at the last sample.
  struct Sample: Sendable {
    /// The share of one core used since the sample before, in percent
    /// (nil at a process's first sample).
    var cpuPercent: Double?
    /// Resident memory, in KiB.
    var residentKiB: Int?
    /// Proportional set size, in KiB (nil when the process keeps its map from us).
    var proportionalKiB: Int?
  }

  private struct Reading {
    var ticks: Int
    var at: ContinuousClock.Instant
    var sample: Sample
  }

  private let readings = Mutex<[Int32: Reading]>([:])
  /// How old a sample may be and still be shown: the host samples each
  /// second while someone looks, and nobody is shown figures from a look
  /// long past.
  static let freshness = Duration.seconds(3)
  private let queue = DispatchQueue(label: "vivarium.process-sampler", qos: .utility)
  private static let ticksPerSecond = Double(sysconf(Int32(_SC_CLK_TCK)))
  private static let pageKiB = Int(sysconf(Int32(_SC_PAGESIZE))) / 1024

  /// The last sample of `pid`, if it was sampled within ``freshness`` and
  /// has not gone since.
  func last(_ pid: Int32) -> Sample? {
    readings.withLock { readings in
      readings[pid].flatMap { ContinuousClock.now - $0.at <= Self.freshness ? $0.sample : nil }
    }
  }

  /// Samples `pids` on the sampler's queue and returns when done, the
  /// caller suspended meanwhile; the processes not among `pids` are
  /// forgotten.
  func sample(_ pids: Set<Int32>) async {
    await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
      queue.async { [self] in
        var taken: [Int32: (ticks: Int, at: ContinuousClock.Instant, memory: (Int, Int?)?)] = [:]
        for pid in pids {
          guard let ticks = Self.cpuTicks(pid) else { continue }
          taken[pid] = (ticks, .now, Self.memory(pid))
        }
        readings.withLock { readings in
          var next: [Int32: Reading] = [:]
          for (pid, now) in taken {
            var percent: Double?
            if let before = readings[pid] {
              let elapsed = now.at - before.at
              let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
              if seconds > 0 { percent = Double(now.ticks - before.ticks) / Self.ticksPerSecond / seconds * 100 }
            }
            let sample = Sample(cpuPercent: percent, residentKiB: now.memory?.0, proportionalKiB: now.memory?.1)
            next[pid] = Reading(ticks: now.ticks, at: now.at, sample: sample)
          }
          readings = next
        }
        done.resume()
      }
    }
  }

  /// User and system CPU time of `pid`, in clock ticks (`/proc/PID/stat`).
  static func cpuTicks(_ pid: Int32) -> Int? {
    guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
      let end = text.lastIndex(of: ")")
    else { return nil }
    // After the name in parentheses: state is the first field, utime the 12th, stime the 13th.
    let fields = text[text.index(after: end)...].split(separator: " ")
    guard fields.count > 12, let user = Int(fields[11]), let system = Int(fields[12]) else { return nil }
    return user + system
  }

  /// Resident and proportional memory of `pid`, in KiB
  /// (`/proc/PID/smaps_rollup`); only the resident one (`/proc/PID/statm`)
  /// when the process keeps its memory map from other users (a confined
  /// plugin process is not dumpable, so only root reads its map).
  static func memory(_ pid: Int32) -> (resident: Int, proportional: Int?)? {
    guard let text = try? String(contentsOfFile: "/proc/\(pid)/smaps_rollup", encoding: .utf8) else {
      guard let statm = try? String(contentsOfFile: "/proc/\(pid)/statm", encoding: .utf8) else { return nil }
      let fields = statm.split(separator: " ")
      guard fields.count > 1, let pages = Int(fields[1]) else { return nil }
      return (pages * pageKiB, nil)
    }
    var resident: Int?
    var proportional: Int?
    for line in text.split(separator: "\n") {
      let parts = line.split(separator: " ", omittingEmptySubsequences: true)
      guard parts.count >= 2 else { continue }
      if parts[0] == "Rss:" { resident = Int(parts[1]) }
      if parts[0] == "Pss:" { proportional = Int(parts[1]) }
    }
    guard let resident, let proportional else { return nil }
    return (resident, proportional)
  }
}

extension SharedHost {
  /// What each plugin of the catalog is doing now, in catalog order, the
  /// plugins turned off among them. Its processes' CPU share and memory are
  /// those of the last sample (``sampleProcesses()``), if it is recent:
  /// nothing is read from `/proc` here, on the main actor.
  package func activity() -> [PluginActivity] {
    // A plugin process counts its own modules; those in the host's process are counted here.
    let inHost = catalog.loaded.contains { !$0.runsApart }
    let live = inHost ? Dictionary(grouping: sessions.flatMap(\.nodes), by: \.pluginPath).mapValues(\.count) : [:]
    let now = CallCounts.now
    return catalog.outcomes.compactMap { outcome in
      switch outcome {
      case .rejected(let rejection):
        guard rejection.kind == .disabled, let name = rejection.plugin else { return nil }
        return PluginActivity(
          plugin: name, file: rejection.path, state: .disabled, pid: nil, cpuPercent: nil, residentKiB: nil,
          proportionalKiB: nil, modules: 0, hostServiceCalls: 0, businessServiceCalls: 0, httpRequests: 0,
          restarts: 0)
      case .loaded(let plugin):
        guard let process = plugin.runningProcess else {
          let modules = live[plugin.path] ?? 0
          return PluginActivity(
            plugin: plugin.name, file: plugin.path, state: plugin.runsApart ? .notStarted : .inProcess, pid: nil,
            cpuPercent: nil, residentKiB: nil, proportionalKiB: nil, modules: modules, hostServiceCalls: 0,
            businessServiceCalls: 0, httpRequests: 0, restarts: 0)
        }
        let modules = process.liveModules
        let state: PluginActivity.State
        switch process.state {
        case .running: state = process.pid == 0 ? .notStarted : modules > 0 ? .running : .idle
        case .notResponding: state = .notResponding
        case .ended: state = process.turnedOff != nil ? .disabled : .crashed
        }
        let pid = Self.sampledPID(of: process)
        let sample = pid.flatMap(sampler.last)
        let calls = process.serviceDesk.calls
        return PluginActivity(
          plugin: plugin.name, file: plugin.path, state: state, pid: pid, cpuPercent: sample?.cpuPercent,
          residentKiB: sample?.residentKiB, proportionalKiB: sample?.proportionalKiB,
          modules: modules, hostServiceCalls: calls.count(.hostService, endingAt: now),
          businessServiceCalls: calls.count(.businessService, endingAt: now),
          httpRequests: calls.count(.http, endingAt: now), restarts: process.restarts)
      }
    }
  }

  /// Samples the CPU time and memory of every plugin process running, off
  /// the main actor (the host goes on meanwhile), for ``activity()`` to
  /// read; a share covers the time since the sample before.
  package func sampleProcesses() async {
    let pids = catalog.loaded.compactMap { $0.runningProcess.flatMap(Self.sampledPID) }
    await sampler.sample(Set(pids))
  }

  /// The process whose costs are shown for a plugin: none for one that
  /// ended (crashed, or turned off) or has not started.
  private static func sampledPID(of process: PluginSupervisor) -> Int32? {
    if case .ended = process.state { return nil }
    return process.pid == 0 ? nil : process.pid
  }
}

/// What a running host's plugins are doing, as it last published it in
/// `state/plugins-live.json` in its data directory: how `vivarium plugins
/// --live` sees an app another process runs. The host publishes it each
/// second while someone asks for it (``ask(in:)``, within the last few
/// seconds), and otherwise not at all.
package struct PluginActivityFile: Codable, Sendable {
  /// The host's process.
  package let host: Int32
  /// When it was published, in seconds since 1970.
  package let time: Double
  /// Each plugin's activity.
  package let plugins: [PluginActivity]

  /// A snapshot of `host`'s plugins, `plugins`, taken at `time`.
  package init(host: Int32, time: Double, plugins: [PluginActivity]) {
    self.host = host
    self.time = time
    self.plugins = plugins
  }

  /// The file in `dataDirectory`.
  package static func path(in dataDirectory: String) -> String {
    dataDirectory + "/" + NavigationStore.folder + "/plugins-live.json"
  }

  /// The file whose modification time asks a host for the activity.
  static func askPath(in dataDirectory: String) -> String {
    dataDirectory + "/" + NavigationStore.folder + "/plugins-live.asked"
  }

  /// How long after a request the host publishes.
  static let askedFor: Double = 5

  /// Asks the host running on `dataDirectory` to publish for a while.
  package static func ask(in dataDirectory: String) {
    let path = askPath(in: dataDirectory)
    try? FileManager.default.createDirectory(
      atPath: PathName.parent(path), withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    if !FileManager.default.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o600]) {
      utimes(path, nil)
    }
  }

  /// Whether someone asked for it in `dataDirectory` recently.
  static func isAsked(in dataDirectory: String) -> Bool {
    var info = stat()
    guard stat(askPath(in: dataDirectory), &info) == 0 else { return false }
    return Date().timeIntervalSince1970 - Double(info.st_mtim.tv_sec) < askedFor
  }

  /// Publishes it in `dataDirectory`, replacing the one before (written
  /// whole, then renamed; not flushed to disk: it lasts a second).
  package func write(in dataDirectory: String) throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    let path = Self.path(in: dataDirectory)
    try FileManager.default.createDirectory(
      atPath: PathName.parent(path), withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    try encoder.encode(self).write(to: URL(fileURLWithPath: path), options: .atomic)
  }

  /// What a host running on `dataDirectory` published, or why there is
  /// nothing to show: no host published there, or its host has ended.
  package static func read(in dataDirectory: String) -> Result<PluginActivityFile, PluginActivityFileError> {
    let path = path(in: dataDirectory)
    let data: Data
    switch FileContents.read(path, limit: FileContents.Limit.pluginActivity) {
    case .data(let read): data = read
    case .missing: return .failure(.noHost(dataDirectory))
    case .failed(let code): return .failure(.unreadable(path, AtomicFile.errorText(code)))
    case .refused(let reason): return .failure(.unreadable(path, reason))
    }
    guard let file = try? JSONDecoder().decode(PluginActivityFile.self, from: data) else {
      return .failure(.unreadable(path, "it is not a plugin activity file"))
    }
    // A host that ended leaves its last snapshot: it is not shown as live.
    guard kill(file.host, 0) == 0 || errno == EPERM else { return .failure(.noHost(dataDirectory)) }
    return .success(file)
  }
}

/// Why `vivarium plugins --live` has nothing to show.
package enum PluginActivityFileError: Error, CustomStringConvertible {
  /// No app runs on the data directory.
  case noHost(String)
  /// The file is there but cannot be read.
  case unreadable(String, String)
  /// The app did not publish when asked (a host busy, or stopped).
  case noAnswer(String)

  /// What is wrong and what to do.
  package var description: String {
    switch self {
    case .noHost(let data):
      "no app is running on the data directory \(data); start one with 'vivarium run' or 'vivarium serve' (with the same --data), then look again"
    case .unreadable(let path, let why): "\(path) cannot be read (\(why)); the app writes it again within a second"
    case .noAnswer(let data):
      "the app running on the data directory \(data) did not say what its plugins are doing within 3 s; it may be busy or stopped, try again"
    }
  }
}
