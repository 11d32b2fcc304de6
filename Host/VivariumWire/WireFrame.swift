/// Frames on a byte stream: a 4-byte little-endian header, then the
/// payload. The header's low 31 bits are the payload's length, at most
/// ``WireProtocol/frameLimit``; its top bit says more frames of the same
/// message follow. A message (``WireMessage/encoded()``) longer than one
/// frame crosses in several, in order, and never more than
/// ``WireProtocol/messageLimit`` in all.
package enum WireFrame {
  /// The header bit saying more frames of the message follow.
  static let continues: UInt32 = 1 << 31

  /// `payload` as frames: each with its header, all but the last marked
  /// as continued.
  package static func frame(_ payload: [UInt8]) -> [UInt8] {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(payload.count + 4 * (1 + payload.count / WireProtocol.frameLimit))
    var start = 0
    repeat {
      let end = min(payload.count, start + WireProtocol.frameLimit)
      let header = UInt32(end - start) | (end < payload.count ? continues : 0)
      for shift in stride(from: 0, to: 32, by: 8) { bytes.append(UInt8(truncatingIfNeeded: header >> shift)) }
      bytes.append(contentsOf: payload[start..<end])
      start = end
    } while start < payload.count
    return bytes
  }
}

/// Cuts a byte stream into messages' payloads as the bytes arrive. A frame
/// longer than ``WireProtocol/frameLimit``, or a message whose frames come
/// to more than ``WireProtocol/messageLimit``, is an error before the
/// bytes that would pass the limit are held, so a peer cannot make this
/// side hold more than one message's worth.
package struct WireFrameReader {
  private var buffer: [UInt8] = []
  private var start = 0
  /// The frames of a message received so far, while more are to come.
  private var partial: [UInt8] = []

  /// A reader holding nothing yet.
  package init() {}

  /// Bytes received and not yet taken as messages.
  package var pending: Int { buffer.count - start + partial.count }

  /// Adds bytes read from the stream.
  package mutating func append(_ bytes: UnsafeRawBufferPointer) {
    if start > 0, start >= buffer.count / 2 {
      buffer.removeFirst(start)
      start = 0
    }
    buffer.append(contentsOf: bytes)
  }

  /// The next whole message, of the direction this side reads, and its
  /// size on the wire; nil until all its frames have arrived. Throws for a
  /// frame or message too long or a malformed message: one of the other
  /// direction is malformed.
  package mutating func nextMessage<Message: WireMessage>(
    _ type: Message.Type
  ) throws(WireError) -> (message: Message, size: Int)? {
    guard let payload = try next() else { return nil }
    return (try Message.decode(payload), payload.count)
  }

  /// The next whole message's payload, nil until all its frames have arrived.
  package mutating func next() throws(WireError) -> [UInt8]? {
    while buffer.count - start >= 4 {
      let header = (0..<4).reduce(UInt32(0)) { $0 | UInt32(buffer[start + $1]) << (8 * UInt32($1)) }
      let length = Int(header & ~WireFrame.continues)
      guard length <= WireProtocol.frameLimit else {
        throw WireError(.frameTooLarge, "a frame of \(length) bytes is over the limit of \(WireProtocol.frameLimit)")
      }
      guard partial.count + length <= WireProtocol.messageLimit else {
        throw WireError(
          .messageTooLarge, "a message of over \(WireProtocol.messageLimit) bytes is over the limit")
      }
      guard buffer.count - start >= 4 + length else { return nil }
      let body = buffer[(start + 4)..<(start + 4 + length)]
      start += 4 + length
      if start == buffer.count {
        buffer.removeAll(keepingCapacity: true)
        start = 0
      }
      guard header & WireFrame.continues == 0 else {
        partial.append(contentsOf: body)
        continue
      }
      guard !partial.isEmpty else { return Array(body) }
      defer { partial = [] }
      partial.append(contentsOf: body)
      return partial
    }
    return nil
  }
}
