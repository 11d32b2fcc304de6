/// Reads a client's WebSocket frames (RFC 6455 §5) from bytes as they
/// arrive, and gives whole messages and control frames (``WebSocketEvent``).
///
/// It holds clients to the protocol: every frame masked, no reserved bit
/// (no extension is ever agreed), no reserved opcode, control frames final
/// and of at most 125 bytes, lengths in the fewest bytes, fragments in
/// order, close codes that may be sent, text that is UTF-8 (checked as it
/// arrives, across fragments, so a bad byte fails at once), and messages
/// no larger than ``maximumMessageSize`` (refused from a frame's header,
/// before its payload arrives). Anything else throws a ``WebSocketError``,
/// which says how to close.
///
/// Feed the bytes read (``feed(_:)``), then take events (``next()``) until
/// there are none. Each byte is read once, and unmasked straight into the
/// message it belongs to; bytes fed and not yet read are the only ones
/// held besides the message under way.
package struct WebSocketDecoder: Sendable {
  /// The default ``maximumMessageSize``: 1 MiB.
  package static let defaultMaximumMessageSize = 1 << 20

  /// The most bytes a message may hold, all its fragments together.
  package let maximumMessageSize: Int

  /// The frame whose payload is being read.
  private struct Frame {
    /// Its opcode.
    let opcode: WebSocketOpcode
    /// Whether it ends its message.
    let fin: Bool
    /// The bytes of its payload still to read.
    var remaining: Int
    /// Its masking key, the first byte highest.
    let mask: UInt32
    /// Where in the masking key the next byte's is (0–3).
    var maskOffset = 0
  }

  /// Bytes fed; those before ``readIndex`` are read.
  private var input: [UInt8] = []
  /// Where the next byte to read is in ``input``.
  private var readIndex = 0
  /// The frame whose payload is being read, when its header is read.
  private var frame: Frame?
  /// The opcode (text or binary) of the message under way, if any.
  private var messageOpcode: WebSocketOpcode?
  /// The payload of the message under way, unmasked.
  private var message: [UInt8] = []
  /// The payload of the control frame under way, unmasked.
  private var control: [UInt8] = []
  /// The check of the text message under way.
  private var utf8 = UTF8Validator()
  /// Whether a close frame was read: nothing after it is.
  private var closed = false
  /// The error thrown, thrown again by every later ``next()``.
  private var failure: WebSocketError?

  /// A decoder taking messages of at most `maximumMessageSize` bytes.
  package init(maximumMessageSize: Int = defaultMaximumMessageSize) {
    precondition(maximumMessageSize >= 0)
    self.maximumMessageSize = maximumMessageSize
  }

  /// Adds `bytes`, the next ones of the connection, to what ``next()`` reads.
  package mutating func feed(_ bytes: some Collection<UInt8>) {
    if closed || failure != nil { return }
    // Drop what was read once it is at least half of what is held, so
    // that the bytes moved are never more than those read.
    if readIndex == input.count {
      input.removeAll(keepingCapacity: true)
      readIndex = 0
    } else if readIndex > 0 && readIndex >= input.count - readIndex {
      input.removeSubrange(..<readIndex)
      readIndex = 0
    }
    input.append(contentsOf: bytes)
  }

  /// The next event the bytes fed come to, or nil until more are fed (and
  /// for ever after a close). Throws a ``WebSocketError`` when the client
  /// broke the protocol: send its ``WebSocketError/closeFrame`` and close.
  package mutating func next() throws(WebSocketError) -> WebSocketEvent? {
    if let failure { throw failure }
    if closed { return nil }
    do {
      return try read()
    } catch {
      failure = error
      throw error
    }
  }

  /// Reads frames until one completes an event or the bytes run out.
  private mutating func read() throws(WebSocketError) -> WebSocketEvent? {
    while true {
      if frame == nil {
        guard let header = try readHeader() else { return nil }
        frame = header
      }
      guard var current = frame else { return nil }
      try readPayload(of: &current)
      frame = current
      if current.remaining > 0 { return nil }
      frame = nil
      if let event = try complete(current) { return event }
    }
  }

  /// The header of the next frame, checked, or nil when it has not all
  /// arrived. What its first two bytes break is refused as soon as they
  /// arrive.
  private mutating func readHeader() throws(WebSocketError) -> Frame? {
    let available = input.count - readIndex
    guard available >= 2 else { return nil }
    let first = input[readIndex]
    let second = input[readIndex + 1]
    if first & 0x70 != 0 {
      throw WebSocketError(.reservedBits, "a frame has a reserved bit set, and no extension was agreed")
    }
    guard let opcode = WebSocketOpcode(rawValue: first & 0x0F) else {
      throw WebSocketError(.unknownOpcode, "a frame has the reserved opcode \(first & 0x0F)")
    }
    let fin = first & 0x80 != 0
    guard second & 0x80 != 0 else { throw WebSocketError(.unmasked, "a client's frame is not masked") }
    let shortLength = Int(second & 0x7F)
    if opcode.isControl {
      guard fin else { throw WebSocketError(.fragmentedControl, "a control frame is fragmented") }
      guard shortLength <= WebSocketFrame.controlPayloadLimit else {
        throw WebSocketError(.controlTooLong, "a control frame carries more than 125 bytes")
      }
    } else if opcode == .continuation {
      guard messageOpcode != nil else {
        throw WebSocketError(.unexpectedContinuation, "a continuation frame comes with no message under way")
      }
    } else if messageOpcode != nil {
      throw WebSocketError(.expectedContinuation, "a new message begins before the one under way ends")
    }
    let lengthBytes = shortLength == 126 ? 2 : shortLength == 127 ? 8 : 0
    guard available >= 2 + lengthBytes + 4 else { return nil }
    var length = shortLength
    if lengthBytes > 0 {
      var extended: UInt64 = 0
      for offset in 0..<lengthBytes {
        extended = extended << 8 | UInt64(input[readIndex + 2 + offset])
      }
      guard extended >> 63 == 0 else {
        throw WebSocketError(.lengthOutOfRange, "a frame's 64-bit length has its top bit set")
      }
      guard extended >= (lengthBytes == 2 ? 126 : 0x1_0000) else {
        throw WebSocketError(.nonMinimalLength, "a frame's length is not in the fewest bytes")
      }
      length = Int(extended)
    }
    if !opcode.isControl {
      guard length <= maximumMessageSize - message.count else {
        throw WebSocketError(.messageTooBig, "a message is over \(maximumMessageSize) bytes")
      }
    }
    var mask: UInt32 = 0
    for offset in 0..<4 {
      mask = mask << 8 | UInt32(input[readIndex + 2 + lengthBytes + offset])
    }
    readIndex += 2 + lengthBytes + 4
    if opcode == .text || opcode == .binary {
      messageOpcode = opcode
      message.removeAll(keepingCapacity: false)
      message.reserveCapacity(min(length, 1 << 16))
      utf8 = UTF8Validator()
    } else if opcode.isControl {
      control.removeAll(keepingCapacity: true)
    }
    return Frame(opcode: opcode, fin: fin, remaining: length, mask: mask)
  }

  /// Unmasks what has arrived of `frame`'s payload into the message or
  /// control frame under way, checking text as it goes.
  private mutating func readPayload(of frame: inout Frame) throws(WebSocketError) {
    let count = min(frame.remaining, input.count - readIndex)
    guard count > 0 else { return }
    let isText = frame.opcode == .text || (frame.opcode == .continuation && messageOpcode == .text)
    let start = frame.opcode.isControl ? control.count : message.count
    var offset = frame.maskOffset
    let mask = frame.mask
    for index in readIndex..<(readIndex + count) {
      let byte = input[index] ^ UInt8(truncatingIfNeeded: mask >> (24 - 8 * UInt32(offset)))
      offset = (offset + 1) & 3
      if frame.opcode.isControl {
        control.append(byte)
      } else {
        message.append(byte)
      }
    }
    readIndex += count
    frame.remaining -= count
    frame.maskOffset = offset
    if isText && !utf8.feed(message[start...]) {
      throw WebSocketError(.invalidUTF8, "a text message is not UTF-8")
    }
  }

  /// The event a frame whose payload is read completes, if any.
  private mutating func complete(_ frame: Frame) throws(WebSocketError) -> WebSocketEvent? {
    switch frame.opcode {
    case .ping:
      return .ping(control)
    case .pong:
      return .pong(control)
    case .close:
      closed = true
      return try Self.closeEvent(control)
    case .text, .binary, .continuation:
      guard frame.fin, let opcode = messageOpcode else { return nil }
      messageOpcode = nil
      let bytes = message
      message = []
      if opcode == .text {
        guard utf8.isComplete else {
          throw WebSocketError(.invalidUTF8, "a text message ends inside a character")
        }
        return .text(String(decoding: bytes, as: UTF8.self))
      }
      return .binary(bytes)
    }
  }

  /// What a close frame's payload says: no code, or a code that may be
  /// sent and a UTF-8 reason.
  private static func closeEvent(_ payload: [UInt8]) throws(WebSocketError) -> WebSocketEvent {
    if payload.isEmpty { return .close(nil, reason: "") }
    guard payload.count >= 2 else { throw WebSocketError(.badClosePayload, "a close frame carries half a code") }
    let number = UInt16(payload[0]) << 8 | UInt16(payload[1])
    guard let code = WebSocketCloseCode(code: number), code.mayBeSent else {
      throw WebSocketError(.badCloseCode, "a close frame's code \(number) is not one that may be sent")
    }
    let reason = payload[2...]
    guard UTF8Validator.isValid(reason) else {
      throw WebSocketError(.invalidUTF8, "a close frame's reason is not UTF-8")
    }
    return .close(code, reason: String(decoding: reason, as: UTF8.self))
  }
}
