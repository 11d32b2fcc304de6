import Glibc

/// How a crash of the host is reported: Swift's backtracer writes its
/// report to stderr at once, never waiting on the terminal.
///
/// Left to itself, the backtracer of a process on a terminal is interactive:
/// it holds the terminal on "Press space to interact, D to debug…" for up to
/// 30 s. It reads its settings (`SWIFT_BACKTRACE`) once, as the process
/// starts, so the host sets them and runs itself again before doing
/// anything, when it is on a terminal and the person has not chosen an
/// interactive mode of their own. Plugin processes and probes run with the
/// backtracer off (`enable=no`).
enum CrashReport {
  /// The settings added to `SWIFT_BACKTRACE`.
  static let settings = "interactive=no,output-to=stderr"

  /// Runs this executable again with ``settings`` added, if it is on a
  /// terminal and they are missing; returns if there is nothing to do or
  /// the new start failed (the host then runs as it is).
  static func keepTheTerminal() {
    let current = getenv("SWIFT_BACKTRACE").map { String(cString: $0) } ?? ""
    guard !current.contains("interactive="), !current.contains("enable=no") else { return }
    guard isatty(STDIN_FILENO) == 1 || isatty(STDOUT_FILENO) == 1 || isatty(STDERR_FILENO) == 1 else { return }
    setenv("SWIFT_BACKTRACE", current.isEmpty ? settings : current + "," + settings, 1)
    execv("/proc/self/exe", CommandLine.unsafeArgv)
  }
}
