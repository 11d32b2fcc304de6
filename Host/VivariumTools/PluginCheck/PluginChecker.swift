import CViperKit
import Foundation
import ViperKit
import ViperKitHosting
import VivariumLoading
import VivariumSupport

/// `vivarium check`: every conformance check of CHECKS.md on one plugin file.
/// File checks come from loading it (in a probe process); each plugin and
/// module check then runs in a child process of its own with a time limit,
/// so a plugin that traps, segfaults or hangs is reported as crashed or timed
/// out and the remaining checks still run.
package struct PluginChecker: Sendable {
  /// How deep to go, 1 to 10.
  package let strictness: Int
  /// `--only` patterns.
  package let only: [String]
  /// `--skip` patterns.
  package let skip: [String]
  /// The `vivarium-check` executable the checks run in.
  package let runner: String
  /// The host executable, for the loading probe.
  package let host: String
  /// The time limit of each check, each in a process of its own; nil runs
  /// every check in one `vivarium-check` process without a limit, and loads
  /// the plugin here without a probe (`--in-process`).
  package let timeout: Duration?

  /// Loading slower than this is a warning.
  static let loadLimit: Duration = .milliseconds(100)

  /// A checker with these settings.
  package init(
    strictness: Int, only: [String] = [], skip: [String] = [], runner: String, host: String, timeout: Duration?
  ) {
    self.strictness = max(1, min(strictness, 10))
    self.only = only
    self.skip = skip
    self.runner = runner
    self.host = host
    self.timeout = timeout
  }

  /// The checks' executable's name.
  package static let runnerName = "vivarium-check"

  /// `vivarium-check` beside the `vivarium` at `host`, or an error saying
  /// where it was looked for and what to do.
  package static func runner(besides host: String) throws(RunnerMissing) -> String {
    let path = PathName.parent(host) + "/" + runnerName
    guard access(path, X_OK) == 0 else { throw RunnerMissing(path: path) }
    return path
  }

  /// `vivarium-check` is not beside `vivarium`.
  package struct RunnerMissing: Error, CustomStringConvertible {
    /// Where it was looked for.
    package let path: String
    /// What is wrong and what to do.
    package var description: String {
      "the check runner '\(path)' is missing or not executable; it is built with vivarium ('swift build' builds both)"
    }
  }

  /// Every check's result for the plugin at `path`.
  package func check(_ path: String) -> [CheckResult] {
    let probe = timeout.map { PluginProbe(executable: host, timeout: $0) }
    let outcome = PluginLoader(probe: probe, validatesContracts: false).load(path)
    if case .rejected(let rejection) = outcome, rejection.isSDKLibrary {
      // One of the SDK's own libraries, found in a build folder: nothing to check.
      return [
        CheckResult(
          check: Rejection.Kind.sdkLibrary.check, status: .skipped, module: nil,
          message: rejection.reasons.joined(separator: "; "))
      ]
    }
    var results = fileResults(path, outcome)
    guard case .loaded(let plugin) = outcome else {
      results.append(
        CheckResult(
          check: "*", status: .skipped, module: nil, message: "plugin and module checks need a plugin that loads"))
      return results
    }
    // What the sandbox refuses is found while the other checks run the
    // plugin's code: when sandbox.refused is selected alone, every check of
    // the strictness runs to exercise the plugin, and only its findings count.
    let sandbox = ConformanceCheck.plan(strictness: strictness, only: only, skip: skip, scopes: [.sandbox])
    let sandboxSkipped = sandbox.compactMap { check, reason in
      reason.map { CheckResult(check: check.name, status: .skipped, module: nil, message: $0) }
    }
    let planned = plan(only: only, skip: skip, plugin: plugin)
    guard sandboxSkipped.isEmpty else {
      return results + run(planned.jobs, path: path, file: plugin.fileDescriptor).flatMap(\.results)
        + planned.skipped + sandboxSkipped
    }
    guard planned.jobs.isEmpty else {
      let replies = run(planned.jobs, path: path, file: plugin.fileDescriptor)
      return results + replies.flatMap(\.results) + planned.skipped + CheckReply.sandboxResults(replies)
    }
    // Only the sandbox's findings are asked for: every check of the
    // strictness not skipped exercises the plugin, their own results left out.
    let exercise = plan(only: [], skip: skip, plugin: plugin).jobs
    let replies = run(exercise, path: path, file: plugin.fileDescriptor)
    return results + planned.skipped + CheckReply.sandboxResults(replies)
  }

  /// The plugin and module checks `only` and `skip` select at this
  /// strictness, as jobs, and the rest as skipped results.
  private func plan(only: [String], skip: [String], plugin: LoadedPlugin) -> (jobs: [Job], skipped: [CheckResult]) {
    var jobs: [Job] = []
    var skipped: [CheckResult] = []
    for (check, reason) in ConformanceCheck.plan(strictness: strictness, only: only, skip: skip, scopes: [.plugin]) {
      if let reason {
        skipped.append(CheckResult(check: check.name, status: .skipped, module: nil, message: reason))
      } else {
        jobs.append(Job(check: check.name, module: nil))
      }
    }
    for contract in plugin.contracts {
      for (check, reason) in ConformanceCheck.plan(strictness: strictness, only: only, skip: skip, scopes: [.module]) {
        if let reason {
          skipped.append(CheckResult(check: check.name, status: .skipped, module: contract.urn, message: reason))
        } else {
          jobs.append(Job(check: check.name, module: contract.urn))
        }
      }
    }
    return (jobs, skipped)
  }

  /// Runs `jobs`, in child processes one per core, or all in one.
  private func run(_ jobs: [Job], path: String, file: Int32?) -> [CheckReply] {
    guard let timeout else {
      // --in-process: one process for every check, no time limit.
      return [runChild(jobs, path: path, file: file, timeout: .seconds(86_400))]
    }
    return jobs.concurrentMap { runChild([$0], path: path, file: file, timeout: timeout) }
  }

  /// Runs `jobs` in one `vivarium-check` child: its reply, or for each job
  /// a result saying how the child ended.
  private func runChild(_ jobs: [Job], path: String, file: Int32?, timeout: Duration) -> CheckReply {
    let arguments = [path, String(strictness)] + jobs.map(\.argument)
    func each(_ status: CheckStatus, _ message: (Job) -> String) -> CheckReply {
      let results = jobs.map { CheckResult(check: $0.check, status: status, module: $0.module, message: message($0)) }
      return CheckReply(results: results, refusals: [], unrecorded: 0)
    }
    func place(_ job: Job) -> String { job.module.map { " on \($0)" } ?? "" }
    func debug(_ job: Job) -> String { "debug it with 'vivarium check \(path) --only \(job.check) --in-process'" }
    switch ChildProcess.run(runner, arguments, timeout: timeout, passing: file.map { [$0] } ?? []) {
    case .exited(let status, let replies, let stderr):
      // One result per job, in order, and the sandbox's findings.
      if status == 0, replies.count == 1, let data = replies.first,
        let reply = try? JSONDecoder().decode(CheckReply.self, from: data),
        reply.results.count == jobs.count, zip(reply.results, jobs).allSatisfy({ $0.check == $1.check })
      {
        return reply
      }
      return each(.crashed) {
        "the check\(place($0)) ended with status \(status) without its result\(PluginProbe.said(stderr)): code in the plugin ended the process; \(debug($0))"
      }
    case .signaled(let signal, _, let stderr):
      return each(.crashed) {
        "crashed (\(ChildProcess.describe(signal: signal)))\(PluginProbe.said(stderr)) while running \($0.check)\(place($0)); \(debug($0))"
      }
    case .flooded:
      return each(.crashed) {
        "wrote into the check's result channel (descriptor 3) bytes that are no result, or a result over \(ChildProcess.replyLimit) bytes\(place($0)); \(debug($0))"
      }
    case .timedOut:
      return each(.timedOut) {
        "did not finish within \(timeout)\(place($0)): something in the module loops or waits forever"
      }
    case .failedToStart(let reason):
      return each(.failed) { _ in "could not start the check runner \(runner): \(reason)" }
    }
  }
}

/// One check to run on one module (or, without a module, on the plugin).
package struct Job: Sendable {
  /// The check's name.
  package let check: String
  /// The module's URN pattern; nil for a plugin check.
  package let module: String?

  /// `CHECK` or `CHECK@MODULE`, as `vivarium-check` takes it.
  var argument: String { check + (module.map { "@" + $0 } ?? "") }

  /// Reads ``argument``.
  package init(argument: String) {
    let parts = argument.split(separator: "@", maxSplits: 1).map(String.init)
    check = parts[0]
    module = parts.count > 1 ? parts[1] : nil
  }

  init(check: String, module: String?) {
    self.check = check
    self.module = module
  }
}
