import Testing

@testable import VivariumWeb

/// A WebSocket handshake is accepted as RFC 6455 §4.2 says, and every way
/// of not being one is refused by name, with the response that says so.
@Suite("Web: WebSocket handshakes")
struct WebSocketHandshakeWebTests {
  /// The RFC's example key (§1.3).
  static let key = "dGhlIHNhbXBsZSBub25jZQ=="

  /// The fields of a browser's handshake, by name.
  static let fields: [(String, String)] = [
    ("Host", "127.0.0.1:8080"), ("Connection", "Upgrade"), ("Pragma", "no-cache"), ("Upgrade", "websocket"),
    ("Origin", "http://127.0.0.1:8080"), ("Sec-WebSocket-Version", "13"), ("Sec-WebSocket-Key", key),
    ("Sec-WebSocket-Extensions", "permessage-deflate; client_max_window_bits"),
  ]

  /// The head of a request of `method` and `version` with `fields`, read
  /// by the parser.
  static func request(
    _ fields: [(String, String)] = fields, method: String = "GET", version: String = "HTTP/1.1"
  ) throws -> HTTPRequestHead {
    let text = "\(method) /socket \(version)\r\n" + fields.map { "\($0.0): \($0.1)\r\n" }.joined() + "\r\n"
    var parser = HTTPRequestParser()
    guard case .request(let head, _) = try parser.feed(Array(text.utf8)) else {
      struct Incomplete: Error {}
      throw Incomplete()
    }
    return head
  }

  /// `fields` with the field `name` set to `value`, or left out when nil.
  static func replacing(_ name: String, with value: String?) -> [(String, String)] {
    var replaced = fields.filter { $0.0 != name }
    if let value { replaced.append((name, value)) }
    return replaced
  }

  @Test func theRFCsExample() {
    #expect(WebSocketHandshake.accept(forKey: Self.key) == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
  }

  @Test func aBrowsersHandshakeIsAccepted() throws {
    let handshake = try WebSocketHandshake(try Self.request())
    #expect(handshake.key == Self.key)
    #expect(handshake.accept == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
    #expect(handshake.offeredProtocols.isEmpty)
    let response = try handshake.response()
    #expect(
      String(decoding: response.serialized(), as: UTF8.self)
        == "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        + "Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n\r\n")
    // No extension is negotiated.
    #expect(response["Sec-WebSocket-Extensions"] == nil)
  }

  @Test func namesAndTokensInAnyCase() throws {
    let fields = [
      ("host", "a"), ("CONNECTION", "keep-alive, UPGRADE"), ("upgrade", "WebSocket"), ("sec-websocket-version", "13"),
      ("SEC-WEBSOCKET-KEY", Self.key),
    ]
    #expect(try WebSocketHandshake(try Self.request(fields)).accept == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
    // Firefox's Connection, and Upgrade among others.
    #expect(throws: Never.self) {
      try WebSocketHandshake(try Self.request(Self.replacing("Connection", with: "keep-alive, Upgrade")))
    }
    #expect(throws: Never.self) {
      try WebSocketHandshake(try Self.request(Self.replacing("Upgrade", with: "foo/2, websocket")))
    }
  }

  @Test func keysOfOtherClients() throws {
    for key in ["AAAAAAAAAAAAAAAAAAAAAA==", "/////////////////////w==", "x3JJHMbDL1EzLkh9GBhXDw=="] {
      let handshake = try WebSocketHandshake(try Self.request(Self.replacing("Sec-WebSocket-Key", with: key)))
      #expect(Base64.decode(handshake.accept)?.count == 20)
    }
    // The accept values of published examples.
    #expect(WebSocketHandshake.accept(forKey: "x3JJHMbDL1EzLkh9GBhXDw==") == "HSmrc0sMlYUkAGmm5OPpG2HaGWk=")
  }

  @Test func subprotocols() throws {
    let handshake = try WebSocketHandshake(
      try Self.request(Self.replacing("Sec-WebSocket-Protocol", with: "chat, vivarium.v1")))
    #expect(handshake.offeredProtocols == ["chat", "vivarium.v1"])
    #expect(try handshake.response(subprotocol: "vivarium.v1")["Sec-WebSocket-Protocol"] == "vivarium.v1")
    #expect(try handshake.response()["Sec-WebSocket-Protocol"] == nil)
    let error = #expect(throws: WebSocketHandshakeError.self) { try handshake.response(subprotocol: "other") }
    #expect(error?.kind == .protocolNotOffered)
  }

  /// Every refusal, the kind it is and the status it answers.
  static let refusals: [(String, [(String, String)], String, String, WebSocketHandshakeError.Kind, Int)] = [
    ("POST", fields, "POST", "HTTP/1.1", .badMethod, 405),
    ("get", fields, "get", "HTTP/1.1", .badMethod, 405),
    ("HEAD", fields, "HEAD", "HTTP/1.1", .badMethod, 405),
    ("HTTP/1.0", fields, "GET", "HTTP/1.0", .badHTTPVersion, 400),
    ("no Upgrade", replacing("Upgrade", with: nil), "GET", "HTTP/1.1", .notAnUpgrade, 426),
    ("Upgrade h2c", replacing("Upgrade", with: "h2c"), "GET", "HTTP/1.1", .notAnUpgrade, 426),
    ("Upgrade websockets", replacing("Upgrade", with: "websockets"), "GET", "HTTP/1.1", .notAnUpgrade, 426),
    ("no Connection", replacing("Connection", with: nil), "GET", "HTTP/1.1", .notAnUpgrade, 426),
    ("Connection keep-alive", replacing("Connection", with: "keep-alive"), "GET", "HTTP/1.1", .notAnUpgrade, 426),
    ("Connection Upgraded", replacing("Connection", with: "Upgraded"), "GET", "HTTP/1.1", .notAnUpgrade, 426),
    ("no version", replacing("Sec-WebSocket-Version", with: nil), "GET", "HTTP/1.1", .badVersion, 426),
    ("version 8", replacing("Sec-WebSocket-Version", with: "8"), "GET", "HTTP/1.1", .badVersion, 426),
    ("version 14", replacing("Sec-WebSocket-Version", with: "14"), "GET", "HTTP/1.1", .badVersion, 426),
    ("version 13, 8", replacing("Sec-WebSocket-Version", with: "13, 8"), "GET", "HTTP/1.1", .badVersion, 426),
    ("version twice", fields + [("Sec-WebSocket-Version", "13")], "GET", "HTTP/1.1", .badVersion, 426),
    ("no key", replacing("Sec-WebSocket-Key", with: nil), "GET", "HTTP/1.1", .badKey, 400),
    ("empty key", replacing("Sec-WebSocket-Key", with: ""), "GET", "HTTP/1.1", .badKey, 400),
    ("key twice", fields + [("Sec-WebSocket-Key", key)], "GET", "HTTP/1.1", .badKey, 400),
    ("key of 15 bytes", replacing("Sec-WebSocket-Key", with: "AAAAAAAAAAAAAAAAAAAA"), "GET", "HTTP/1.1", .badKey, 400),
    (
      "key of 17 bytes", replacing("Sec-WebSocket-Key", with: "AAAAAAAAAAAAAAAAAAAAAAA="), "GET", "HTTP/1.1", .badKey,
      400
    ),
    ("key unpadded", replacing("Sec-WebSocket-Key", with: "dGhlIHNhbXBsZSBub25jZQ"), "GET", "HTTP/1.1", .badKey, 400),
    (
      "key not base64", replacing("Sec-WebSocket-Key", with: "dGhlIHNhbXBsZSBub25jZQ!="), "GET", "HTTP/1.1", .badKey,
      400
    ),
    ("key URL-safe", replacing("Sec-WebSocket-Key", with: "_____________________w=="), "GET", "HTTP/1.1", .badKey, 400),
  ]

  @Test(arguments: refusals.indices)
  func eachRefusal(index: Int) throws {
    let (name, fields, method, version, kind, status) = Self.refusals[index]
    let request = try Self.request(fields, method: method, version: version)
    let error = #expect(throws: WebSocketHandshakeError.self, "\(name)") { try WebSocketHandshake(request) }
    #expect(error?.kind == kind, "\(name)")
    #expect(error?.status.code == status, "\(name)")
  }

  @Test func refusalsResponses() throws {
    let badMethod = WebSocketHandshakeError(.badMethod, "").response()
    #expect(badMethod.status.code == 405)
    #expect(badMethod["Allow"] == "GET")
    #expect(badMethod["Connection"] == "close")
    let badVersion = WebSocketHandshakeError(.badVersion, "").response()
    #expect(badVersion.status.code == 426)
    #expect(badVersion["Sec-WebSocket-Version"] == "13")
    #expect(badVersion["Upgrade"] == "websocket")
    let notAnUpgrade = WebSocketHandshakeError(.notAnUpgrade, "").response()
    #expect(notAnUpgrade["Upgrade"] == "websocket")
    for kind in WebSocketHandshakeError.Kind.allCases {
      let response = WebSocketHandshakeError(kind, "").response()
      #expect(response.status.code >= 400)
      #expect(response.headers.filter { HTTPHeaders.sameName($0.name, "Connection") }.count == 1)
      #expect(response["Connection"]?.contains("close") == true)
      #expect(response["X-Content-Type-Options"] == "nosniff")
    }
  }
}
