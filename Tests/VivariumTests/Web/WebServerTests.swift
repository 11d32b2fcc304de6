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

  /// A GET reaches the app and its response the client, and the connection stays for the next.
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

  /// HEAD gets the head alone, a body reaches the app, and requests sent
  /// together are answered in order; `Connection: close` closes after its answer.
  @Test func headPostAndPipelinedRequestsAreAnsweredInOrder() async throws {
    let app = WebTestApp()
    let (server, port) = try Self.serve(app)
    defer { server.stop() }
    let client = try WebRawClient(port: port)
    let host = Self.host(port)
    client.write(
      "HEAD /a HTTP/1.1\r\nHost: \(host)\r\n\r\n"
        + "POST /b HTTP/1.1\r\nHost: \(host)\r\nContent-Length: 5\r\n\r\nhello"
        + Self.get("/c", host: host, extra: "Connection: close\r\n"))
    #expect(await client.readUntilClosed())
    let text = client.received.text
    let answers = text.split(separator: "HTTP/1.1 200 OK\r\n", omittingEmptySubsequences: false)
    #expect(answers.count == 4)
    // HEAD: the head alone, with the length the body would have.
    #expect(answers[1].hasSuffix("Content-Length: 10\r\n\r\n"))
    #expect(answers[2].hasSuffix("hello /b 5"))
    #expect(answers[3].contains("Connection: close\r\n"))
    #expect(answers[3].hasSuffix("hello /c 0"))
    #expect(app.requests.map(\.target.path) == ["/a", "/b", "/c"])
    #expect(app.bodies[1] == Array("hello".utf8))
  }

  /// A `Host` not the server's (DNS rebinding) is refused 421, and logged, before the app hears of it.
  @Test func aForeignHostIsRefusedBeforeTheApp() async throws {
    let app = WebTestApp()
    let log = WebLogLines()
    let (server, port) = try Self.serve(app, log: log)
    defer { server.stop() }
    let client = try WebRawClient(port: port)
    client.write(Self.get("/", host: "attacker.example:\(port)"))
    #expect(await client.readUntilClosed())
    #expect(client.received.text.hasPrefix("HTTP/1.1 421 Misdirected Request\r\n"))
    #expect(app.requests.isEmpty)
    #expect(log.all.contains { $0.hasPrefix("web: connection 1 from 127.0.0.1: refused") && $0.hasSuffix("(421)") })
  }

  /// A WebSocket from another origin, or from none, is refused 403 before the app hears of it.
  @Test(arguments: [nil, "http://attacker.example", "null", "http://127.0.0.1:1"])
  func anUpgradeFromAnotherOriginIsRefused(origin: String?) async throws {
    let app = WebTestApp()
    let (server, port) = try Self.serve(app)
    defer { server.stop() }
    let client = try WebRawClient(port: port)
    client.write(Self.handshake(port: port, origin: origin))
    #expect(await client.readUntilClosed())
    #expect(client.received.text.hasPrefix("HTTP/1.1 403 Forbidden\r\n"))
    #expect(app.upgradesAsked == 0)
  }

  /// A WebSocket taken: fragments joined into a message for the handler,
  /// `send` reaching the client, pings answered, a close echoed and the handler told.
  @Test func aWebSocketCarriesTextBothWays() async throws {
    let app = WebTestApp()
    let (server, port) = try Self.serve(app)
    defer { server.stop() }
    let client = try await Self.webSocket(port: port)
    #expect(client.received.text.contains("Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n"))
    client.write(WebFrames.masked(0x1, Array("hello, ".utf8), fin: false) + WebFrames.masked(0x0, Array("host".utf8)))
    #expect(await webEventually { app.sockets.first?.messages == ["hello, host"] })
    let socket = try #require(app.sockets.first)
    client.clear()
    socket.connection.send("hello, client")
    #expect(await client.read { WebFrames.server($0).count == 1 })
    #expect(WebFrames.server(client.received).first?.payload == Array("hello, client".utf8))
    #expect(WebFrames.server(client.received).first?.opcode == 0x1)
    // A ping is answered with a pong of its payload.
    client.clear()
    client.write(WebFrames.masked(0x9, [1, 2, 3]))
    #expect(await client.read { WebFrames.server($0).count == 1 })
    #expect(WebFrames.server(client.received).first?.opcode == 0xA)
    #expect(WebFrames.server(client.received).first?.payload == [1, 2, 3])
    // A close is echoed, then the connection closes and the handler is told.
    client.clear()
    client.write(WebFrames.masked(0x8, [0x03, 0xE8]))
    #expect(await client.readUntilClosed())
    #expect(WebFrames.server(client.received).first?.payload == [0x03, 0xE8])
    #expect(await webEventually { socket.closedCount == 1 })
  }

  /// The app's refusal is the response, and the connection closes.
  @Test func theAppMayRefuseAnUpgrade() async throws {
    let app = WebTestApp()
    app.refusal = try HTTPResponse(status: HTTPStatus(code: 401, reason: "Unauthorized"), text: "no\n")
    let (server, port) = try Self.serve(app)
    defer { server.stop() }
    let client = try WebRawClient(port: port)
    client.write(Self.handshake(port: port, origin: "http://\(Self.host(port))"))
    #expect(await client.readUntilClosed())
    #expect(client.received.text.hasPrefix("HTTP/1.1 401 Unauthorized\r\n"))
    #expect(app.upgradesAsked == 1)
  }

  /// A malformed request is refused 400 and its connection closed, while
  /// another goes on; the log line quotes nothing of it.
  @Test func aMalformedRequestClosesOnlyItsConnection() async throws {
    let app = WebTestApp()
    let log = WebLogLines()
    let (server, port) = try Self.serve(app, log: log)
    defer { server.stop() }
    let good = try WebRawClient(port: port)
    good.write(Self.get("/first", host: Self.host(port)))
    #expect(await good.read { $0.text.contains("hello /first") })
    let bad = try WebRawClient(port: port)
    bad.write("GET / HTTP/1.1\r\nHost: \(Self.host(port))\r\nX-Evil: \u{1B}[31m\r\n\r\n")
    #expect(await bad.readUntilClosed())
    #expect(bad.received.text.hasPrefix("HTTP/1.1 400 Bad Request\r\n"))
    good.write(Self.get("/second", host: Self.host(port)))
    #expect(await good.read { $0.text.contains("hello /second") })
    #expect(!good.isClosed)
    #expect(app.requests.map(\.target.path) == ["/first", "/second"])
    let line = try #require(log.all.first { $0.contains("connection 2") })
    #expect(line.hasSuffix("(400)"))
    #expect(!line.unicodeScalars.contains { $0.value < 0x20 })
  }

  /// A response larger than the socket takes at once is written as the
  /// client reads it, whole and in order, and the next request follows it.
  @Test func aLargeResponseIsWrittenAsTheClientReads() async throws {
    let app = WebTestApp()
    let (server, port) = try Self.serve(app)
    defer { server.stop() }
    let client = try WebRawClient(port: port)
    client.write(Self.get("/big", host: Self.host(port)) + Self.get("/next", host: Self.host(port)))
    #expect(await client.read { $0.suffix(13).elementsEqual("hello /next 0".utf8) })
    let received = client.received
    let headEnd = try #require(received.indices.first { received[$0...].starts(with: [13, 10, 13, 10]) })
    let body = received[(headEnd + 4)..<(headEnd + 4 + (4 << 20))]
    #expect(body.elementsEqual((0..<(4 << 20)).lazy.map { UInt8(truncatingIfNeeded: $0 * 7) }))
    #expect(app.requests.map(\.target.path) == ["/big", "/next"])
  }

  /// Requests refused before the app hears of them (with `%h` for the
  /// server's host), and the status of each: a head over 1 KiB, a body over
  /// 1 KiB, a body framed by chunks, HTTP/2, an expectation not
  /// 100-continue, an HTTP/1.0 request without Host, a handshake whose key
  /// is not 16 bytes, a handshake with two Origins.
  nonisolated static let refusals: [(String, Int)] = [
    ("GET / HTTP/1.1\r\nHost: %h\r\nX-Big: \(String(repeating: "b", count: 2000))\r\n\r\n", 431),
    ("POST / HTTP/1.1\r\nHost: %h\r\nContent-Length: 2000\r\n\r\n", 413),
    ("POST / HTTP/1.1\r\nHost: %h\r\nTransfer-Encoding: chunked\r\n\r\n", 501),
    ("GET / HTTP/2.0\r\nHost: %h\r\n\r\n", 505),
    ("POST / HTTP/1.1\r\nHost: %h\r\nContent-Length: 1\r\nExpect: the-moon\r\n\r\nx", 417),
    ("GET / HTTP/1.0\r\n\r\n", 400),
    (
      "GET / HTTP/1.1\r\nHost: %h\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: c2hvcnQ=\r\n"
        + "Sec-WebSocket-Version: 13\r\nOrigin: http://%h\r\n\r\n", 400
    ),
    (
      "GET / HTTP/1.1\r\nHost: %h\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
        + "Origin: http://%h\r\nOrigin: http://%h\r\n\r\n", 403
    ),
  ]

  /// Each bad request is refused with its status and `Connection: close`,
  /// one log line saying so, and the app never asked.
  @Test(arguments: refusals)
  func aBadRequestIsRefusedWithItsStatus(request: String, status: Int) async throws {
    let app = WebTestApp()
    let log = WebLogLines()
    var limits = WebServerLimits()
    limits.headerBytes = 1024
    limits.bodyBytes = 1024
    let (server, port) = try Self.serve(app, limits: limits, log: log)
    defer { server.stop() }
    let client = try WebRawClient(port: port)
    client.write(request.replacing("%h", with: Self.host(port)))
    #expect(await client.readUntilClosed())
    #expect(client.received.text.hasPrefix("HTTP/1.1 \(status) "))
    #expect(client.received.text.contains("Connection: close\r\n"))
    #expect(app.requests.isEmpty && app.upgradesAsked == 0)
    #expect(log.all.count == 1)
    #expect(log.all.first?.hasSuffix("(\(status))") == true)
  }

  /// A head that stops arriving is closed after `headerSeconds` (slowloris), and logged.
  @Test func aStalledHeadIsClosed() async throws {
    let app = WebTestApp()
    let log = WebLogLines()
    var limits = WebServerLimits()
    limits.headerSeconds = 0.3
    let (server, port) = try Self.serve(app, limits: limits, log: log)
    defer { server.stop() }
    let slow = try WebRawClient(port: port)
    slow.write("GET / HTTP/1.1\r\nHost: \(Self.host(port))\r\nX-Slow:")
    #expect(await slow.readUntilClosed())
    #expect(slow.received.isEmpty)
    #expect(app.requests.isEmpty)
    #expect(log.all.contains { $0.contains("did not arrive whole within 0.3 seconds") })
  }

  /// A WebSocket client that never reads, while the app sends megabytes,
  /// is closed at `pendingBytes`; another client is served meanwhile.
  @Test func aClientThatDoesNotReadIsClosedAtItsLimit() async throws {
    let app = WebTestApp()
    let log = WebLogLines()
    var limits = WebServerLimits()
    limits.pendingBytes = 256 << 10
    let (server, port) = try Self.serve(app, limits: limits, log: log)
    defer { server.stop() }
    let stalled = try await Self.webSocket(port: port)
    let socket = try #require(app.sockets.first)
    let other = try WebRawClient(port: port)
    let chunk = String(repeating: "x", count: 64 << 10)
    var sent = 0
    var servedMeanwhile = 0
    // At most 8 MiB: the kernel's buffers take a little (the server's side
    // at most Socket.sendBufferBytes), then the server's queue fills.
    while socket.closedCount == 0 && sent < 128 {
      socket.connection.send(chunk)
      sent += 1
      if sent % 16 == 1 {
        other.write(Self.get("/meanwhile", host: Self.host(port)))
        #expect(await other.read { $0.text.ranges(of: "hello /meanwhile").count > servedMeanwhile })
        servedMeanwhile += 1
      }
      try await Task.sleep(for: .milliseconds(1))
    }
    #expect(servedMeanwhile > 0)
    #expect(await webEventually { socket.closedCount == 1 })
    #expect(log.all.contains { $0.contains("connection 1 ") && $0.contains("bytes unread") })
    #expect(app.requests.count == servedMeanwhile)
    #expect(!other.isClosed)
    _ = stalled
  }

  /// A connection over `connections` is answered 503 and closed; the others go on.
  @Test func connectionsOverTheLimitAreAnswered503() async throws {
    let app = WebTestApp()
    var limits = WebServerLimits()
    limits.connections = 2
    let (server, port) = try Self.serve(app, limits: limits)
    defer { server.stop() }
    let first = try WebRawClient(port: port)
    let second = try WebRawClient(port: port)
    for client in [first, second] {
      client.write(Self.get("/", host: Self.host(port)))
      #expect(await client.read { $0.text.contains("hello /") })
    }
    let third = try WebRawClient(port: port)
    #expect(await third.readUntilClosed())
    #expect(third.received.text.hasPrefix("HTTP/1.1 503 Service Unavailable\r\n"))
    // The first two still are served.
    first.write(Self.get("/again", host: Self.host(port)))
    #expect(await first.read { $0.text.contains("hello /again") })
  }

  /// A WebSocket sending faster than `messagesPerSecond` is closed with 1008.
  @Test func aWebSocketOverTheMessageRateIsClosed1008() async throws {
    let app = WebTestApp()
    var limits = WebServerLimits()
    limits.messagesPerSecond = 5
    let (server, port) = try Self.serve(app, limits: limits)
    defer { server.stop() }
    let client = try await Self.webSocket(port: port)
    client.clear()
    client.write((0..<50).flatMap { WebFrames.masked(0x1, Array("m\($0)".utf8)) })
    #expect(await client.readUntilClosed())
    #expect(WebFrames.server(client.received).last?.opcode == 0x8)
    #expect(WebFrames.server(client.received).last?.payload.prefix(2) == [0x03, 0xF0])
    let socket = try #require(app.sockets.first)
    #expect(await webEventually { socket.closedCount == 1 })
    #expect(socket.messages.count < 50)
  }

  /// Frames a client may not send, and the code each closes with: a
  /// binary message, text that is not UTF-8, a message over 1000 bytes, an
  /// unmasked frame.
  nonisolated static let badFrames: [([UInt8], UInt16)] = [
    (WebFrames.masked(0x2, [1, 2, 3]), 1003),
    (WebFrames.masked(0x1, [0xC3, 0x28]), 1007),
    (WebFrames.masked(0x1, Array(repeating: 0x61, count: 2000)), 1009),
    (WebFrames.masked(0x1, [0x61], mask: nil), 1002),
  ]

  /// Each bad frame closes its WebSocket with its code, and the handler hears no message.
  @Test(arguments: badFrames)
  func aBadFrameClosesWithItsCode(frame: [UInt8], code: UInt16) async throws {
    let app = WebTestApp()
    var limits = WebServerLimits()
    limits.messageBytes = 1000
    let (server, port) = try Self.serve(app, limits: limits)
    defer { server.stop() }
    let client = try await Self.webSocket(port: port)
    client.clear()
    client.write(frame)
    #expect(await client.readUntilClosed())
    let close = try #require(WebFrames.server(client.received).last)
    #expect(close.opcode == 0x8)
    #expect(close.payload.prefix(2) == [UInt8(code >> 8), UInt8(code & 0xFF)])
    let socket = try #require(app.sockets.first)
    #expect(await webEventually { socket.closedCount == 1 })
    #expect(socket.messages.isEmpty)
  }

  /// `stop()` closes every connection and tells each handler once; later sends are dropped.
  @Test func stopTellsEveryHandlerOnce() async throws {
    let app = WebTestApp()
    let (server, port) = try Self.serve(app)
    let clients = [try await Self.webSocket(port: port), try await Self.webSocket(port: port)]
    #expect(app.sockets.count == 2)
    server.stop()
    for client in clients {
      #expect(await client.readUntilClosed())
    }
    #expect(await webEventually { app.sockets.allSatisfy { $0.closedCount == 1 } })
    // Sending after the stop is dropped, and stopping again does nothing.
    app.sockets[0].connection.send("late")
    server.stop()
    #expect(throws: WebServerError.self) { try server.start() }
  }

  /// A client that expects 100-continue is told to go on, then its body is read.
  @Test func aBodyIsSentAfter100Continue() async throws {
    let app = WebTestApp()
    let (server, port) = try Self.serve(app)
    defer { server.stop() }
    let client = try WebRawClient(port: port)
    client.write(
      "POST /form HTTP/1.1\r\nHost: \(Self.host(port))\r\nContent-Length: 3\r\nExpect: 100-continue\r\n\r\n")
    #expect(await client.read { $0.text == "HTTP/1.1 100 Continue\r\n\r\n" })
    client.write("abc")
    #expect(await client.read { $0.text.hasSuffix("hello /form 3") })
    #expect(app.bodies == [Array("abc".utf8)])
  }

  /// HTTP/1.0 without keep-alive, and a client that closed its end after
  /// its request, are answered, then closed.
  @Test func anHTTP10RequestAndAHalfClosedClientAreAnsweredThenClosed() async throws {
    let app = WebTestApp()
    let (server, port) = try Self.serve(app)
    defer { server.stop() }
    let old = try WebRawClient(port: port)
    old.write("GET /old HTTP/1.0\r\nHost: \(Self.host(port))\r\n\r\n")
    #expect(await old.readUntilClosed())
    #expect(old.received.text.hasSuffix("hello /old 0"))
    let half = try WebRawClient(port: port)
    half.write(Self.get("/half", host: Self.host(port)))
    shutdown(half.fd, Int32(SHUT_WR))
    #expect(await half.readUntilClosed())
    #expect(half.received.text.hasSuffix("hello /half 0"))
  }

  /// A keep-alive connection idle for `idleSeconds` is closed.
  @Test func anIdleKeepAliveConnectionIsClosed() async throws {
    let app = WebTestApp()
    var limits = WebServerLimits()
    limits.idleSeconds = 0.2
    let (server, port) = try Self.serve(app, limits: limits)
    defer { server.stop() }
    let client = try WebRawClient(port: port)
    client.write(Self.get("/", host: Self.host(port)))
    #expect(await client.readUntilClosed())
    #expect(client.received.text.hasSuffix("hello / 0"))
  }

  /// What the app sends while taking the WebSocket follows the 101; its
  /// close sends its code and reason, and drops later sends.
  @Test func theAppSendsAndClosesFromTheUpgradeOn() async throws {
    let app = WebTestApp()
    app.greeting = "welcome"
    let (server, port) = try Self.serve(app)
    defer { server.stop() }
    let client = try await Self.webSocket(port: port)
    #expect(await client.read { WebFrames.server($0).count == 1 })
    #expect(WebFrames.server(client.received).first?.payload == Array("welcome".utf8))
    let socket = try #require(app.sockets.first)
    socket.connection.close(.application(4001), reason: "bye")
    socket.connection.send("dropped: sent after the close")
    #expect(await client.readUntilClosed())
    let frames = WebFrames.server(client.received)
    #expect(frames.count == 2)
    #expect(frames.last?.opcode == 0x8)
    #expect(frames.last?.payload == [0x0F, 0xA1] + Array("bye".utf8))
    #expect(await webEventually { socket.closedCount == 1 })
  }

  /// `start()` names a bad address and an address in use; IPv6 binds where the machine has it.
  @Test func startSaysWhyItCannot() throws {
    let app = WebTestApp()
    let bad = WebServer(host: "example.com", port: 0, log: { _ in }, handler: app)
    #expect(throws: WebServerError(.badAddress, "example.com is not an IPv4 or IPv6 address, nor localhost")) {
      try bad.start()
    }
    let (first, port) = try Self.serve(app)
    defer { first.stop() }
    let second = WebServer(host: "127.0.0.1", port: port, log: { _ in }, handler: app)
    #expect(performing: { try second.start() }, throws: { ($0 as? WebServerError)?.kind == .addressInUse })
    let v6 = WebServer(host: "[::1]", port: 0, log: { _ in }, handler: app)
    defer { v6.stop() }
    // A machine without IPv6 cannot bind it; one with it must.
    if case .success(let bound) = Result(catching: { try v6.start() }) {
      #expect(bound > 0)
    }
  }

  /// Log text has its controls and invisible characters escaped, and is cut.
  @Test func logTextIsEscapedAndCut() {
    #expect(LogText.escaped("a\u{1B}[31mb\r\n\u{202E}c\\") == "a\\u{1B}[31mb\\r\\n\\u{202E}c\\\\")
    #expect(LogText.escaped(String(repeating: "x", count: 300), limit: 10) == String(repeating: "x", count: 10) + "…")
  }

  /// Clients sending garbage (random bytes, a good head then random
  /// bytes, a WebSocket then random frames) are each closed, the server
  /// goes on serving, and every WebSocket's handler is told once.
  @Test func garbageFromManyClientsHarmsNoOne() async throws {
    let app = WebTestApp()
    var limits = WebServerLimits()
    limits.headerSeconds = 0.5
    let (server, port) = try Self.serve(app, limits: limits)
    defer { server.stop() }
    let good = try WebRawClient(port: port)
    good.write(Self.get("/before", host: Self.host(port)))
    #expect(await good.read { $0.text.contains("hello /before") })
    var random = SplitMix64(seed: 0x5EED)
    var hostile: [WebRawClient] = []
    for round in 0..<24 {
      let client = try WebRawClient(port: port)
      var bytes = (0..<4096).map { _ in UInt8(truncatingIfNeeded: random.next()) }
      switch round % 3 {
      case 1:
        bytes = Array("GET /\(round) HTTP/1.1\r\nHost: \(Self.host(port))\r\n".utf8) + bytes
      case 2:
        let frames = (0..<8).flatMap { WebFrames.masked(0x1, Array("m\($0)".utf8)) }
        bytes = Array(Self.handshake(port: port, origin: "http://\(Self.host(port))").utf8) + frames + bytes
      default:
        break
      }
      client.write(bytes)
      hostile.append(client)
    }
    for client in hostile {
      shutdown(client.fd, Int32(SHUT_WR))
      #expect(await client.readUntilClosed())
    }
    good.write(Self.get("/after", host: Self.host(port)))
    #expect(await good.read { $0.text.contains("hello /after") })
    #expect(await webEventually { app.sockets.allSatisfy { $0.closedCount == 1 } })
    #expect(app.requests.map(\.target.path) == ["/before", "/after"])
  }

  /// A client whose WebSocket the app took: the 101 read.
  static func webSocket(port: UInt16) async throws -> WebRawClient {
    let client = try WebRawClient(port: port)
    client.write(handshake(port: port, origin: "http://\(host(port))"))
    #expect(await client.read { $0.text.contains("\r\n\r\n") })
    #expect(client.received.text.hasPrefix("HTTP/1.1 101 Switching Protocols\r\n"))
    return client
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
  /// When set, sent on every WebSocket as the app takes it.
  var greeting: String?

  /// An app taking every WebSocket.
  nonisolated init() {}

  /// `200` saying `hello` and the path.
  func respond(to request: HTTPRequestHead, body: [UInt8]) -> HTTPResponse {
    requests.append(request)
    bodies.append(body)
    do {
      if request.target.path == "/big" {
        return try HTTPResponse(status: .ok, body: (0..<(4 << 20)).map { UInt8(truncatingIfNeeded: $0 * 7) })
      }
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
    if let greeting { connection.send(greeting) }
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
func webEventually(seconds: Double = TestServices.settleLimit, _ condition: @MainActor () -> Bool) async -> Bool {
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

  /// Closes the socket.
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
  func read(seconds: Double = TestServices.settleLimit, until condition: ([UInt8]) -> Bool) async -> Bool {
    _ = await webEventually(seconds: seconds) {
      readNow()
      return condition(received) || isClosed
    }
    return condition(received)
  }

  /// Reads until the server closes the connection, or `seconds` pass: whether it closed.
  func readUntilClosed(seconds: Double = TestServices.settleLimit) async -> Bool {
    await webEventually(seconds: seconds) {
      readNow()
      return isClosed
    }
  }

  /// Forgets what was read.
  func clear() {
    received = []
  }

  /// Forgets the first `count` bytes read: those already taken.
  func drop(first count: Int) {
    received.removeFirst(min(count, received.count))
  }
}

/// Bytes read, as text.
extension [UInt8] {
  /// The bytes as UTF-8 text.
  fileprivate var text: String { String(decoding: self, as: UTF8.self) }
}

/// WebSocket frames as a client writes them and reads the server's.
enum WebFrames {
  /// A client's frame of `opcode` with `payload`, masked with `mask` unless nil.
  static func masked(_ opcode: UInt8, _ payload: [UInt8], fin: Bool = true, mask: [UInt8]? = [1, 2, 3, 4])
    -> [UInt8]
  {
    var bytes: [UInt8] = [(fin ? 0x80 : 0) | opcode]
    let bit: UInt8 = mask == nil ? 0 : 0x80
    switch payload.count {
    case 0..<126: bytes.append(bit | UInt8(payload.count))
    case 126...0xFFFF: bytes += [bit | 126, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
    default: bytes += [bit | 127] + (0..<8).reversed().map { UInt8(truncatingIfNeeded: payload.count >> ($0 * 8)) }
    }
    guard let mask else { return bytes + payload }
    return bytes + mask + payload.enumerated().map { $0.element ^ mask[$0.offset % 4] }
  }

  /// The whole frames the server sent in `bytes`, after a response head if
  /// there is one.
  static func server(_ bytes: [UInt8]) -> [(opcode: UInt8, payload: [UInt8])] { serverFrames(bytes).frames }

  /// ``server(_:)``, and how many bytes of `bytes` the head and those frames take.
  static func serverFrames(_ bytes: [UInt8]) -> (frames: [(opcode: UInt8, payload: [UInt8])], length: Int) {
    var index = 0
    if bytes.starts(with: Array("HTTP/".utf8)) {
      guard let end = bytes.indices.first(where: { bytes[$0...].starts(with: [13, 10, 13, 10]) }) else {
        return ([], 0)
      }
      index = end + 4
    }
    var frames: [(opcode: UInt8, payload: [UInt8])] = []
    while bytes.count - index >= 2 {
      var length = Int(bytes[index + 1] & 0x7F)
      var start = index + 2
      if length == 126 {
        guard bytes.count >= start + 2 else { break }
        length = Int(bytes[start]) << 8 | Int(bytes[start + 1])
        start += 2
      } else if length == 127 {
        guard bytes.count >= start + 8 else { break }
        length = bytes[start..<(start + 8)].reduce(0) { $0 << 8 | Int($1) }
        start += 8
      }
      guard bytes.count >= start + length else { break }
      frames.append((bytes[index] & 0x0F, Array(bytes[start..<(start + length)])))
      index = start + length
    }
    return (frames, index)
  }
}

/// A small, seeded random number generator (SplitMix64): the same bytes every run.
struct SplitMix64: RandomNumberGenerator {
  /// The state.
  private var state: UInt64

  /// A generator starting from `seed`.
  init(seed: UInt64) { state = seed }

  /// The next number.
  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}
