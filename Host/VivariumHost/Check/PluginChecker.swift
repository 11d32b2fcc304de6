import CViperKit
import Foundation
import ViperKit
import ViperKitTestKit

/// `vivarium check`: every conformance check of CHECKS.md on one plugin file.
/// File checks come from loading it (in a probe process); each plugin and
/// module check then runs in a child process of its own with a time limit,
/// so a plugin that traps, segfaults or hangs is reported as crashed or timed
/// out and the remaining checks still run.
public struct PluginChecker: Sendable {
  /// How deep to go, 1 to 10.
  public let strictness: Int
  /// `--only` patterns.
  public let only: [String]
  /// `--skip` patterns.
  public let skip: [String]
  /// The host executable to run checks in, and their time limit; nil runs
  /// everything in this process (`--in-process`).
  public let isolation: Isolation?

  /// Where and how long isolated checks run.
  public struct Isolation: Sendable {
    /// The host executable, re-run as `__check`.
    public let executable: String
    /// The time limit of each check.
    public let timeout: Duration

    /// Checks run by `executable` with `timeout` each.
    public init(executable: String, timeout: Duration) {
      self.executable = executable
      self.timeout = timeout
    }
  }

  /// The hidden command a check's child process runs.
  public static let command = "__check"
  /// Loading slower than this is a warning.
  static let loadLimit: Duration = .milliseconds(100)

  /// A checker with these settings.
  public init(strictness: Int, only: [String] = [], skip: [String] = [], isolation: Isolation?) {
    self.strictness = max(1, min(strictness, 10))
    self.only = only
    self.skip = skip
    self.isolation = isolation
  }

  /// Every check's result for the plugin at `path`.
  public func check(_ path: String) -> [CheckResult] {
    let probe = isolation.map { PluginProbe(executable: $0.executable, timeout: $0.timeout) }
    let outcome = PluginLoader(probe: probe, validatesContracts: false).load(path)
    var results = fileResults(path, outcome)
    guard case .loaded(let plugin) = outcome else {
      results.append(
        CheckResult(
          check: "*", status: .skipped, module: nil, message: "plugin and module checks need a plugin that loads"))
      return results
    }
    var jobs: [Job] = []
    var skipped: [CheckResult] = []
    for (check, reason) in Conformance.plan(strictness: strictness, only: only, skip: skip, scopes: [.plugin]) {
      if let reason {
        skipped.append(CheckResult(check: check.name, status: .skipped, module: nil, message: reason))
      } else {
        jobs.append(Job(check: check.name, module: nil))
      }
    }
    for factory in plugin.factories {
      for (check, reason) in Conformance.plan(strictness: strictness, only: only, skip: skip, scopes: [.module]) {
        if let reason {
          skipped.append(
            CheckResult(check: check.name, status: .skipped, module: factory.contract.urn, message: reason))
        } else {
          jobs.append(Job(check: check.name, module: factory.contract.urn))
        }
      }
    }
    return results + run(jobs, path: path, file: plugin.fileDescriptor, factories: plugin.factories) + skipped
  }

  /// Runs `jobs`, in child processes one per core, or here in order.
  private func run(_ jobs: [Job], path: String, file: Int32?, factories: [any ModuleFactory])
    -> [CheckResult]
  {
    guard let isolation else {
      return jobs.map {
        PluginChecker.runHere($0.check, module: $0.module, factories: factories, strictness: strictness)
      }
    }
    return jobs.concurrentMap {
      runIsolated($0.check, module: $0.module, path: path, file: file, isolation: isolation)
    }
  }

  private func runIsolated(_ check: String, module: String?, path: String, file: Int32?, isolation: Isolation)
    -> CheckResult
  {
    let arguments = [PluginChecker.command, path, check, String(strictness)] + (module.map { [$0] } ?? [])
    let place = module.map { " on \($0)" } ?? ""
    let debug = "debug it with 'vivarium check \(path) --only \(check) --in-process'"
    switch ChildProcess.run(isolation.executable, arguments, timeout: isolation.timeout, passing: file) {
    case .exited(let status, let reply, let stderr):
      if status == 0, let reply, let result = try? JSONDecoder().decode(CheckResult.self, from: reply) {
        return result
      }
      return CheckResult(
        check: check, status: .crashed, module: module,
        message:
          "the check\(place) ended with status \(status) without its result\(PluginProbe.said(stderr)): code in the plugin ended the process; \(debug)"
      )
    case .signaled(let signal, let stderr):
      return CheckResult(
        check: check, status: .crashed, module: module,
        message:
          "crashed (\(ChildProcess.describe(signal: signal)))\(PluginProbe.said(stderr)) while running \(check)\(place); \(debug)"
      )
    case .flooded:
      return CheckResult(
        check: check, status: .crashed, module: module,
        message: "wrote over \(ChildProcess.replyLimit) bytes into the check's result channel\(place); \(debug)")
    case .timedOut:
      return CheckResult(
        check: check, status: .timedOut, module: module,
        message: "did not finish within \(isolation.timeout)\(place): something in the module loops or waits forever")
    case .failedToStart(let reason):
      return CheckResult(check: check, status: .failed, module: module, message: "could not start the check: \(reason)")
    }
  }

  /// Runs one plugin (`module` nil) or module check in this process.
  public static func runHere(_ check: String, module: String?, factories: [any ModuleFactory], strictness: Int)
    -> CheckResult
  {
    guard let module else { return Conformance.run(check, factories: factories, strictness: strictness) }
    guard let factory = factories.first(where: { $0.contract.urn == module }) else {
      return CheckResult(
        check: check, status: .failed, module: module, message: "the plugin no longer offers \(module)")
    }
    return Conformance.run(check, on: factory, strictness: strictness)
  }

  /// The child side of an isolated check, `__check FILE CHECK STRICTNESS
  /// [MODULE]`: loads the file its parent handed it and replies with the
  /// result (``ChildChannel``). Returns the exit status.
  public static func childMain(_ arguments: [String]) -> Int32 {
    let nonce = ChildChannel.begin()
    let result: CheckResult
    if arguments.count >= 3, let strictness = Int(arguments[2]),
      let file = try? PluginFile.inherited(ChildChannel.fileDescriptor, path: arguments[0]),
      case .loaded(let plugin) = PluginLoader(validatesContracts: false).load(file)
    {
      result = runHere(
        arguments[1], module: arguments.count > 3 ? arguments[3] : nil, factories: plugin.factories,
        strictness: strictness)
    } else {
      result = CheckResult(
        check: arguments.dropFirst().first ?? "?", status: .failed, module: nil,
        message: "the plugin did not load in the check process; 'vivarium plugins --plugins FILE' says why")
    }
    ChildChannel.reply((try? JSONEncoder().encode(result)) ?? Data(), nonce: nonce)
    return 0
  }
}

/// One check to run on one module (or, without a module, on the plugin).
private struct Job: Sendable {
  let check: String
  let module: String?
}
