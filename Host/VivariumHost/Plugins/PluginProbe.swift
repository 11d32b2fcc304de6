import Foundation

/// Loads a plugin first in a child process, so that a plugin that traps,
/// segfaults or hangs while loading is reported by name instead of taking the
/// host down (GStreamer's plugin scanner does the same).
///
/// The child is the host's own executable run as `EXECUTABLE __probe FILE`,
/// which calls ``PluginProbe/childMain(_:)``. It is handed the file the host
/// opened and checked, loads exactly that, and answers on a channel of its
/// own (``ChildChannel``). Only a file the child loaded cleanly is then
/// loaded into the host.
///
/// What this does not guarantee: plugin code that behaves in the probe and
/// misbehaves in the host (it can tell them apart) still runs in the host.
/// Running plugins in processes of their own is the answer to that.
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

  /// Nil when `file` loaded cleanly in a child; otherwise why not.
  func rejection(for file: PluginFile, validatingContracts: Bool = true) -> Rejection? {
    let path = file.path
    let arguments = [PluginProbe.command, path] + (validatingContracts ? [] : ["--no-contracts"])
    switch ChildProcess.run(executable, arguments, timeout: timeout, passing: file.descriptor) {
    case .failedToStart(let reason):
      return Rejection(path, .crashed, "the host could not start its probe process \(reason)")
    case .timedOut:
      return Rejection(
        path, .timedOut,
        "loading did not finish within \(timeout) (the entry point or factories() hangs); the probe was killed. Make both return at once"
      )
    case .flooded:
      return Rejection(
        path, .crashed,
        "while loading, it wrote over \(ChildProcess.replyLimit) bytes into the probe's report channel; the probe was killed"
      )
    case .signaled(let signal, let stderr):
      return Rejection(
        path, .crashed,
        "it crashed while loading (\(ChildProcess.describe(signal: signal)))\(Self.said(stderr)) in its entry point or factories(); the host skipped it. Debug it with '--in-process'"
      )
    case .exited(let status, let reply, let stderr):
      guard status == 0, let reply, let report = try? JSONDecoder().decode(ProbeReport.self, from: reply) else {
        return Rejection(
          path, .crashed,
          "the probe process exited with status \(status) without its report\(Self.said(stderr)): code in the plugin ended the process while it loaded (a constructor or the entry point calling exit, or a fatal error). Debug it with '--in-process'"
        )
      }
      return report.rejection
    }
  }

  /// `, saying "…"` with the Swift fatal-error line of `stderr`, if any.
  static func said(_ stderr: String) -> String {
    ChildProcess.fatalErrorLine(stderr).map { ", saying \"\($0)\"" } ?? ""
  }

  /// The child side, `__probe FILE [--no-contracts]`: reads the nonce, loads
  /// the file its parent handed it, and replies with the outcome. Returns the
  /// exit status.
  public static func childMain(_ arguments: [String]) -> Int32 {
    let nonce = ChildChannel.begin()
    guard let path = arguments.first else { return 2 }
    let loader = PluginLoader(validatesContracts: !arguments.contains("--no-contracts"))
    let report: ProbeReport
    do {
      let file = try PluginFile.inherited(ChildChannel.fileDescriptor, path: path)
      switch loader.load(file) {
      case .loaded: report = ProbeReport(rejection: nil)
      case .rejected(let rejection): report = ProbeReport(rejection: rejection)
      }
    } catch {
      report = ProbeReport(rejection: error)
    }
    // Encoding a plain Codable struct cannot fail.
    ChildChannel.reply((try? JSONEncoder().encode(report)) ?? Data(), nonce: nonce)
    return 0
  }
}

private struct ProbeReport: Codable {
  let rejection: Rejection?
}
