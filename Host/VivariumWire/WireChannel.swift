import Glibc
import Synchronization

/// One end of the socket between the host and a plugin process: sends
/// whole frames of the messages its side sends (`Sent`: ``HostMessage``
/// in the host, ``PluginMessage`` in a plugin process), one sender at a
/// time, never raising SIGPIPE.
///
/// The plugin's end (``WireSending/waits``) waits for room to write: its
/// process has nothing else to do. The host's end (``WireSending/buffers``)
/// never waits: what the socket has no room for is kept, in order, and
/// written by ``writePending()`` once it is writable (the thread that reads
/// the process polls for that, woken through ``wakeDescriptor``); the host
/// gives up on a peer that leaves it unwritten (``pendingSince``).
package final class WireChannel<Sent: WireMessage>: Sendable {
  /// The socket.
  package let descriptor: Int32
  /// For a channel that buffers: one end of a socket pair that becomes
  /// readable when bytes are left to write, so that the thread polling the
  /// socket adds it to the writable set (read it empty when it is); -1 for
  /// one that waits.
  package let wakeDescriptor: Int32
  /// The other end, written to wake the reader.
  private let wakeWriter: Int32
  private let mode: WireSending

  private struct Outgoing {
    /// Frames held back by ``hold()`` until ``flush()``; nil when none are.
    var held: [UInt8]?
    /// Bytes the socket had no room for, from `written` on.
    var pending: [UInt8] = []
    var written = 0
    /// Since when bytes have been left to write without the peer taking
    /// any (the last write that took some); nil when none are left.
    var since: ContinuousClock.Instant?
    /// Whether a write failed: the peer is gone, and nothing is sent again.
    var broken = false
  }

  private let outgoing = Mutex(Outgoing())
  /// The most bytes held back before they are sent all the same.
  private static var holdLimit: Int { 64 << 10 }
  /// The most bytes a channel that buffers keeps for a peer that does not
  /// read: past it, sending fails.
  package static var pendingLimit: Int { 32 << 20 }

  /// The channel over the socket `descriptor`, which it closes when it
  /// goes; sending as `mode` says.
  package init(descriptor: Int32, sending mode: WireSending = .waits) {
    self.descriptor = descriptor
    self.mode = mode
    // A socket pair, not a pipe: it is made close-on-exec and non-blocking
    // at once, so no process started meanwhile inherits it.
    var pipe: [Int32] = [-1, -1]
    if mode == .buffers,
      socketpair(
        AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0, &pipe)
        != 0
    {
      pipe = [-1, -1]
    }
    (wakeDescriptor, wakeWriter) = (pipe[0], pipe[1])
  }

  /// Closes the socket once no one can send on it, so its number cannot be
  /// reused by another channel while a sender still holds this one.
  deinit {
    close(descriptor)
    for end in [wakeDescriptor, wakeWriter] where end >= 0 { close(end) }
  }

  /// Sends `message` as one frame. False when the frame could not be sent
  /// (the peer closed its end, or, for a channel that buffers, over
  /// ``pendingLimit`` bytes wait for it), or the message not encoded.
  @discardableResult
  package func send(_ message: Sent) -> Bool {
    guard let payload = try? message.encoded() else { return false }
    return send(encoded: payload)
  }

  /// Sends a message already encoded (``WireMessage/encoded()``), as
  /// ``send(_:)`` does.
  @discardableResult
  package func send(encoded payload: [UInt8]) -> Bool {
    let frame = WireFrame.frame(payload)
    return outgoing.withLock { state in
      guard state.held != nil else { return write(frame, &state) }
      state.held!.append(contentsOf: frame)
      guard state.held!.count > Self.holdLimit else { return true }
      let frames = state.held!
      state.held = []
      return write(frames, &state)
    }
  }

  /// Holds back what is sent from now until ``flush(keepHolding:)``, to
  /// send it in as few writes as it can: what one call sends (its draws,
  /// its state, its answer) reaches the peer together, waking it once.
  package func hold() {
    outgoing.withLock { state in
      if state.held == nil { state.held = [] }
    }
  }

  /// Sends what was held back, and sends at once from now on (or, with
  /// `keepHolding`, holds back again what comes next). False when it could
  /// not be sent whole.
  @discardableResult
  package func flush(keepHolding: Bool = false) -> Bool {
    outgoing.withLock { state in
      guard let frames = state.held else { return true }
      state.held = keepHolding ? [] : nil
      return frames.isEmpty || write(frames, &state)
    }
  }

  /// Since when bytes have been waiting with the peer taking none of them
  /// (the last write that took some); nil when none are waiting.
  package var pendingSince: ContinuousClock.Instant? { outgoing.withLock(\.since) }

  /// Whether bytes are waiting for the peer to make room.
  package var hasPending: Bool { outgoing.withLock { $0.since != nil } }

  /// How many bytes sent wait for the peer to read them, those held back included.
  package var waitingBytes: Int {
    outgoing.withLock { $0.pending.count - $0.written + ($0.held?.count ?? 0) }
  }

  /// Writes what waits for room, as much as the socket takes now: for the
  /// thread that polls the socket, when it is writable. False when the peer
  /// closed its end: what waited is dropped, and sending fails from then on.
  @discardableResult
  package func writePending() -> Bool {
    outgoing.withLock { state in
      guard state.since != nil else { return !state.broken }
      guard let count = writeNow(state.pending[state.written...]) else {
        state = Outgoing(broken: true)
        return false
      }
      guard count > 0 else { return true }
      state.written += count
      state.since = .now
      if state.written == state.pending.count {
        state = Outgoing(held: state.held)
      } else if state.written > state.pending.count / 2 {
        state.pending.removeFirst(state.written)
        state.written = 0
      }
      return true
    }
  }

  /// Writes `bytes` whole, or for a channel that buffers, as much as fits
  /// now with the rest kept; under the lock.
  private func write(_ bytes: [UInt8], _ state: inout Outgoing) -> Bool {
    guard mode == .buffers else { return writeWaiting(bytes) }
    guard !state.broken else { return false }
    if state.since != nil {
      guard state.pending.count - state.written + bytes.count <= Self.pendingLimit else { return false }
      state.pending += bytes
      return true
    }
    guard let count = writeNow(bytes[...]) else {
      state.broken = true
      return false
    }
    guard count < bytes.count else { return true }
    state.pending = Array(bytes[count...])
    state.written = 0
    state.since = .now
    // The thread polling the socket now waits for it to be writable too.
    var one: UInt8 = 1
    _ = Glibc.write(wakeWriter, &one, 1)
    return true
  }

  /// Writes what the socket takes of `bytes` without waiting: how many it
  /// took, nil when the peer closed its end.
  private func writeNow(_ bytes: ArraySlice<UInt8>) -> Int? {
    bytes.withUnsafeBytes { bytes in
      var offset = 0
      while offset < bytes.count {
        let sent = Glibc.send(
          descriptor, bytes.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL | MSG_DONTWAIT))
        if sent > 0 {
          offset += sent
        } else if sent < 0, errno == EINTR {
          continue
        } else if sent < 0, errno == EAGAIN || errno == EWOULDBLOCK {
          break
        } else {
          return nil
        }
      }
      return offset
    }
  }

  /// Writes `bytes` whole, waiting for room as long as it takes.
  private func writeWaiting(_ bytes: [UInt8]) -> Bool {
    bytes.withUnsafeBytes { bytes in
      var offset = 0
      while offset < bytes.count {
        let sent = Glibc.send(descriptor, bytes.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL))
        if sent > 0 {
          offset += sent
          continue
        }
        if sent < 0, errno == EINTR { continue }
        if sent < 0, errno == EAGAIN || errno == EWOULDBLOCK {
          // A socket made non-blocking by its owner: wait for room.
          var entry = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
          _ = poll(&entry, 1, -1)
          continue
        }
        return false
      }
      return true
    }
  }

  /// Reads what the socket holds now, without waiting, into `frames`,
  /// through `buffer` (kept by the caller, so a read allocates nothing):
  /// true when something was read or nothing was there yet; false at the
  /// end of the stream or on an error. Wait for input with `poll` on
  /// ``descriptor``, not in a blocking `recv`: a socket's readers and
  /// writers wait in one queue, and each time the peer reads what this end
  /// sent, the kernel wakes that queue to say there is room to write, so a
  /// reader blocked in `recv` would wake for nothing on every round trip.
  package func receiveAvailable(into frames: inout WireFrameReader, buffer: inout [UInt8]) -> Bool {
    let count = buffer.withUnsafeMutableBytes {
      Glibc.recv(descriptor, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT))
    }
    if count < 0, errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK { return true }
    guard count > 0 else { return false }
    buffer.withUnsafeBytes { frames.append(UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
    return true
  }
}

/// How a ``WireChannel`` sends when the peer has not made room.
package enum WireSending: Sendable {
  /// Waits for room.
  case waits
  /// Keeps what does not fit, up to ``WireChannel/pendingLimit`` bytes.
  case buffers
}

extension Duration {
  /// Whole milliseconds, rounded up.
  package var milliseconds: Int {
    let (seconds, attoseconds) = components
    return Int(seconds) * 1000 + Int((attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000)
  }
}
