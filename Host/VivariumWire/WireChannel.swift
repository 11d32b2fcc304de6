import Glibc
import Synchronization

/// One end of the socket between the host and a plugin process: sends
/// whole frames of the messages its side sends (`Sent`: ``HostMessage``
/// in the host, ``PluginMessage`` in a plugin process), one sender at a
/// time, never raising SIGPIPE.
package final class WireChannel<Sent: WireMessage>: Sendable {
  /// The socket.
  package let descriptor: Int32
  /// Frames held back by ``hold()`` until ``flush()``; nil when none are.
  private let sending = Mutex<[UInt8]?>(nil)
  /// The most bytes held back before they are sent all the same.
  private static var holdLimit: Int { 64 << 10 }

  /// The channel over the socket `descriptor`, which it closes when it goes.
  package init(descriptor: Int32) {
    self.descriptor = descriptor
  }

  /// Closes the socket once no one can send on it, so its number cannot be
  /// reused by another channel while a sender still holds this one.
  deinit { close(descriptor) }

  /// Sends `message` as one frame. With `limit`, gives up when the peer has
  /// not made room for it within that time (it stopped reading). False when
  /// the frame could not be sent whole, or the message not encoded.
  @discardableResult
  package func send(_ message: Sent, within limit: Duration? = nil) -> Bool {
    guard let payload = try? message.encoded() else { return false }
    return send(encoded: payload, within: limit)
  }

  /// Sends a message already encoded (``WireMessage/encoded()``), as
  /// ``send(_:within:)`` does.
  @discardableResult
  package func send(encoded payload: [UInt8], within limit: Duration? = nil) -> Bool {
    let frame = WireFrame.frame(payload)
    return sending.withLock { held in
      guard held != nil else { return write(frame, within: limit) }
      held!.append(contentsOf: frame)
      guard held!.count > Self.holdLimit else { return true }
      defer { held = [] }
      return write(held!, within: limit)
    }
  }

  /// Holds back what is sent from now until ``flush(keepHolding:)``, to
  /// send it in as few writes as it can: what one call sends (its state, its
  /// answer) reaches the peer together, waking it once; a plugin process
  /// sends a draw ahead of the rest, so that the screen changes first.
  package func hold() {
    sending.withLock { held in
      if held == nil { held = [] }
    }
  }

  /// Sends what was held back, and sends at once from now on (or, with
  /// `keepHolding`, holds back again what comes next). False when it could
  /// not be sent whole.
  @discardableResult
  package func flush(keepHolding: Bool = false) -> Bool {
    sending.withLock { held in
      guard let frames = held else { return true }
      held = keepHolding ? [] : nil
      return frames.isEmpty || write(frames, within: nil)
    }
  }

  /// Writes `frame` whole, as ``send(encoded:within:)`` describes; under the lock.
  private func write(_ frame: [UInt8], within limit: Duration?) -> Bool {
    let deadline = limit.map { ContinuousClock.now + $0 }
    return frame.withUnsafeBytes { bytes in
      var offset = 0
      while offset < bytes.count {
        let flags = Int32(MSG_NOSIGNAL) | (deadline == nil ? 0 : Int32(MSG_DONTWAIT))
        let sent = Glibc.send(descriptor, bytes.baseAddress! + offset, bytes.count - offset, flags)
        if sent > 0 {
          offset += sent
          continue
        }
        if sent < 0, errno == EINTR { continue }
        guard sent < 0, errno == EAGAIN || errno == EWOULDBLOCK, let deadline else { return false }
        let left = ContinuousClock.now.duration(to: deadline)
        guard left > .zero else { return false }
        var entry = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
        _ = poll(&entry, 1, Int32(max(1, left.milliseconds)))
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

extension Duration {
  /// Whole milliseconds, rounded up.
  package var milliseconds: Int {
    let (seconds, attoseconds) = components
    return Int(seconds) * 1000 + Int((attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000)
  }
}
