import Foundation
import Glibc

/// Loads a plugin first in a child process, so that a plugin that traps,
/// segfaults or hangs while loading is reported by name instead of taking the
/// host down (GStreamer's plugin scanner does the same).
///
/// The child is the host's own executable run as `EXECUTABLE __probe FILE`,
/// which calls ``PluginProbe/childMain(_:)``. Only a file the child loaded
/// cleanly is then loaded into the host.
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
  public func rejection(for path: String) -> Rejection? {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = [PluginProbe.command, path]
    var environment = ProcessInfo.processInfo.environment
    environment["SWIFT_BACKTRACE"] = "enable=no"
    process.environment = environment
    let output = Pipe()
    process.standardOutput = output
    process.standardError = FileHandle.nullDevice
    process.standardInput = FileHandle.nullDevice
    let exited = DispatchSemaphore(value: 0)
    process.terminationHandler = { _ in exited.signal() }
    do {
      try process.run()
    } catch {
      return Rejection(
        path, .crashed, "the host could not start its probe process \(executable): \(error.localizedDescription)")
    }
    let reader = OutputReader(output.fileHandleForReading)
    let (seconds, attoseconds) = timeout.components
    if exited.wait(timeout: .now() + .milliseconds(Int(seconds) * 1000 + Int(attoseconds / 1_000_000_000_000_000)))
      == .timedOut
    {
      kill(process.processIdentifier, SIGKILL)
      exited.wait()
      return Rejection(
        path, .timedOut,
        "loading did not finish within \(timeout) (the entry point or factories() hangs); the probe was killed. Make both return at once"
      )
    }
    if process.terminationReason == .uncaughtSignal {
      return Rejection(path, .crashed, PluginProbe.crashMessage(signal: process.terminationStatus))
    }
    guard let report = try? JSONDecoder().decode(ProbeReport.self, from: reader.finish()) else {
      return Rejection(
        path, .crashed, "the probe process exited with status \(process.terminationStatus) without a report")
    }
    return report.rejection
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

  static func crashMessage(signal: Int32) -> String {
    let cause: String =
      switch signal {
      case SIGILL, SIGTRAP: "a Swift runtime trap: a failed precondition, a force-unwrapped nil, an index out of range"
      case SIGSEGV, SIGBUS: "a bad memory access"
      case SIGABRT: "an abort"
      case SIGFPE: "an arithmetic error"
      default: "a fatal signal"
      }
    let name = String(cString: strsignal(signal))
    return
      "it crashed while loading (signal \(signal), \(name): \(cause)) in its entry point or factories(); the host skipped it. Run its loading under a debugger with 'vivarium plugins --in-process --plugins DIR'"
  }
}

private struct ProbeReport: Codable {
  let rejection: Rejection?
}

/// Drains a pipe on another thread so a chatty child cannot block on a full pipe.
private final class OutputReader: @unchecked Sendable {
  private var data = Data()
  private let done = DispatchSemaphore(value: 0)

  init(_ handle: FileHandle) {
    Thread {
      self.data = handle.readDataToEndOfFile()
      self.done.signal()
    }.start()
  }

  func finish() -> Data {
    done.wait()
    return data
  }
}
