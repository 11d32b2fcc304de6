import Glibc

/// The I/O thread of a ``WebServer``: one `poll` over the listening
/// socket, the mailbox's pipe and every connection. Nothing here blocks:
/// sockets are nonblocking, what a client does not take now waits in its
/// queue, and the app is asked on the main actor, its answer coming back
/// through the mailbox while the other connections go on.
///
/// Only the I/O thread touches a loop (it is handed over whole when the
/// thread starts), so it needs no lock.
final class ServerLoop {
  /// The listening socket.
  private let listener: Int32
  /// Where the app's answers and the server's stop come from.
  private let mailbox: ServerMailbox
  /// What every client is held to.
  private let limits: WebServerLimits
  /// Log lines, at most ``LogLimiter/linesPerSecond`` a second.
  private var logger: LogLimiter
  /// The app, on the main actor.
  private let bridge: AppBridge
  /// The server's own hosts and origin.
  private let check: OriginCheck
  /// The open connections, by number.
  private var connections: [Int: ServerConnection] = [:]
  /// The next connection's number.
  private var nextID = 1
  /// Until when accepting waits, after running out of descriptors.
  private var acceptPausedUntil = 0.0
  /// Where reads land before being handed to a connection.
  private var readBuffer = [UInt8](repeating: 0, count: 64 << 10)

  /// How many connections beyond ``WebServerLimits/connections`` are held
  /// open only to write them a 503; past them, a connection is closed at once.
  static let refusingLimit = 64
  /// How long a closing connection's client has to read what is queued
  /// and close its end: the request deadline, but no more than 5 seconds.
  private var lingerSeconds: Double { max(0.05, min(limits.headerSeconds, 5)) }
  /// How many bytes of a WebSocket's messages may wait for the main
  /// actor before the connection is no longer read.
  private var undeliveredLimit: Int { 2 * limits.messageBytes + (64 << 10) }

  /// A loop over `listener`, whose server is bound to `host` at `port`.
  init(
    listener: Int32, host: String, port: UInt16, mailbox: ServerMailbox, limits: WebServerLimits,
    log: @escaping @Sendable (String) -> Void, bridge: AppBridge
  ) {
    self.listener = listener
    self.mailbox = mailbox
    self.limits = limits
    self.logger = LogLimiter(log: log)
    self.bridge = bridge
    check = OriginCheck(port: Int(port), host: host)
  }

  /// Serves until the mailbox says stop; then closes every connection
  /// (their handlers told), the listener and the mailbox.
  func run() {
    var running = true
    while running {
      let now = Socket.now()
      logger.flush(now: now)
      expire(now: now)
      var fds = [
        pollfd(fd: mailbox.wakeRead, events: Int16(POLLIN), revents: 0),
        // A negative descriptor is left out of the poll.
        pollfd(fd: now >= acceptPausedUntil ? listener : -1, events: Int16(POLLIN), revents: 0),
      ]
      let polled = Array(connections.values)
      for connection in polled {
        var events: Int16 = 0
        if wantsToRead(connection) { events |= Int16(POLLIN) }
        if connection.hasOutput { events |= Int16(POLLOUT) }
        fds.append(pollfd(fd: connection.fd, events: events, revents: 0))
      }
      let ready = poll(&fds, nfds_t(fds.count), timeout(now: now))
      if ready < 0 {
        if errno != EINTR {
          logger.log("web: poll failed: \(Socket.errorText())", now: now)
          usleep(10_000)
        }
        continue
      }
      let after = Socket.now()
      for (index, connection) in polled.enumerated() where fds[index + 2].revents != 0 {
        // Closed meanwhile: its descriptor may be another's by now.
        guard connections[connection.id] === connection else { continue }
        serve(connection, events: fds[index + 2].revents, now: after)
      }
      if fds[1].revents != 0 { acceptAll(now: after) }
      for command in mailbox.take() {
        if case .stop = command {
          running = false
          break
        }
        handle(command, now: after)
      }
    }
    for connection in Array(connections.values) {
      if case .webSocket = connection.phase {
        connection.queue(WebSocketFrame.close(.goingAway).encoded())
        _ = connection.write()
      }
      drop(connection)
    }
    close(listener)
    mailbox.end()
  }

  /// The milliseconds `poll` may wait: until the next deadline, or for ever.
  private func timeout(now: Double) -> Int32 {
    var next = Double.infinity
    for connection in connections.values {
      if let deadline = connection.deadline { next = min(next, deadline.time) }
    }
    if acceptPausedUntil > now { next = min(next, acceptPausedUntil) }
    if let resume = logger.nextFlush { next = min(next, resume) }
    guard next.isFinite else { return -1 }
    return Int32(min(max(0, (next - now) * 1000).rounded(.up), 60_000))
  }

  /// Whether to poll `connection` for reading: not when the client has
  /// closed its end, nor while enough of its input waits for the app.
  private func wantsToRead(_ connection: ServerConnection) -> Bool {
    if connection.readClosed { return false }
    let enough = limits.headerBytes + limits.bodyBytes
    switch connection.phase {
    case .body, .closing: return true
    case .head: return !connection.hasOutput || connection.input.count < enough
    case .responding, .upgrading: return connection.input.count < enough
    case .webSocket:
      return (connection.socket?.undeliveredBytes.load(ordering: .relaxed) ?? 0) <= undeliveredLimit
    }
  }

  // MARK: Connections

  /// Accepts every connection waiting (up to 64 at a time, so that the
  /// open ones are served meanwhile).
  private func acceptAll(now: Double) {
    for _ in 0..<64 {
      switch Socket.accept(listener) {
      case .none:
        return
      case .connection(let fd, let peer):
        let id = nextID
        nextID += 1
        let connection = ServerConnection(id: id, fd: fd, peer: peer, limits: limits, now: now)
        let open = connections.values.count { !$0.isClosing }
        if open >= limits.connections && connections.count >= limits.connections + Self.refusingLimit {
          logClosed(connection, "refused, \(limits.connections) connections are open (closed at once)", now: now)
          close(fd)
          continue
        }
        connections[id] = connection
        if open >= limits.connections {
          refuse(
            connection, HTTPResponse.refusing(status: .serviceUnavailable),
            because: "\(limits.connections) connections are open", now: now)
          continue
        }
        connection.deadline = (now + limits.headerSeconds, .request)
      case .failed(let code):
        // Out of descriptors or memory: the listener stays readable, so
        // wait a little rather than spin.
        acceptPausedUntil = now + 0.1
        logger.log("web: cannot accept a connection: \(Socket.errorText(code))", now: now)
        return
      }
    }
  }

  /// Handles what `poll` reported for `connection`.
  private func serve(_ connection: ServerConnection, events: Int16, now: Double) {
    if events & Int16(POLLNVAL) != 0 {
      drop(connection)
      return
    }
    let hangUp = events & Int16(POLLHUP | POLLERR) != 0
    if events & Int16(POLLIN) != 0 || (hangUp && wantsToRead(connection)) {
      // The read sees the end or the error, after any bytes before it.
      read(connection, now: now)
    } else if hangUp {
      // Both ways shut, or reset: nothing more can be written either.
      drop(connection)
      return
    }
    if connections[connection.id] === connection && events & Int16(POLLOUT) != 0 {
      flush(connection, now: now)
    }
  }

  /// Reads what `connection`'s client sent (one read, so that no client
  /// holds the thread), and handles it.
  private func read(_ connection: ServerConnection, now: Double) {
    let count = readBuffer.withUnsafeMutableBytes { recv(connection.fd, $0.baseAddress, $0.count, 0) }
    if count < 0 {
      let code = errno
      if code == EAGAIN || code == EWOULDBLOCK || code == EINTR { return }
      drop(connection)
      return
    }
    if count == 0 {
      connection.readClosed = true
      endOfInput(connection, now: now)
      return
    }
    if connection.isClosing { return }
    connection.input.append(contentsOf: readBuffer[..<count])
    process(connection, now: now)
  }

  /// The client closed its end: the connection ends, once an answer it
  /// is waiting for is written.
  private func endOfInput(_ connection: ServerConnection, now: Double) {
    switch connection.phase {
    case .responding, .upgrading:
      return
    case .closing:
      if !connection.hasOutput { drop(connection) }
    case .head:
      // A response still being written, or requests read before the end,
      // are answered first; the connection closes after them.
      if !connection.hasOutput && connection.input.isEmpty { drop(connection) }
    case .body, .webSocket:
      drop(connection)
    }
  }

  /// Handles the bytes `connection` has read, as far as they go.
  private func process(_ connection: ServerConnection, now: Double) {
    while true {
      switch connection.phase {
      case .head:
        // The next request waits until the last response is written: a
        // client that does not read has at most one response queued.
        if connection.input.isEmpty || connection.hasOutput {
          if connection.readClosed && connection.input.isEmpty && !connection.hasOutput { drop(connection) }
          return
        }
        if connection.deadline?.reason != .request {
          connection.deadline = (now + limits.headerSeconds, .request)
        }
        do {
          switch try connection.parser.feed(connection.input) {
          case .needMore:
            connection.input = []
            // Read to the end, and no whole head in it.
            if connection.readClosed { drop(connection) }
            return
          case .request(let head, let bodyStart):
            connection.input.removeFirst(bodyStart)
            if connection.input.isEmpty { connection.input = [] }
            handle(head, on: connection, now: now)
          }
        } catch {
          refuse(connection, HTTPResponse.refusing(error), because: error.description, now: now)
          return
        }
      case .body(let head):
        let count = min(head.contentLength - connection.body.count, connection.input.count)
        connection.body.append(contentsOf: connection.input.prefix(count))
        connection.input.removeFirst(count)
        if connection.body.count < head.contentLength {
          if connection.readClosed { drop(connection) }
          return
        }
        let body = connection.body
        connection.body = []
        respond(to: head, body: body, on: connection)
      case .webSocket:
        readFrames(connection, now: now)
        return
      case .responding, .upgrading, .closing:
        return
      }
    }
  }

  /// Handles a request head: its Host checked, then an upgrade asked of
  /// the app, its body read, or the app asked for its response.
  private func handle(_ head: HTTPRequestHead, on connection: ServerConnection, now: Double) {
    do {
      try check.checkHost(head.host)
    } catch {
      refuse(connection, HTTPResponse.refusing(status: error.status), because: error.description, now: now)
      return
    }
    if head.headers.containsToken("websocket", in: "Upgrade") || head.headers["Sec-WebSocket-Key"] != nil {
      upgrade(head, on: connection, now: now)
    } else if head.contentLength > 0 {
      let expectations = head.headers.listElements("Expect")
      guard expectations.allSatisfy({ HTTPHeaders.sameName(String($0), "100-continue") }) else {
        refuse(
          connection, HTTPResponse.refusing(status: .expectationFailed),
          because: "the request expects what this server does not do", now: now)
        return
      }
      connection.phase = .body(head)
      connection.body.reserveCapacity(head.contentLength)
      connection.deadline = (now + limits.headerSeconds, .request)
      // A client that asked waits for this before sending the body.
      if !expectations.isEmpty && head.version == .http1_1 {
        connection.queue(Array("HTTP/1.1 100 Continue\r\n\r\n".utf8))
        flush(connection, now: now)
      }
    } else {
      respond(to: head, body: [], on: connection)
    }
  }

  /// Asks the app for its response to `head`.
  private func respond(to head: HTTPRequestHead, body: [UInt8], on connection: ServerConnection) {
    connection.phase = .responding(head)
    // The app's time is not the client's.
    connection.deadline = nil
    let mailbox = mailbox
    let id = connection.id
    bridge.onMain { bridge in
      mailbox.post(.response(id, bridge.respond(to: head, body: body)))
    }
  }

  /// Checks a WebSocket handshake and its Origin, then asks the app to take it.
  private func upgrade(_ head: HTTPRequestHead, on connection: ServerConnection, now: Double) {
    guard head.contentLength == 0 else {
      refuse(
        connection, HTTPResponse.refusing(status: .badRequest), because: "the WebSocket handshake has a body",
        now: now)
      return
    }
    let handshake: WebSocketHandshake
    do {
      handshake = try WebSocketHandshake(head)
    } catch {
      refuse(connection, error.response(), because: error.description, now: now)
      return
    }
    let origins = head.headers.values("Origin")
    guard origins.count <= 1 else {
      refuse(
        connection, HTTPResponse.refusing(status: .forbidden),
        because: "the WebSocket handshake has \(origins.count) Origin fields", now: now)
      return
    }
    do {
      try check.checkOrigin(origins.first)
    } catch {
      refuse(connection, HTTPResponse.refusing(status: error.status), because: error.description, now: now)
      return
    }
    connection.phase = .upgrading(handshake)
    connection.deadline = nil
    let socket = WebSocketConnection(id: connection.id, mailbox: mailbox, limit: limits.pendingBytes)
    connection.socket = socket
    let mailbox = mailbox
    bridge.onMain { bridge in
      if let refusal = bridge.upgrade(head, connection: socket) {
        mailbox.post(.upgradeRefused(socket.id, refusal))
      } else {
        mailbox.post(.upgraded(socket.id))
      }
    }
  }

  /// Reads `connection`'s frames: each text message to the app, pings
  /// answered, and anything else closes it, with the code that says why.
  private func readFrames(_ connection: ServerConnection, now: Double) {
    connection.decoder?.feed(connection.input)
    connection.input = []
    while case .webSocket = connection.phase {
      let event: WebSocketEvent?
      do {
        event = try connection.decoder?.next()
      } catch {
        closeWebSocket(connection, error.closeCode, because: error.description, now: now)
        return
      }
      guard let event else { break }
      guard connection.bucket.take(now: now) else {
        closeWebSocket(
          connection, .policyViolation, because: "more than \(limits.messagesPerSecond) messages a second",
          now: now)
        return
      }
      switch event {
      case .text(let text):
        deliver(text, on: connection)
      case .binary:
        closeWebSocket(connection, .unsupportedData, because: "a binary message, and the app speaks text", now: now)
        return
      case .ping, .close:
        if let reply = event.reply { connection.queue(reply) }
        if case .close = event { beginClosing(connection, now: now) }
      case .pong:
        break
      }
    }
    flush(connection, now: now)
  }

  /// Gives `text` to the connection's handler on the main actor, after
  /// the messages before it.
  private func deliver(_ text: String, on connection: ServerConnection) {
    guard let socket = connection.socket else { return }
    let count = text.utf8.count
    socket.undeliveredBytes.add(count, ordering: .relaxed)
    let mailbox = mailbox
    let limit = undeliveredLimit
    bridge.onMain { bridge in
      bridge.received(text, on: socket.id)
      let (left, _) = socket.undeliveredBytes.subtract(count, ordering: .relaxed)
      // Reading stopped at the limit: say it may go on.
      if left > limit && left - count <= limit { mailbox.post(.wake) }
    }
  }

  // MARK: The app's answers

  /// Carries out `command`, which the app (or ``WebSocketConnection``) posted.
  private func handle(_ command: ServerCommand, now: Double) {
    switch command {
    case .response(let id, let response):
      guard let connection = connections[id], case .responding(let head) = connection.phase else { return }
      answer(head, with: response, on: connection, now: now)
    case .upgraded(let id):
      guard let connection = connections[id], case .upgrading(let handshake) = connection.phase else { return }
      accept(handshake, on: connection, now: now)
    case .upgradeRefused(let id, let response):
      guard let connection = connections[id], case .upgrading = connection.phase else { return }
      var response = response
      if response.status.code < 300 {
        logger.log(
          "web: the app refused a WebSocket with \(response.status.code), not a refusal: sent 500", now: now)
        response = HTTPResponse.refusing(status: .internalServerError)
      }
      refuse(connection, response, because: "the app refused the WebSocket", now: now)
    case .send(let id, let frame):
      guard let connection = connections[id] else { return }
      connection.socket?.taken(frame.count)
      switch connection.phase {
      case .webSocket:
        connection.queue(frame)
        flush(connection, now: now)
      case .upgrading:
        connection.early.frames.append(frame)
        connection.early.bytes += frame.count
        if connection.early.bytes > limits.pendingBytes {
          logClosed(connection, "closed, the app sent more than \(limits.pendingBytes) bytes before the 101", now: now)
          drop(connection)
        }
      default:
        break
      }
    case .close(let id, let code, let reason):
      guard let connection = connections[id] else { return }
      switch connection.phase {
      case .webSocket:
        connection.queue(Self.closeFrame(code, reason: reason))
        beginClosing(connection, now: now)
      case .upgrading:
        connection.early.close = (code, reason)
      default:
        break
      }
    case .overflow(let id):
      guard let connection = connections[id] else { return }
      logClosed(connection, "closed, the client left more than \(limits.pendingBytes) bytes unread", now: now)
      drop(connection)
    case .wake, .stop:
      break
    }
  }

  /// Writes the app's `response` to `head`: its head alone for HEAD,
  /// `Connection: close` when the connection closes after it; then reads
  /// the next request, if the connection stays.
  private func answer(
    _ head: HTTPRequestHead, with response: HTTPResponse, on connection: ServerConnection, now: Double
  ) {
    var response = response
    if response.status.code < 200 {
      logger.log(
        "web: the app answered a request with \(response.status.code), which only an upgrade has: sent 500",
        now: now)
      response = HTTPResponse.refusing(status: .internalServerError)
    }
    let appCloses = HTTPHeaders(response.headers.map { ($0.name, $0.value) }).containsToken("close", in: "Connection")
    let keepsAlive = head.keepsAlive && !appCloses && !connection.readClosed
    do {
      if !keepsAlive {
        try response.setHeader("Connection", "close")
      } else if head.version == .http1_0 {
        try response.setHeader("Connection", "keep-alive")
      }
    } catch {
      preconditionFailure("a Connection header is refused: \(error)")
    }
    connection.queue(head.method == "HEAD" ? response.head() : response.serialized())
    guard keepsAlive else {
      beginClosing(connection, now: now)
      return
    }
    connection.phase = .head
    connection.deadline = (now + limits.idleSeconds, .idle)
    flush(connection, now: now)
  }

  /// Writes the 101 accepting `handshake`, then reads frames: what the
  /// app sent meanwhile follows the 101.
  private func accept(_ handshake: WebSocketHandshake, on connection: ServerConnection, now: Double) {
    do {
      connection.queue(try handshake.response().serialized())
    } catch {
      preconditionFailure("a handshake's response is refused: \(error)")
    }
    connection.phase = .webSocket
    connection.decoder = WebSocketDecoder(maximumMessageSize: limits.messageBytes)
    if connection.readClosed {
      // The client left before its WebSocket opened.
      drop(connection)
      return
    }
    for frame in connection.early.frames { connection.queue(frame) }
    connection.early = ([], 0, connection.early.close)
    if let (code, reason) = connection.early.close {
      connection.queue(Self.closeFrame(code, reason: reason))
      beginClosing(connection, now: now)
      return
    }
    process(connection, now: now)
    if connections[connection.id] === connection { flush(connection, now: now) }
  }

  // MARK: Ending

  /// Answers `connection` with `response` and closes it, logging `reason`.
  private func refuse(
    _ connection: ServerConnection, _ response: HTTPResponse, because reason: String, now: Double
  ) {
    logClosed(connection, "refused, \(reason) (\(response.status.code))", now: now)
    var response = response
    do {
      try response.setHeader("Connection", "close")
    } catch {
      preconditionFailure("a Connection header is refused: \(error)")
    }
    connection.queue(response.serialized())
    beginClosing(connection, now: now)
  }

  /// Sends a close frame of `code` and closes `connection`, logging `reason`.
  private func closeWebSocket(
    _ connection: ServerConnection, _ code: WebSocketCloseCode, because reason: String, now: Double
  ) {
    logClosed(connection, "closed, \(reason) (\(code.code))", now: now)
    connection.queue(WebSocketFrame.close(code).encoded())
    beginClosing(connection, now: now)
  }

  /// Writes what `connection` has queued, then closes it: reading stops
  /// but to see the client close, and the app's later sends are dropped.
  private func beginClosing(_ connection: ServerConnection, now: Double) {
    connection.phase = .closing
    connection.input = []
    connection.decoder = nil
    endSocket(connection)
    connection.deadline = (now + lingerSeconds, .linger)
    flush(connection, now: now)
  }

  /// Writes what the socket takes of `connection`'s queue; a closing
  /// connection whose queue is written shuts its writing side (so the
  /// client sees the end) and closes once the client has closed too.
  private func flush(_ connection: ServerConnection, now: Double) {
    // Closed already: its descriptor may be another's by now.
    guard connections[connection.id] === connection else { return }
    guard connection.write() else {
      drop(connection)
      return
    }
    switch connection.phase {
    case .webSocket where connection.pendingBytes > limits.pendingBytes:
      logClosed(connection, "closed, the client left more than \(limits.pendingBytes) bytes unread", now: now)
      drop(connection)
      return
    case .head where !connection.hasOutput:
      // The response written: on to the next request, if one was read.
      process(connection, now: now)
      return
    default:
      break
    }
    guard connection.isClosing, !connection.hasOutput else { return }
    if connection.readClosed {
      drop(connection)
    } else if !connection.writeShut {
      shutdown(connection.fd, Int32(SHUT_WR))
      connection.writeShut = true
    }
  }

  /// Closes the connections whose deadline has passed.
  private func expire(now: Double) {
    for connection in Array(connections.values) {
      guard let deadline = connection.deadline, deadline.time <= now else { continue }
      if deadline.reason == .request {
        logClosed(
          connection, "closed, the request did not arrive whole within \(limits.headerSeconds) seconds", now: now)
      }
      drop(connection)
    }
  }

  /// Closes `connection` at once; its handler, if it had one, is told.
  private func drop(_ connection: ServerConnection) {
    // Closed once: a second close could close another's descriptor.
    guard connections[connection.id] === connection else { return }
    close(connection.fd)
    connections[connection.id] = nil
    endSocket(connection)
  }

  /// Ends `connection`'s WebSocket, if it asked for one: the app's later
  /// sends are dropped, and its handler is told, once, after the messages
  /// before.
  private func endSocket(_ connection: ServerConnection) {
    guard let socket = connection.socket, !connection.socketEnded else { return }
    connection.socketEnded = true
    socket.isClosed.store(true, ordering: .releasing)
    bridge.onMain { bridge in bridge.closed(socket.id) }
  }

  /// Logs what became of `connection`.
  private func logClosed(_ connection: ServerConnection, _ what: String, now: Double) {
    logger.log("web: connection \(connection.id) from \(connection.peer): \(LogText.escaped(what))", now: now)
  }

  /// A close frame of `code` and `reason`; a code that may not be sent
  /// gives a frame of no code.
  private static func closeFrame(_ code: WebSocketCloseCode, reason: String) -> [UInt8] {
    WebSocketFrame.close(code.mayBeSent ? code : nil, reason: reason).encoded()
  }
}
