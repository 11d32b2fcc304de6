import Foundation
import Glibc
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

  /// The calls its process made in the last minute, of every kind.
  package var calls: Int { hostServiceCalls + businessServiceCalls + httpRequests }

  /// What plugins can be sorted by; all but the name put the largest first.
  package enum SortKey: String, CaseIterable, Sendable {
    case name, state, cpu, memory, modules, calls, restarts

    /// Whether `a` goes before `b`; ties go by name.
    package func orders(_ a: PluginActivity, before b: PluginActivity) -> Bool {
      func larger<Value: Comparable>(_ value: (PluginActivity) -> Value) -> Bool {
        value(a) != value(b) ? value(a) > value(b) : a.plugin < b.plugin
      }
      switch self {
      case .name: return a.plugin != b.plugin ? a.plugin < b.plugin : a.file < b.file
      case .state: return a.state != b.state ? a.state.rawValue < b.state.rawValue : a.plugin < b.plugin
      case .cpu: return larger { $0.cpuPercent ?? -1 }
      case .memory: return larger { $0.proportionalKiB ?? -1 }
      case .modules: return larger(\.modules)
      case .calls: return larger(\.calls)
      case .restarts: return larger(\.restarts)
      }
    }
  }
}

/// The CPU time of processes, sampled at each look: the share of a core
/// each used since the look before.
@MainActor
final class ProcessSampler {
  private var last: [Int32: (ticks: Int, at: ContinuousClock.Instant)] = [:]
  private let ticksPerSecond = Double(sysconf(Int32(_SC_CLK_TCK)))

  /// The share of one core `pid` used since it was last sampled (nil at
  /// its first sample, or when it is gone), in percent.
  func cpuPercent(_ pid: Int32) -> Double? {
    guard let ticks = Self.cpuTicks(pid) else {
      last[pid] = nil
      return nil
    }
    let now = ContinuousClock.now
    defer { last[pid] = (ticks, now) }
    guard let before = last[pid] else { return nil }
    let elapsed = Double((now - before.at).components.attoseconds) / 1e18 + Double((now - before.at).components.seconds)
    guard elapsed > 0 else { return nil }
    return Double(ticks - before.ticks) / ticksPerSecond / elapsed * 100
  }

  /// Forgets the processes not in `pids`.
  func keep(only pids: Set<Int32>) {
    last = last.filter { pids.contains($0.key) }
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

  /// Resident and proportional memory of `pid`, in KiB (`/proc/PID/smaps_rollup`).
  static func memory(_ pid: Int32) -> (resident: Int, proportional: Int)? {
    guard let text = try? String(contentsOfFile: "/proc/\(pid)/smaps_rollup", encoding: .utf8) else { return nil }
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
  /// plugins turned off among them; each look samples the CPU time of the
  /// plugin processes, so a share covers the time since the look before.
  package func activity() -> [PluginActivity] {
    let live = Dictionary(grouping: sessions.flatMap(\.nodes), by: \.pluginPath).mapValues(\.count)
    let now = CallCounts.now
    var pids: Set<Int32> = []
    let plugins: [PluginActivity] = catalog.outcomes.compactMap { outcome in
      switch outcome {
      case .rejected(let rejection):
        guard rejection.kind == .disabled, let name = rejection.plugin else { return nil }
        return PluginActivity(
          plugin: name, file: rejection.path, state: .disabled, pid: nil, cpuPercent: nil, residentKiB: nil,
          proportionalKiB: nil, modules: 0, hostServiceCalls: 0, businessServiceCalls: 0, httpRequests: 0,
          restarts: 0)
      case .loaded(let plugin):
        let modules = live[plugin.path] ?? 0
        guard let process = plugin.runningProcess else {
          return PluginActivity(
            plugin: plugin.name, file: plugin.path, state: plugin.runsApart ? .notStarted : .inProcess, pid: nil,
            cpuPercent: nil, residentKiB: nil, proportionalKiB: nil, modules: modules, hostServiceCalls: 0,
            businessServiceCalls: 0, httpRequests: 0, restarts: 0)
        }
        let state: PluginActivity.State
        switch process.state {
        case .running: state = process.pid == 0 ? .notStarted : modules > 0 ? .running : .idle
        case .notResponding: state = .notResponding
        case .ended: state = process.turnedOff != nil ? .disabled : .crashed
        }
        let pid = state == .crashed || state == .disabled || process.pid == 0 ? nil : process.pid
        if let pid { pids.insert(pid) }
        let memory = pid.flatMap(ProcessSampler.memory)
        let calls = process.serviceDesk.calls
        return PluginActivity(
          plugin: plugin.name, file: plugin.path, state: state, pid: pid, cpuPercent: pid.flatMap(sampler.cpuPercent),
          residentKiB: memory?.resident, proportionalKiB: memory?.proportional, modules: modules,
          hostServiceCalls: calls.count(.hostService, endingAt: now),
          businessServiceCalls: calls.count(.businessService, endingAt: now),
          httpRequests: calls.count(.http, endingAt: now), restarts: process.restarts)
      }
    }
    sampler.keep(only: pids)
    return plugins
  }
}

/// What a running host's plugins are doing, as it last published it in
/// `state/plugins-live.json` in its data directory (each second): how
/// `vivarium plugins --live` sees an app another process runs.
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

  /// Publishes it in `dataDirectory`, replacing the one before.
  package func write(in dataDirectory: String) throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    try AtomicFile.write(try encoder.encode(self), to: Self.path(in: dataDirectory))
  }

  /// What a host running on `dataDirectory` published, or why there is
  /// nothing to show: no host published there, or its host has ended.
  package static func read(in dataDirectory: String) -> Result<PluginActivityFile, PluginActivityFileError> {
    let path = path(in: dataDirectory)
    let data: Data
    switch FileContents.read(path, limit: FileContents.Limit.pluginSwitches) {
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

  package var description: String {
    switch self {
    case .noHost(let data):
      "no app is running on the data directory \(data); start one with 'vivarium run' or 'vivarium serve' (with the same --data), then look again"
    case .unreadable(let path, let why): "\(path) cannot be read (\(why)); the app writes it again within a second"
    }
  }
}
