import CVivariumSystem
import Foundation
import Glibc
import Synchronization

/// What the tests start a program with, in place of Foundation's `Process`:
/// the same few members, on `posix_spawn`.
///
/// Foundation's `Process.run()` on Linux (Swift 6.3.1) reads
/// `/proc/self/fd` copying each entry's whole 256-byte name, past the end
/// of the directory buffer when a short entry sits at its end: the test
/// run, with its many descriptors, crashed there now and then
/// (swiftlang/swift-corelibs-foundation#5472). This closes the child's
/// descriptors past 2 with `closefrom` instead.
final class SpawnedProcess: @unchecked Sendable {
  // @unchecked: the settings are written once, before `run()`, by the one
  // thread that starts the child; after it, `pid` is only read, and the
  // child's status is behind `status`, a Mutex.
  var executableURL: URL?
  var arguments: [String] = []
  var environment: [String: String]?
  var currentDirectoryURL: URL?
  /// A `Pipe`, a `FileHandle`, or nil for /dev/null.
  var standardInput: Any?
  var standardOutput: Any?
  var standardError: Any?
  private(set) var processIdentifier: pid_t = 0
  /// The child's wait status, once reaped.
  private let status = Mutex<Int32?>(nil)

  /// How the child ended.
  enum TerminationReason { case exit, uncaughtSignal }

  init() {}

  /// Starts the child; throws when it cannot be.
  func run() throws {
    guard let executable = executableURL?.path else { throw SpawnFailure(description: "no executable") }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    for (handle, fd, reading) in [
      (standardInput, Int32(0), true), (standardOutput, 1, false), (standardError, 2, false),
    ] {
      switch handle {
      case let pipe as Pipe:
        let end = reading ? pipe.fileHandleForReading : pipe.fileHandleForWriting
        posix_spawn_file_actions_adddup2(&actions, end.fileDescriptor, fd)
      case let file as FileHandle:
        posix_spawn_file_actions_adddup2(&actions, file.fileDescriptor, fd)
      default:
        posix_spawn_file_actions_addopen(&actions, fd, "/dev/null", reading ? O_RDONLY : O_WRONLY, 0)
      }
    }
    vivarium_spawn_add_closefrom(&actions, 3)
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP))
    posix_spawnattr_setpgroup(&attributes, 0)
    let environment = environment ?? ProcessInfo.processInfo.environment
    // In another working directory through env(1)'s -C: Glibc does not
    // expose posix_spawn_file_actions_addchdir_np.
    let program = currentDirectoryURL == nil ? executable : "/usr/bin/env"
    let words = currentDirectoryURL.map { ["/usr/bin/env", "-C", $0.path, executable] } ?? [executable]
    let argv = (words + arguments).map { strdup($0) } + [nil]
    let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
    defer { (argv + envp).forEach { free($0) } }
    var pid: pid_t = 0
    let result = posix_spawn(&pid, program, &actions, &attributes, argv, envp)
    guard result == 0 else {
      throw SpawnFailure(description: "cannot start \(executable): \(String(cString: strerror(result)))")
    }
    processIdentifier = pid
    // The child's ends, as Foundation's Process closes them.
    (standardInput as? Pipe)?.fileHandleForReading.closeFile()
    (standardOutput as? Pipe)?.fileHandleForWriting.closeFile()
    (standardError as? Pipe)?.fileHandleForWriting.closeFile()
  }

  /// Reaps the child if it ended, without waiting; its status once reaped.
  private func reapIfEnded() -> Int32? {
    status.withLock { status in
      if status != nil || processIdentifier <= 0 { return status }
      var raw: Int32 = 0
      if waitpid(processIdentifier, &raw, WNOHANG) == processIdentifier { status = raw }
      return status
    }
  }

  /// Whether the child is still running.
  var isRunning: Bool { processIdentifier > 0 && reapIfEnded() == nil }

  /// Returns once the child ended.
  func waitUntilExit() {
    guard processIdentifier > 0 else { return }
    while reapIfEnded() == nil {
      // Waits without reaping, so that only reapIfEnded reaps, under its lock.
      var info = siginfo_t()
      if waitid(P_PID, id_t(processIdentifier), &info, WEXITED | WNOWAIT) != 0, errno != EINTR { return }
    }
  }

  private var ended: Int32 { reapIfEnded() ?? 0 }
  /// Its exit status, or the signal that ended it.
  var terminationStatus: Int32 {
    let raw = ended
    return raw & 0x7f == 0 ? (raw >> 8) & 0xff : raw & 0x7f
  }
  /// Whether it exited or was ended by a signal.
  var terminationReason: TerminationReason { ended & 0x7f == 0 ? .exit : .uncaughtSignal }

  /// Sends SIGTERM.
  func terminate() { if isRunning { kill(processIdentifier, SIGTERM) } }
  /// Sends SIGINT.
  func interrupt() { if isRunning { kill(processIdentifier, SIGINT) } }

  struct SpawnFailure: Error, CustomStringConvertible {
    let description: String
  }
}
