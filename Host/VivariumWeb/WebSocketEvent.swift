/// What a client's frames come to (``WebSocketDecoder``): a whole message,
/// or a control frame.
package enum WebSocketEvent: Sendable, Equatable {
  /// A text message, all its fragments joined, checked as UTF-8.
  case text(String)
  /// A binary message, all its fragments joined.
  case binary([UInt8])
  /// A ping: answer it with ``reply``.
  case ping([UInt8])
  /// A pong.
  case pong([UInt8])
  /// A close frame, with its code (nil when it had none) and reason. The
  /// decoder reads nothing after it; answer it with ``reply``, then close
  /// the connection.
  case close(WebSocketCloseCode?, reason: String)

  /// The frame to send in answer, encoded: a pong of a ping's payload, a
  /// close echoing a close's code (with no reason); nil for the rest.
  package var reply: [UInt8]? {
    switch self {
    case .ping(let payload): WebSocketFrame.pong(payload).encoded()
    case .close(let code, _): WebSocketFrame.close(code).encoded()
    case .text, .binary, .pong: nil
    }
  }
}
