import Dispatch
import Glibc
import Synchronization
import VivariumSupport
import VivariumWire

/// What a plugin process sent, handed from the thread reading its socket
/// and stderr to the main actor, in order. Bounded: a process that sends
/// more than ``limit`` bytes the host has not taken yet is stopped.
final class PluginInbox: Sendable {
  enum Item: Sendable {
    /// A decoded message.
    case message(PluginMessage)
    /// The channel broke: a malformed frame, or a flood. The process is being killed.
    case broken(String)
    /// The process ended with this wait status; the tail of its stderr.
    case ended(status: Int32, stderr: String)
  }

  /// The most bytes of decoded frames waiting for the main actor: 32 MiB
  /// beyond the largest message, so that the largest `ready` message fits.
  static let limit = WireProtocol.messageLimit + (32 << 20)
  /// How much of a plugin process's stderr is kept: its end.
  static let stderrKept = 16 << 10

  private struct State {
    var items = FIFO<(Item, Int, ContinuousClock.Instant)>()
    var bytes = 0
    var pumpScheduled = false
  }

  private let state = Mutex(State())
  /// Called (on the reading thread) when items arrive and no pump is scheduled.
  private let schedulePump: @Sendable () -> Void

  init(schedulePump: @escaping @Sendable () -> Void) {
    self.schedulePump = schedulePump
  }

  /// Adds `item`, `size` bytes; false when the inbox is over its limit.
  func push(_ item: Item, size: Int = 0) -> Bool {
    let (accepted, schedule) = state.withLock { state -> (Bool, Bool) in
      guard state.bytes + size <= PluginInbox.limit else { return (false, false) }
      state.items.append((item, size, .now))
      state.bytes += size
      let schedule = !state.pumpScheduled
      if schedule { state.pumpScheduled = true }
      return (true, schedule)
    }
    if schedule { schedulePump() }
    return accepted
  }

  /// The oldest item, if any, and when it arrived: read from the socket by
  /// the reading thread, whenever the main actor gets to it.
  func take() -> (item: Item, arrival: ContinuousClock.Instant)? {
    state.withLock { state in
      // A process that sends without pause never lets the queue empty:
      // the FIFO drops what was taken as it goes.
      guard let (item, size, arrival) = state.items.popFirst() else {
        state.pumpScheduled = false
        return nil
      }
      state.bytes -= size
      return (item, arrival)
    }
  }
}

/// The thread that reads one plugin process: frames from its socket into
/// the inbox, its stderr into a kept tail; at the end of the socket, it
/// reaps the process and says how it ended.
enum PluginReader {
  static func run(
    channel: WireChannel<HostMessage>, stderr: Int32, pid: pid_t, inbox: PluginInbox, zygote: PluginZygote?
  ) {
    var frames = WireFrameReader()
    var tail: [UInt8] = []
    var open = [channel.descriptor, stderr]
    var buffer = [UInt8](repeating: 0, count: 65_536)
    var socketOpen = true
    var endedAt: ContinuousClock.Instant?
    loop: while !open.isEmpty {
      // The socket is watched for room too while the host has bytes left
      // to write to it; the wake descriptor says when it starts to.
      let writing = socketOpen && channel.hasPending
      var fds = open.map { fd in
        pollfd(fd: fd, events: Int16(POLLIN) | (fd == channel.descriptor && writing ? Int16(POLLOUT) : 0), revents: 0)
      }
      if socketOpen { fds.append(pollfd(fd: channel.wakeDescriptor, events: Int16(POLLIN), revents: 0)) }
      // After the socket closed, stderr gets a moment to deliver its last
      // words (a grandchild may hold it open). While it is open, the process
      // is looked at now and then: one that ended while a process it started
      // holds its socket open has ended all the same.
      let timeout: Int32 = socketOpen ? 100 : 50
      if poll(&fds, nfds_t(fds.count), timeout) <= 0 {
        if socketOpen, hasEnded(pid, zygote: zygote) {
          open.removeAll { $0 == channel.descriptor }
          socketOpen = false
          endedAt = .now
        }
        if let endedAt, ContinuousClock.now - endedAt > .seconds(1) { break }
        if !socketOpen, endedAt == nil { endedAt = .now }
        continue
      }
      for entry in fds where entry.revents != 0 {
        if entry.fd == channel.wakeDescriptor {
          var bytes = [UInt8](repeating: 0, count: 64)
          _ = read(entry.fd, &bytes, bytes.count)
          continue
        }
        if entry.fd == channel.descriptor, entry.revents & Int16(POLLOUT) != 0 {
          guard channel.writePending() else {
            // It shut its end for what the host sends: it is of no more use.
            _ = inbox.push(.broken("it stopped taking what the host sends"))
            kill(pid, SIGKILL)
            continue
          }
          guard entry.revents & ~Int16(POLLOUT) != 0 else { continue }
        }
        let count = buffer.withUnsafeMutableBytes { read(entry.fd, $0.baseAddress, $0.count) }
        if count < 0, errno == EINTR || errno == EAGAIN { continue }
        guard count > 0 else {
          open.removeAll { $0 == entry.fd }
          if entry.fd == channel.descriptor {
            socketOpen = false
            endedAt = .now
          }
          continue
        }
        if entry.fd == stderr {
          tail.append(contentsOf: buffer[0..<count])
          if tail.count > PluginInbox.stderrKept { tail.removeFirst(tail.count - PluginInbox.stderrKept) }
          continue
        }
        buffer.withUnsafeBytes { frames.append(UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
        do {
          while let (message, size) = try frames.nextMessage(PluginMessage.self) {
            guard inbox.push(.message(message), size: size) else {
              throw WireError(
                .flood,
                "it sent over \(PluginInbox.limit >> 20) MiB of messages faster than the host could take them (a flood)"
              )
            }
          }
        } catch {
          _ = inbox.push(.broken("it sent a message the host cannot read: \(error)"))
          kill(pid, SIGKILL)
          open.removeAll { $0 == channel.descriptor }
          socketOpen = false
          endedAt = .now
        }
      }
      if !socketOpen, open == [stderr], let endedAt, ContinuousClock.now - endedAt > .seconds(1) { break loop }
    }
    // The socket is closed: the process is ending, or closed it itself.
    var status: Int32 = 0
    if let zygote {
      // The zygote's child: the zygote reaps it and says how it ended.
      if let ended = zygote.waitForExit(pid, limit: .seconds(1)) {
        status = ended
      } else {
        kill(pid, SIGKILL)
        status = zygote.waitForExit(pid, limit: .seconds(5)) ?? SIGKILL
      }
    } else {
      let deadline = ContinuousClock.now + .seconds(1)
      while waitpid(pid, &status, WNOHANG) == 0 {
        if ContinuousClock.now > deadline { kill(pid, SIGKILL) }
        usleep(2_000)
      }
    }
    close(stderr)
    _ = inbox.push(.ended(status: status, stderr: String(decoding: tail, as: UTF8.self)))
  }

  /// Whether process `pid` has ended, leaving it to be reaped.
  private static func hasEnded(_ pid: pid_t, zygote: PluginZygote?) -> Bool {
    if let zygote { return zygote.hasEnded(pid) }
    var info = siginfo_t()
    return waitid(P_PID, id_t(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info._sifields._sigchld.si_pid == pid
  }
}
