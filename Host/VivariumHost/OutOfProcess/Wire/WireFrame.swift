/// Frames on a byte stream: a 4-byte little-endian payload length, then the
/// payload (``WireMessage/encoded``).
enum WireFrame {
  /// `payload` with its length in front.
  static func frame(_ payload: [UInt8]) -> [UInt8] {
    let length = UInt32(payload.count)
    var bytes: [UInt8] = [
      UInt8(truncatingIfNeeded: length), UInt8(truncatingIfNeeded: length >> 8),
      UInt8(truncatingIfNeeded: length >> 16), UInt8(truncatingIfNeeded: length >> 24),
    ]
    bytes.append(contentsOf: payload)
    return bytes
  }
}

/// Cuts a byte stream into frames as the bytes arrive. A frame longer than
/// ``WireProtocol/frameLimit`` is an error before its payload is read, so a
/// peer cannot make this side hold more than one frame's worth.
struct WireFrameReader {
  private var buffer: [UInt8] = []
  private var start = 0

  /// Bytes received and not yet taken as frames.
  var pending: Int { buffer.count - start }

  /// Adds bytes read from the stream.
  mutating func append(_ bytes: UnsafeRawBufferPointer) {
    if start > 0, start >= buffer.count / 2 {
      buffer.removeFirst(start)
      start = 0
    }
    buffer.append(contentsOf: bytes)
  }

  /// The next whole frame's message and its size on the wire, nil until
  /// one has arrived; throws for a frame too long or a malformed message.
  mutating func nextMessage() throws(WireError) -> (message: WireMessage, size: Int)? {
    guard let payload = try next() else { return nil }
    return (try WireMessage.decode(payload), payload.count)
  }

  /// The next whole frame's payload, nil until one has arrived.
  mutating func next() throws(WireError) -> [UInt8]? {
    guard pending >= 4 else { return nil }
    let length =
      Int(buffer[start]) | Int(buffer[start + 1]) << 8 | Int(buffer[start + 2]) << 16 | Int(buffer[start + 3]) << 24
    guard length <= WireProtocol.frameLimit else {
      throw WireError("a frame of \(length) bytes is over the limit of \(WireProtocol.frameLimit)")
    }
    guard pending >= 4 + length else { return nil }
    let payload = Array(buffer[(start + 4)..<(start + 4 + length)])
    start += 4 + length
    if start == buffer.count {
      buffer.removeAll(keepingCapacity: true)
      start = 0
    }
    return payload
  }
}
