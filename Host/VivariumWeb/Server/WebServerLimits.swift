/// Limits a server holds every client to.
package struct WebServerLimits: Sendable {
  /// Connections open at once; the next is answered 503 and closed.
  package var connections = 256
  /// The most bytes of a request head (passed to ``HTTPRequestParser``).
  package var headerBytes = 16 << 10
  /// The most bytes of a request body.
  package var bodyBytes = 64 << 10
  /// The most bytes of one WebSocket message (passed to ``WebSocketDecoder``).
  package var messageBytes = 1 << 20
  /// The most messages (pings and pongs among them) a WebSocket may send
  /// a second: a token bucket with a burst of the same; over it, the
  /// connection is closed with 1008.
  package var messagesPerSecond = 200
  /// A request head must arrive whole within this many seconds of the
  /// connection's opening or of its first byte, and its body within as many
  /// again, or the connection is closed (slowloris).
  package var headerSeconds = 10.0
  /// An HTTP keep-alive connection idle this long is closed (WebSockets are not).
  package var idleSeconds = 300.0
  /// A client that leaves more than this many bytes unread is closed.
  package var pendingBytes = 8 << 20

  /// The defaults above.
  package init() {}
}
