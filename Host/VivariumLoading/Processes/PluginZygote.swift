import CVivariumSystem
import Dispatch
import Foundation
import Glibc
import Synchronization

/// A fork server for plugin processes, as Chrome and Android start theirs:
/// one process (`vivarium __zygote`) is started once with the host's
/// libraries loaded, and each plugin process is a fork of it, so a plugin
/// process does not pay for starting an executable and linking its
/// libraries again. The plugin processes are the zygote's children: it
/// reaps each and reports how it ended. The zygote of confined processes
/// is the process 1 of a PID namespace of its own (the process the host
/// started waits for it), so that its forks see only themselves in
/// `/proc`; it dies with the host, and the kernel kills its forks with it,
/// whatever they did to their own parent-death signal.
final class PluginZygote: Sendable {

  private struct State {
    /// The callers of ``fork(path:memoryLimit:confined:descriptors:)``
    /// waiting for the zygote's reply, in the order their requests went:
    /// it replies in that order.
    var waiting: [CheckedContinuation<pid_t?, Never>] = []
    /// When the zygote last replied, or was first waited for since it last
    /// had nothing to reply to.
    var progress = ContinuousClock.now
    /// Whether a watch on its replies is under way (``watchReplies()``).
    var watching = false
    var ended: [pid_t: Int32] = [:]
    var alive = true
    /// The host's pid of each process the zygote forked and has not
    /// reported ended, by the pid it says: its forks are in a PID
    /// namespace of their own, where pids are not the host's.
    var hostPids: [pid_t: pid_t] = [:]
  }

  private let socket: Int32
  private let pid: pid_t
  private let state = Mutex(State())
  /// How long the zygote may take to reply to a fork before it is given up.
  private static let replyLimit = Duration.seconds(5)

  private init(socket: Int32, pid: pid_t) {
    self.socket = socket
    self.pid = pid
  }

  /// The zygote of each executable, in a network namespace of its own or
  /// not, started on first use; nil when it could not start.
  private static let zygotes = Mutex<[String: PluginZygote]>([:])

  /// The zygote for `executable`, started if need be; with `ownNetwork`,
  /// one in an empty network namespace of its own (where user namespaces
  /// are offered), which the processes it forks share: made once, not at
  /// each fork.
  static func shared(_ executable: String, ownNetwork: Bool) -> PluginZygote? {
    zygotes.withLock { zygotes in
      let key = (ownNetwork ? "network " : "host ") + executable
      if let zygote = zygotes[key], zygote.isAlive { return zygote }
      let zygote = start(executable, ownNetwork: ownNetwork)
      zygotes[key] = zygote
      return zygote
    }
  }

  private var isAlive: Bool { state.withLock(\.alive) }

  private static func start(_ executable: String, ownNetwork: Bool) -> PluginZygote? {
    var pair: [Int32] = [0, 0]
    guard socketpair(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pair) == 0 else {
      return nil
    }
    let child = fcntl(pair[1], F_DUPFD_CLOEXEC, 10)
    close(pair[1])
    let null = open("/dev/null", O_WRONLY | O_CLOEXEC)
    let nullHigh = fcntl(null, F_DUPFD_CLOEXEC, 10)
    close(null)
    defer {
      close(child)
      close(nullHigh)
    }
    let socket = pair[0]
    let zygote = Mutex<PluginZygote?>(nil)
    // Started by the thread that listens to it for as long as it lives.
    let spawned = ChildProcess.startWatched {
      let spawned = ChildProcess.spawn(
        executable,
        [PluginProcessLaunch.zygoteCommand] + (ownNetwork ? [PluginProcessLaunch.ownNetworkArgument] : []),
        [(nullHigh, 2), (child, 3)],
        environment: ["SWIFT_BACKTRACE": "enable=no"])
      if case .success(let pid) = spawned { zygote.withLock { $0 = PluginZygote(socket: socket, pid: pid) } }
      return spawned
    } watch: { _ in
      zygote.withLock { $0 }?.listen()
    }
    guard case .success = spawned, let started = zygote.withLock({ $0 }) else {
      close(socket)
      return nil
    }
    return started
  }

  /// Reads the zygote's reports: the pid of each fork (or the errno of a
  /// failed one), with a pidfd for it, from which its pid in the host's
  /// namespace is read; and how each plugin process ended.
  private func listen() {
    var message = [UInt8](repeating: 0, count: 9)
    while true {
      var descriptors = [Int32](repeating: -1, count: Int(VIVARIUM_MAX_FDS))
      var received: Int32 = 0
      let count = message.withUnsafeMutableBytes { bytes in
        descriptors.withUnsafeMutableBufferPointer {
          vivarium_receive_fds(socket, bytes.baseAddress, 9, $0.baseAddress, &received)
        }
      }
      let pidfd = received > 0 ? descriptors[0] : -1
      let hostPid = pidfd >= 0 ? vivarium_pidfd_pid(pidfd) : -1
      descriptors.prefix(Int(received)).forEach { close($0) }
      guard count == 9 else { break }
      let first = Self.int32(message, 1)
      let second = Self.int32(message, 5)
      switch message[0] {
      case 0:
        let pid = hostPid > 0 ? hostPid : first
        state.withLock {
          $0.hostPids[first] = pid
          $0.progress = .now
          return $0.waiting.isEmpty ? nil : $0.waiting.removeFirst()
        }?.resume(returning: pid)
      case 1:
        state.withLock {
          $0.progress = .now
          return $0.waiting.isEmpty ? nil : $0.waiting.removeFirst()
        }?.resume(returning: nil)
      default:
        state.withLock { $0.ended[$0.hostPids.removeValue(forKey: first) ?? first] = second }
      }
    }
    giveUp()
    kill(pid, SIGKILL)
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0, errno == EINTR {}
    close(socket)
  }

  /// Gives up on a zygote that did not answer: it is killed (and its
  /// forks with it), and plugin processes are started from the executable.
  private func abandon() {
    giveUp()
    shutdown(socket, Int32(SHUT_RDWR))
  }

  /// Gives the zygote up when it has forks to reply to and has replied to
  /// none for ``replyLimit``: a queue of requests answered in turn, however
  /// long, is progress.
  private func watchReplies() {
    let start = state.withLock { state -> Bool in
      defer { state.watching = true }
      return !state.watching
    }
    guard start else { return }
    Task.detached { [weak self] in
      while let self {
        let due = self.state.withLock { state -> ContinuousClock.Instant? in
          guard !state.waiting.isEmpty, state.alive else {
            state.watching = false
            return nil
          }
          return state.progress + Self.replyLimit
        }
        guard let due else { return }
        if ContinuousClock.now >= due { return self.abandon() }
        try? await Task.sleep(until: due, clock: .continuous)
      }
    }
  }

  /// Marks the zygote gone, and answers every fork waiting with nil.
  private func giveUp() {
    let waiting = state.withLock { state in
      state.alive = false
      defer { state.waiting.removeAll() }
      return state.waiting
    }
    for caller in waiting { caller.resume(returning: nil) }
  }

  private static func int32(_ bytes: [UInt8], _ at: Int) -> Int32 {
    Int32(
      bitPattern: UInt32(bytes[at]) | UInt32(bytes[at + 1]) << 8 | UInt32(bytes[at + 2]) << 16 | UInt32(bytes[at + 3])
        << 24)
  }

  /// Forks a plugin process for `path` with `memoryLimit` bytes, confined
  /// unless not `confined`, giving it `descriptors` (the plugin file, its
  /// channel, its stderr); its pid, or nil when the zygote could not. Only
  /// the caller waits for the reply; a zygote that has forks to reply to
  /// and replies to none for five seconds is given up.
  func fork(path: String, memoryLimit: Int, confined: Bool, descriptors: [Int32]) async -> pid_t? {
    // The memory limit (8 bytes), how to confine (1 byte of flags), the path.
    var request = withUnsafeBytes(of: Int64(memoryLimit).littleEndian) { Array($0) }
    request += [confined ? PluginProcessLaunch.confinedFlag : 0] + Array(path.utf8)
    return await withCheckedContinuation { caller in
      // Sent and queued under one lock, so that replies, which come in the
      // order of the requests, find their callers in that order.
      let failed: Bool = state.withLock { state in
        guard state.alive else { return true }
        let sent = request.withUnsafeBytes { bytes in
          descriptors.withUnsafeBufferPointer {
            vivarium_send_fds(socket, bytes.baseAddress, bytes.count, $0.baseAddress, Int32($0.count), 0)
          }
        }
        guard sent == 0 else { return true }
        if state.waiting.isEmpty { state.progress = .now }
        state.waiting.append(caller)
        return false
      }
      if failed { caller.resume(returning: nil) } else { watchReplies() }
    }
  }

  /// Whether the zygote has reported that `pid` ended.
  func hasEnded(_ pid: pid_t) -> Bool { state.withLock { $0.ended[pid] != nil } }

  /// How process `pid` ended (a wait status), once the zygote has reaped
  /// it; nil if it did not report within `limit`.
  func waitForExit(_ pid: pid_t, limit: Duration) -> Int32? {
    let deadline = ContinuousClock.now + limit
    while ContinuousClock.now < deadline {
      if let status = state.withLock({ $0.ended.removeValue(forKey: pid) }) { return status }
      usleep(1_000)
    }
    return nil
  }
}
