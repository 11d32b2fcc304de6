/// What a WebSocket frame carries (RFC 6455 §5.2, §11.8): the opcodes
/// defined; the others are reserved, and an error to receive.
package enum WebSocketOpcode: UInt8, Sendable {
  /// The next fragment of the message under way.
  case continuation = 0x0
  /// The first frame of a text message (UTF-8).
  case text = 0x1
  /// The first frame of a binary message.
  case binary = 0x2
  /// A close frame: an optional code and reason.
  case close = 0x8
  /// A ping, to be answered with a pong of the same payload.
  case ping = 0x9
  /// A pong, answering a ping or unasked (a heartbeat).
  case pong = 0xA

  /// Whether this is a control frame's opcode (close, ping, pong): at most
  /// 125 bytes of payload, never fragmented, and allowed between the
  /// fragments of a message.
  package var isControl: Bool { rawValue & 0x8 != 0 }
}
