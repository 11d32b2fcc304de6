import CVivariumSystem
import Foundation
import Glibc
import Synchronization
import VivariumSupport

/// Runs the host's own executable as a child, with a time limit, so that
/// plugin code that traps, segfaults or hangs takes down only the child.
///
/// The child runs in a process group of its own and gets exactly these file
/// descriptors: 0, a pipe carrying a nonce (``ChildChannel``); 1, `/dev/null`;
/// 2, a pipe whose last lines are kept for the report; 3, the reply channel;
/// and from 4 on, the plugin files the parent opened and checked. The
/// parent waits for the child process itself, not for its pipes to close, so
/// a grandchild holding a pipe open cannot stall it; at the time limit the
/// whole group is killed. What it reads is bounded.
package enum ChildProcess {
  /// How a child ended.
  package enum Outcome {
    /// It exited with `status`. `replies` are its framed replies that carry
    /// this run's nonce, in order, up to the first that does not.
    /// `stderr` is the tail of its stderr.
    case exited(status: Int32, replies: [Data], stderr: String)
    /// A signal ended it. `replies` are those it had sent by then.
    case signaled(Int32, replies: [Data], stderr: String)
    /// It outlived the time limit, and its process group was killed.
    /// `replies` are those it had sent by then.
    case timedOut(replies: [Data], stderr: String)
    /// It began a reply longer than ``replyLimit`` bytes, or wrote more
    /// than ``junkLimit`` bytes that are no reply, to its reply channel, and
    /// its process group was killed. `replies` are the whole ones it had
    /// sent before.
    case flooded(replies: [Data])
    /// It could not be started.
    case failedToStart(String)
  }

  /// The most one reply may hold: a probe's report of a plugin whose
  /// contracts take up to ``PluginLimits/contractBytes``, with room for the
  /// rest of the report.
  package static let replyLimit = PluginLimits.contractBytes + (1 << 20)
  /// The most bytes kept after something that is no reply frame.
  static let junkLimit = 1 << 20
  /// How much of the child's stderr is kept: its end, where a Swift fatal error is.
  static let stderrKept = 16 << 10

  /// Runs `executable arguments…` with `SWIFT_BACKTRACE=enable=no`, so a crash
  /// does not spend seconds on a backtrace, handing it `files` as descriptors
  /// 4, 5 and on. The time limit starts again whenever the child sends more
  /// of its reply: a child reporting on many files has `timeout` for each.
  package static func run(_ executable: String, _ arguments: [String], timeout: Duration, passing files: [Int32] = [])
    -> Outcome
  {
    let nonce = ChildChannel.makeNonce()
    let pipes = (0..<3).compactMap { _ in ChildPipe.make() }
    guard pipes.count == 3 else {
      pipes.forEach { $0.closeBoth() }
      return .failedToStart("\(executable): cannot create pipes: \(String(cString: strerror(errno)))")
    }
    let (input, errors, channel) = (pipes[0], pipes[1], pipes[2])
    // The nonce waits in the pipe for the child; written before it starts, so
    // a child that never reads cannot make this write raise SIGPIPE.
    _ = DescriptorOutput.write(nonce, to: input.write)
    close(input.write)
    defer { [errors.read, channel.read].forEach { close($0) } }
    // Copies numbered above every child number, so no mapping overwrites another's source.
    let lowest = ChildChannel.fileDescriptor + Int32(files.count) + 10
    let passed = files.map { fcntl($0, F_DUPFD_CLOEXEC, lowest) }
    var mapping: [(Int32, Int32)] = [(input.read, 0), (errors.write, 2), (channel.write, ChildChannel.replyDescriptor)]
    for (index, fd) in passed.enumerated() where fd >= 0 {
      mapping.append((fd, ChildChannel.fileDescriptor + Int32(index)))
    }
    let started = spawn(executable, arguments, mapping)
    // The child holds its own copies now; closing ours lets its EOFs through.
    for fd in [input.read, errors.write, channel.write] + passed where fd >= 0 { close(fd) }
    let pid: pid_t
    switch started {
    case .success(let spawned): pid = spawned
    case .failure(let reason): return .failedToStart("\(executable): \(reason)")
    }
    let collector = Collector(errors: errors.read, replies: channel.read)
    var deadline = ContinuousClock.now + timeout
    var progress = 0
    while !hasEnded(pid) {
      if collector.replyBytes > progress {
        progress = collector.replyBytes
        deadline = ContinuousClock.now + timeout
      }
      if collector.overflowed || ContinuousClock.now >= deadline {
        kill(-pid, SIGKILL)
        _ = reap(pid)
        let replies = ChildChannel.payloads(of: collector.reply, nonce: nonce)
        return collector.overflowed
          ? .flooded(replies: replies) : .timedOut(replies: replies, stderr: collector.stderrTail)
      }
      collector.poll(milliseconds: 20)
    }
    // The child has ended but is not reaped yet, so its process group's
    // number cannot have been reused: kill what is left of the group (a
    // background process the plugin started, unless it left the group with
    // setsid: the probe is no sandbox), then read what is left in the pipes.
    kill(-pid, SIGKILL)
    collector.drain()
    let status = reap(pid)
    let replies = ChildChannel.payloads(of: collector.reply, nonce: nonce)
    if collector.overflowed { return .flooded(replies: replies) }
    if status & 0x7F != 0 { return .signaled(status & 0x7F, replies: replies, stderr: collector.stderrTail) }
    return .exited(status: (status >> 8) & 0xFF, replies: replies, stderr: collector.stderrTail)
  }

  /// Starts a child with `start` on a thread of its own, then runs `watch`
  /// with its pid on that same thread until the child is done with.
  ///
  /// A child that dies with its parent (`PR_SET_PDEATHSIG`) dies when the
  /// *thread* that started it ends, and the threads that run the main actor
  /// and Swift's tasks come and go (on Linux, `dispatchMain` hands the main
  /// queue to them). A long-lived child must be started by a thread that
  /// lives as long as it does: this one.
  static func startWatched(
    _ start: @escaping @Sendable () -> Result<pid_t, SpawnError>, watch: @escaping @Sendable (pid_t) -> Void
  ) -> Result<pid_t, SpawnError> {
    let outcome = Mutex<Result<pid_t, SpawnError>?>(nil)
    let started = DispatchSemaphore(value: 0)
    Thread.detachNewThread {
      let result = start()
      outcome.withLock { $0 = result }
      started.signal()
      if case .success(let pid) = result { watch(pid) }
    }
    started.wait()
    return outcome.withLock { $0 } ?? .failure(SpawnError("the starting thread gave no answer"))
  }

  /// Whether `pid` has ended, leaving it unreaped (`WNOWAIT`).
  private static func hasEnded(_ pid: pid_t) -> Bool {
    var info = siginfo_t()
    return waitid(P_PID, id_t(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info._sifields._sigchld.si_pid == pid
  }

  /// Waits for `pid` and returns its wait status.
  private static func reap(_ pid: pid_t) -> Int32 {
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    return status
  }

  /// `signal 4, Illegal instruction: a Swift runtime trap (…)`.
  package static func describe(signal: Int32) -> String {
    let cause: String =
      switch signal {
      case SIGILL, SIGTRAP: "a Swift runtime trap: a failed precondition, a force-unwrapped nil, an index out of range"
      case SIGSEGV, SIGBUS: "a bad memory access"
      case SIGABRT: "an abort"
      case SIGFPE: "an arithmetic error"
      default: "a fatal signal"
      }
    return "\(name(signal: signal)): \(cause)"
  }

  /// `signal 11, Segmentation fault`.
  static func name(signal: Int32) -> String { "signal \(signal), \(String(cString: strsignal(signal)))" }

  /// The line of `stderr` where Swift says why it stopped (`File.swift:12:
  /// Fatal error: …`, or a precondition or assertion failure), if any.
  static func fatalErrorLine(_ stderr: String) -> String? {
    let markers = ["Fatal error", "Precondition failed", "Assertion failed"]
    return stderr.split(separator: "\n").last { line in markers.contains { line.contains($0) } }.map(String.init)
  }

  /// Starts the child in a new process group with exactly `mapping`'s
  /// descriptors (parent descriptor, child number), and /dev/null for
  /// stdin and stdout when the mapping leaves them out, with `extra` added
  /// to this process's environment; with `asHostChild`, the variables a
  /// child of the host's own reads too (no backtrace on a crash, the
  /// host's pid, where confined children may write).
  static func spawn(
    _ executable: String, _ arguments: [String], _ mapping: [(Int32, Int32)], environment extra: [String: String] = [:],
    asHostChild: Bool = true
  ) -> Result<pid_t, SpawnError> {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    for (from, to) in mapping { posix_spawn_file_actions_adddup2(&actions, from, to) }
    for fd: Int32 in [0, 1] where !mapping.contains(where: { $0.1 == fd }) {
      posix_spawn_file_actions_addopen(&actions, fd, "/dev/null", fd == 0 ? O_RDONLY : O_WRONLY, 0)
    }
    vivarium_spawn_add_closefrom(&actions, (mapping.map(\.1).max() ?? 2) + 1)
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
    posix_spawnattr_setpgroup(&attributes, 0)
    var mask = sigset_t()
    sigemptyset(&mask)
    posix_spawnattr_setsigmask(&attributes, &mask)
    var defaults = sigset_t()
    sigemptyset(&defaults)
    for signal in [SIGPIPE, SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGCHLD] { sigaddset(&defaults, signal) }
    posix_spawnattr_setsigdefault(&attributes, &defaults)

    var environment = ProcessInfo.processInfo.environment
    if asHostChild {
      environment["SWIFT_BACKTRACE"] = "enable=no"
      environment[ChildChannel.parentVariable] = String(getpid())
      if let writable = ProcessConfinement.writableForChildren.withLock({ $0 }) {
        environment[ProcessConfinement.writableVariable] = writable
      }
    }
    environment.merge(extra) { $1 }
    let argv = ([executable] + arguments).map { strdup($0) } + [nil]
    let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
    defer { (argv + envp).forEach { free($0) } }
    var pid: pid_t = 0
    let result = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
    guard result == 0 else { return .failure(SpawnError(String(cString: strerror(result)))) }
    return .success(pid)
  }

  struct SpawnError: Error, Sendable, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
  }
}

/// A pipe whose two ends are close-on-exec and numbered 10 or above, so that
/// mapping them onto the child's 0 to 4 can never overwrite one another.
struct ChildPipe {
  let read: Int32
  let write: Int32

  func closeBoth() {
    close(read)
    close(write)
  }

  static func make() -> ChildPipe? {
    var ends: [Int32] = [0, 0]
    guard vivarium_pipe_cloexec(&ends) == 0 else { return nil }
    let high = ends.map { fd in
      let moved = fcntl(fd, F_DUPFD_CLOEXEC, 10)
      close(fd)
      return moved
    }
    guard high.allSatisfy({ $0 >= 0 }) else {
      high.filter { $0 >= 0 }.forEach { close($0) }
      return nil
    }
    return ChildPipe(read: high[0], write: high[1])
  }
}

/// Reads the child's stderr (keeping its tail) and reply channel (keeping
/// all of it, up to just past the limit) as data arrives.
private final class Collector {
  private var descriptors: [Int32]
  private var errors = Data()
  private(set) var reply = Data()
  private let errorsFD: Int32
  /// Where the next frame's header starts in ``reply``.
  private var nextFrame = 0
  /// Where the bytes that are no frame start in ``reply``, if any came.
  private var junk: Int?
  /// Whether the child began a reply over ``ChildProcess/replyLimit``, or
  /// wrote more than ``ChildProcess/junkLimit`` bytes that are no reply.
  private(set) var overflowed = false

  init(errors: Int32, replies: Int32) {
    errorsFD = errors
    descriptors = [errors, replies]
  }

  /// Follows the frames in ``reply`` from their headers, so that a reply
  /// over the limit is stopped when its header arrives.
  private func followFrames() {
    while !overflowed, junk == nil, nextFrame < reply.count {
      let rest = reply[(reply.startIndex + nextFrame)...]
      guard let newline = rest.prefix(ChildChannel.headerLimit).firstIndex(of: UInt8(ascii: "\n")) else {
        if rest.count >= ChildChannel.headerLimit { junk = nextFrame }
        return
      }
      guard let length = ChildChannel.length(header: rest[rest.startIndex..<newline]) else {
        junk = nextFrame
        return
      }
      guard length <= ChildProcess.replyLimit else {
        overflowed = true
        return
      }
      nextFrame = newline - reply.startIndex + 1 + length
    }
    if let junk, reply.count - junk > ChildProcess.junkLimit { overflowed = true }
  }

  var replyBytes: Int { reply.count }
  var stderrTail: String { String(decoding: errors, as: UTF8.self) }

  /// Waits up to `milliseconds` for data and reads what came.
  func poll(milliseconds: Int32) {
    guard !descriptors.isEmpty else {
      usleep(UInt32(milliseconds) * 250)
      return
    }
    var fds = descriptors.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
    guard Glibc.poll(&fds, nfds_t(fds.count), milliseconds) > 0 else { return }
    for entry in fds where entry.revents != 0 { readOnce(entry.fd) }
  }

  /// Reads everything already in the pipes without waiting for their ends.
  func drain() {
    for fd in descriptors {
      _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
      while descriptors.contains(fd), !overflowed, readOnce(fd) {}
    }
  }

  /// One read from `fd`; false at its end or when nothing is there.
  @discardableResult
  private func readOnce(_ fd: Int32) -> Bool {
    var buffer = [UInt8](repeating: 0, count: 65_536)
    let count = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
    guard count > 0 else {
      if count == 0 || (errno != EAGAIN && errno != EINTR) { descriptors.removeAll { $0 == fd } }
      return false
    }
    if fd == errorsFD {
      errors.append(contentsOf: buffer[0..<count])
      if errors.count > ChildProcess.stderrKept { errors = Data(errors.suffix(ChildProcess.stderrKept)) }
    } else {
      reply.append(contentsOf: buffer[0..<count])
      followFrames()
    }
    return true
  }
}
