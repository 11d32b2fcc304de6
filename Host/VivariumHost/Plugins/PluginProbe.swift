import Foundation

/// Loads a plugin first in a child process, so that a plugin that traps,
/// segfaults or hangs while loading is reported by name instead of taking the
/// host down (GStreamer's plugin scanner does the same).
///
/// The child is the host's own executable run as `EXECUTABLE __probe FILE`,
/// which calls ``PluginProbe/childMain(_:loader:)``. Only a file the child
/// loaded cleanly is then loaded into the host.
public struct PluginProbe: Sendable {
  /// The host executable to re-run.
  public let executable: String
  /// How long one file may take to load in the child.
  public let timeout: Duration

  /// The hidden command name the child is run with.
  public static let command = "__probe"

  /// A probe that re-runs `executable`.
  public init(executable: String, timeout: Duration = .seconds(10)) {
    self.executable = executable
    self.timeout = timeout
  }

  /// Nil when `path` loaded cleanly in a child; otherwise why not.
  public func rejection(for path: String, validatingContracts: Bool = true) -> Rejection? {
    let arguments = [PluginProbe.command, path] + (validatingContracts ? [] : ["--no-contracts"])
    switch ChildProcess.run(executable, arguments, timeout: timeout) {
    case .failedToStart(let reason):
      return Rejection(path, .crashed, "the host could not start its probe process \(reason)")
    case .timedOut:
      return Rejection(
        path, .timedOut,
        "loading did not finish within \(timeout) (the entry point or factories() hangs); the probe was killed. Make both return at once"
      )
    case .signaled(let signal):
      return Rejection(
        path, .crashed,
        "it crashed while loading (\(ChildProcess.describe(signal: signal))) in its entry point or factories(); the host skipped it. Debug it with '--in-process'"
      )
    case .exited(let status, let output):
      guard let report = try? JSONDecoder().decode(ProbeReport.self, from: output) else {
        return Rejection(path, .crashed, "the probe process exited with status \(status) without a report")
      }
      return report.rejection
    }
  }

  /// The child side: loads `path` in this process and returns the JSON report
  /// the parent reads.
  public static func childMain(_ path: String, loader: PluginLoader) -> String {
    let report: ProbeReport
    switch loader.load(path) {
    case .loaded: report = ProbeReport(rejection: nil)
    case .rejected(let rejection): report = ProbeReport(rejection: rejection)
    }
    // Encoding a plain Codable struct cannot fail.
    return String(decoding: (try? JSONEncoder().encode(report)) ?? Data(), as: UTF8.self)
  }
}

private struct ProbeReport: Codable {
  let rejection: Rejection?
}
