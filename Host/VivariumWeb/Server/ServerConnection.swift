import Glibc

/// One client's connection, as the I/O thread holds it: only that thread
/// touches it.
final class ServerConnection {
  /// Where a connection is in its life.
  enum Phase {
    /// Reading a request head.
    case head
    /// Reading the body of `request` into ``ServerConnection/body``.
    case body(HTTPRequestHead)
    /// Waiting for the app's response to `request`.
    case responding(HTTPRequestHead)
    /// Waiting for the app to take or refuse the WebSocket `handshake` asked for.
    case upgrading(WebSocketHandshake)
    /// A WebSocket: frames in both directions.
    case webSocket
    /// Writing what is queued, then closing: nothing more is read but to
    /// see the client's end.
    case closing
  }

  /// The number naming the connection.
  let id: Int
  /// The socket.
  let fd: Int32
  /// The client's address.
  let peer: String
  /// Where the connection is.
  var phase = Phase.head
  /// Reads request heads.
  var parser: HTTPRequestParser
  /// The body read so far of the request in ``Phase/body(_:)``.
  var body: [UInt8] = []
  /// Bytes read and not yet handled (the next request's, while the app answers one).
  var input: ArraySlice<UInt8> = []
  /// Bytes queued for the client; those before ``outputStart`` are written.
  private(set) var output: [UInt8] = []
  /// Where the bytes still to write begin in ``output``.
  private var outputStart = 0
  /// When the connection is closed unless it gets somewhere first, and why.
  var deadline: (time: Double, reason: Deadline)?
  /// Reads the client's frames, once a WebSocket.
  var decoder: WebSocketDecoder?
  /// The app's end of the WebSocket, once one is asked for.
  var socket: WebSocketConnection?
  /// Whether the WebSocket's end was told to the app.
  var socketEnded = false
  /// Frames the app sent before the 101 was written, their bytes, and
  /// whether it closed.
  var early: (frames: [[UInt8]], bytes: Int, close: (WebSocketCloseCode, String)?) = ([], 0, nil)
  /// The client's message rate.
  var bucket: TokenBucket
  /// Whether the client has closed its end: nothing more to read.
  var readClosed = false
  /// Whether this end's writing side is shut (a closing connection's queue written).
  var writeShut = false

  /// Why a deadline closes a connection.
  enum Deadline {
    /// A request's head or body did not arrive in time.
    case request
    /// A keep-alive connection was idle.
    case idle
    /// A closing connection's client did not read or close in time.
    case linger
  }

  /// A connection `id` on `fd` from `peer`, its request heads held to `limits`.
  init(id: Int, fd: Int32, peer: String, limits: WebServerLimits, now: Double) {
    self.id = id
    self.fd = fd
    self.peer = peer
    parser = HTTPRequestParser(
      requestLineLimit: min(8 << 10, limits.headerBytes), headerBlockLimit: limits.headerBytes,
      bodyLimit: limits.bodyBytes)
    bucket = TokenBucket(rate: limits.messagesPerSecond, now: now)
  }

  /// How many bytes are queued and not yet written.
  var pendingBytes: Int { output.count - outputStart }

  /// Whether anything is queued.
  var hasOutput: Bool { outputStart < output.count }

  /// Whether the connection is closing.
  var isClosing: Bool {
    if case .closing = phase { return true }
    return false
  }

  /// Queues `bytes` to be written.
  func queue(_ bytes: [UInt8]) {
    if output.isEmpty {
      output = bytes
    } else {
      output += bytes
    }
  }

  /// Writes as much of the queue as the socket takes now: false when the
  /// connection is lost.
  func write() -> Bool {
    while outputStart < output.count {
      let written = output.withUnsafeBytes { buffer in
        send(fd, buffer.baseAddress! + outputStart, buffer.count - outputStart, Int32(MSG_NOSIGNAL))
      }
      if written < 0 {
        let code = errno
        if code == EINTR { continue }
        compact()
        return code == EAGAIN || code == EWOULDBLOCK
      }
      outputStart += written
    }
    output.removeAll(keepingCapacity: output.capacity <= 64 << 10)
    outputStart = 0
    return true
  }

  /// Drops the bytes already written, when they are at least half the
  /// queue, so that each byte is moved at most once on average.
  private func compact() {
    if outputStart > 0 && outputStart >= output.count - outputStart {
      output.removeSubrange(..<outputStart)
      outputStart = 0
    }
  }
}
