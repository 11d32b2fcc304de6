import Glibc
import Synchronization
import Testing

@testable import VivariumWeb

/// The server on real loopback sockets, driven by a raw client written
/// here: requests answered, foreign hosts and origins refused before the
/// app hears of them, WebSockets both ways, and every hostile client
/// (malformed, slow, not reading, too many, too fast) closed alone.
///
/// Nothing waits on a clock to pass: every wait is for something to
/// happen, bounded so that no test can hang.
@Suite("Web: the server", .serialized)
@MainActor
struct WebServerTests {
  /// The `Host` and `Origin` of a server at `port`.
  static func host(_ port: UInt16) -> String { "127.0.0.1:\(port)" }

  /// A GET of `path` with `Host` `host`.
  static func get(_ path: String, host: String, extra: String = "") -> String {
    "GET \(path) HTTP/1.1\r\nHost: \(host)\r\n\(extra)\r\n"
  }

  /// A WebSocket handshake with `origin` (none when nil).
  static func handshake(port: UInt16, origin: String?) -> String {
    var text = "GET /session HTTP/1.1\r\nHost: \(host(port))\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
    text += "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
    if let origin { text += "Origin: \(origin)\r\n" }
    return text + "\r\n"
  }

  /// A server on a free loopback port with `limits`, answering through `app`, and its port.
  static func serve(
    _ app: WebTestApp, limits: WebServerLimits = WebServerLimits(), log: WebLogLines = WebLogLines()
  ) throws -> (WebServer, UInt16) {
    let server = WebServer(host: "127.0.0.1", port: 0, limits: limits, log: log.append, handler: app)
    return (server, try server.start())
  }

  @Test func aGetIsAnswered() async throws {
    let app = WebTestApp()
    let (server, port) = try Self.serve(app)
    defer { server.stop() }
    let client = try WebRawClient(port: port)
    client.write(Self.get("/hello", host: Self.host(port)))
    #expect(await client.read { $0.text.contains("hello /hello") })
    #expect(client.received.text.hasPrefix("HTTP/1.1 200 OK\r\n"))
    #expect(app.requests.map(\.target.path) == ["/hello"])
    // Kept alive: a second request on the same connection.
    client.write(Self.get("/again", host: Self.host(port)))
    #expect(await client.read { $0.text.contains("hello /again") })
  }
}

/// The app of the tests: answers every request with its path, takes or
/// refuses WebSockets, and remembers what it was asked.
@MainActor
final class WebTestApp: WebHandler {
  /// The requests answered, in order.
  var requests: [HTTPRequestHead] = []
  /// Their bodies.
  var bodies: [[UInt8]] = []
  /// The WebSockets taken, in order.
  var sockets: [WebTestSocket] = []
  /// How many upgrades were asked for.
  var upgradesAsked = 0
  /// When set, the response refusing every upgrade.
  var refusal: HTTPResponse?

  /// An app taking every WebSocket.
  nonisolated init() {}

  /// `200` saying `hello` and the path.
  func respond(to request: HTTPRequestHead, body: [UInt8]) -> HTTPResponse {
    requests.append(request)
    bodies.append(body)
    do {
      return try HTTPResponse(status: .ok, text: "hello \(request.target.path) \(body.count)")
    } catch {
      preconditionFailure("\(error)")
    }
  }

  /// A ``WebTestSocket``, unless ``refusal`` is set.
  func upgrade(_ request: HTTPRequestHead, connection: WebSocketConnection) -> Result<
    any WebSocketHandler, WebUpgradeRefusal
  > {
    upgradesAsked += 1
    if let refusal { return .failure(WebUpgradeRefusal(refusal)) }
    let socket = WebTestSocket(connection)
    sockets.append(socket)
    return .success(socket)
  }
}

/// A WebSocket's handler in the tests: remembers its messages and closes.
@MainActor
final class WebTestSocket: WebSocketHandler {
  /// The server's end.
  let connection: WebSocketConnection
  /// The messages received, in order.
  var messages: [String] = []
  /// How many times ``closed()`` was called.
  var closedCount = 0

  /// The handler of `connection`.
  init(_ connection: WebSocketConnection) {
    self.connection = connection
  }

  /// Remembers `text`.
  func received(_ text: String) {
    messages.append(text)
  }

  /// Counts the call.
  func closed() {
    closedCount += 1
  }
}

/// The lines a server logged.
final class WebLogLines: Sendable {
  /// The lines, in order.
  private let lines = Mutex<[String]>([])

  /// No lines yet.
  init() {}

  /// Adds `line`.
  @Sendable func append(_ line: String) {
    lines.withLock { $0.append(line) }
  }

  /// The lines so far.
  var all: [String] { lines.withLock { $0 } }
}

/// Waits until `condition` holds, for at most `seconds`: whether it did.
/// It sleeps between looks, so the main actor runs meanwhile.
@MainActor
func webEventually(seconds: Double = 10, _ condition: @MainActor () -> Bool) async -> Bool {
  let start = ContinuousClock.now
  while !condition() {
    if ContinuousClock.now - start > .seconds(seconds) { return false }
    try? await Task.sleep(for: .milliseconds(5))
  }
  return true
}

/// A client on a raw loopback socket: writes bytes, reads what comes back
/// without ever blocking a thread.
@MainActor
final class WebRawClient {
  /// The socket.
  let fd: Int32
  /// Everything read so far.
  private(set) var received: [UInt8] = []
  /// Whether the server closed (or reset) the connection.
  private(set) var isClosed = false

  /// A client connected to 127.0.0.1 at `port`.
  init(port: UInt16) throws {
    fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = port.bigEndian
    address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
    let connected = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    if connected != 0 {
      close(fd)
      throw ClientError(description: "cannot connect: \(String(cString: strerror(errno)))")
    }
    _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
  }

  deinit {
    close(fd)
  }

  /// A client's failure.
  struct ClientError: Error, CustomStringConvertible {
    /// What failed.
    let description: String
  }

  /// Writes all of `text`.
  func write(_ text: String) {
    write(Array(text.utf8))
  }

  /// Writes what the socket takes of `bytes` now: how many it took (all
  /// of them, unless the server stopped reading).
  @discardableResult
  func write(_ bytes: [UInt8]) -> Int {
    var written = 0
    while written < bytes.count {
      let count = bytes.withUnsafeBytes {
        send(fd, $0.baseAddress! + written, bytes.count - written, Int32(MSG_NOSIGNAL))
      }
      guard count > 0 else { break }
      written += count
    }
    return written
  }

  /// Reads what has arrived; marks the connection closed at its end.
  private func readNow() {
    var buffer = [UInt8](repeating: 0, count: 64 << 10)
    while !isClosed {
      let count = recv(fd, &buffer, buffer.count, 0)
      if count > 0 {
        received += buffer[..<count]
      } else if count == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
        isClosed = true
      } else {
        return
      }
    }
  }

  /// Reads until `condition` holds of what was read, or the connection
  /// closes, or `seconds` pass: whether it holds.
  func read(seconds: Double = 10, until condition: ([UInt8]) -> Bool) async -> Bool {
    _ = await webEventually(seconds: seconds) {
      readNow()
      return condition(received) || isClosed
    }
    return condition(received)
  }

  /// Reads until the server closes the connection, or `seconds` pass: whether it closed.
  func readUntilClosed(seconds: Double = 10) async -> Bool {
    await webEventually(seconds: seconds) {
      readNow()
      return isClosed
    }
  }

  /// Forgets what was read.
  func clear() {
    received = []
  }
}

extension [UInt8] {
  /// The bytes as UTF-8 text.
  fileprivate var text: String { String(decoding: self, as: UTF8.self) }
}
