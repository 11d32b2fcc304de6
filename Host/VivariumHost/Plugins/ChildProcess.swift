import Foundation
import Glibc

/// Runs the host's own executable as a child, with a time limit, so that
/// plugin code that traps, segfaults or hangs takes down only the child.
enum ChildProcess {
  /// How a child ended.
  enum Outcome {
    /// It exited with `status`, having printed `output` on stdout.
    case exited(status: Int32, output: Data)
    /// A signal ended it.
    case signaled(Int32)
    /// It outlived the time limit and was killed.
    case timedOut
    /// It could not be started.
    case failedToStart(String)
  }

  /// Runs `executable arguments…` with no stdin, stderr discarded, and
  /// `SWIFT_BACKTRACE=enable=no` so a crash does not spend seconds on a
  /// backtrace.
  static func run(_ executable: String, _ arguments: [String], timeout: Duration) -> Outcome {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
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
      return .failedToStart("\(executable): \(error.localizedDescription)")
    }
    let reader = OutputReader(output.fileHandleForReading)
    let (seconds, attoseconds) = timeout.components
    let deadline = DispatchTime.now() + .milliseconds(Int(seconds) * 1000 + Int(attoseconds / 1_000_000_000_000_000))
    if exited.wait(timeout: deadline) == .timedOut {
      kill(process.processIdentifier, SIGKILL)
      exited.wait()
      return .timedOut
    }
    if process.terminationReason == .uncaughtSignal { return .signaled(process.terminationStatus) }
    return .exited(status: process.terminationStatus, output: reader.finish())
  }

  /// `signal 4, Illegal instruction: a Swift runtime trap (…)`.
  static func describe(signal: Int32) -> String {
    let cause: String =
      switch signal {
      case SIGILL, SIGTRAP: "a Swift runtime trap: a failed precondition, a force-unwrapped nil, an index out of range"
      case SIGSEGV, SIGBUS: "a bad memory access"
      case SIGABRT: "an abort"
      case SIGFPE: "an arithmetic error"
      default: "a fatal signal"
      }
    return "signal \(signal), \(String(cString: strsignal(signal))): \(cause)"
  }
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
