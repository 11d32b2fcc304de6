/// A WebSocket frame a server sends (RFC 6455 §5.2): never masked, its
/// length in the fewest bytes (7 bits, then 16, then 64).
package struct WebSocketFrame: Sendable, Equatable {
  /// The largest payload of a control frame (§5.5).
  package static let controlPayloadLimit = 125

  /// What the frame carries.
  package let opcode: WebSocketOpcode
  /// Whether this is the last frame of its message.
  package let fin: Bool
  /// The payload.
  package let payload: [UInt8]

  /// A frame of `opcode` with `payload`, the last of its message unless
  /// `fin` is false. A control frame must be final and carry at most 125
  /// bytes: anything else is a mistake of the caller's, and traps.
  package init(_ opcode: WebSocketOpcode, payload: [UInt8], fin: Bool = true) {
    precondition(
      !opcode.isControl || (fin && payload.count <= Self.controlPayloadLimit),
      "a control frame is final and carries at most 125 bytes")
    self.opcode = opcode
    self.payload = payload
    self.fin = fin
  }

  /// A text message in one frame.
  package static func text(_ text: String) -> WebSocketFrame {
    WebSocketFrame(.text, payload: Array(text.utf8))
  }

  /// A binary message in one frame.
  package static func binary(_ bytes: [UInt8]) -> WebSocketFrame {
    WebSocketFrame(.binary, payload: bytes)
  }

  /// A ping carrying `payload` (at most 125 bytes).
  package static func ping(_ payload: [UInt8] = []) -> WebSocketFrame {
    WebSocketFrame(.ping, payload: payload)
  }

  /// A pong carrying `payload` (at most 125 bytes): a ping's, to answer it.
  package static func pong(_ payload: [UInt8]) -> WebSocketFrame {
    WebSocketFrame(.pong, payload: payload)
  }

  /// A close frame: `code` and `reason`, the reason cut at a character so
  /// that the payload fits in 125 bytes; no payload at all without a code.
  /// A code that may not be sent (``WebSocketCloseCode/mayBeSent``) traps.
  package static func close(_ code: WebSocketCloseCode?, reason: String = "") -> WebSocketFrame {
    guard let code else { return WebSocketFrame(.close, payload: []) }
    precondition(code.mayBeSent, "close code \(code) is never sent")
    var payload = [UInt8(code.code >> 8), UInt8(truncatingIfNeeded: code.code)]
    for scalar in reason.unicodeScalars {
      let bytes = Array(scalar.utf8)
      guard payload.count + bytes.count <= controlPayloadLimit else { break }
      payload += bytes
    }
    return WebSocketFrame(.close, payload: payload)
  }

  /// The frame's bytes: the header, then the payload, unmasked.
  package func encoded() -> [UInt8] {
    var bytes = Self.header(opcode, fin: fin, length: payload.count)
    bytes.reserveCapacity(bytes.count + payload.count)
    bytes += payload
    return bytes
  }

  /// The header of an unmasked frame of `opcode` whose payload is
  /// `length` bytes: for a large message, send this, then the payload.
  package static func header(_ opcode: WebSocketOpcode, fin: Bool, length: Int) -> [UInt8] {
    precondition(length >= 0)
    let first = (fin ? 0x80 : 0) | opcode.rawValue
    switch length {
    case 0...125:
      return [first, UInt8(length)]
    case 126...0xFFFF:
      return [first, 126, UInt8(length >> 8), UInt8(truncatingIfNeeded: length)]
    default:
      return [first, 127] + stride(from: 56, through: 0, by: -8).map { UInt8(truncatingIfNeeded: length >> $0) }
    }
  }
}
