/// A WebSocket opening handshake a client asked for (RFC 6455 §4.2.1),
/// checked, and the response that accepts it (§4.2.2). Extensions are
/// never negotiated (no `Sec-WebSocket-Extensions` in the response), so a
/// frame with a reserved bit set is an error (``WebSocketDecoder``).
///
/// Whether the request's `Origin` is one to accept is ``OriginCheck``'s to
/// say, and its `Host` too: a handshake is read first, then both checked.
package struct WebSocketHandshake: Sendable, Equatable {
  /// The GUID the key is joined to before hashing (§1.3).
  package static let guid = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

  /// The client's `Sec-WebSocket-Key`: base64 of 16 bytes.
  package let key: String
  /// The subprotocols the client offered in `Sec-WebSocket-Protocol`, in
  /// its order of preference; empty when it offered none.
  package let offeredProtocols: [String]

  /// The handshake `request` asks for. Throws ``WebSocketHandshakeError``
  /// when it is not one: not a GET, not HTTP/1.1, no `Upgrade: websocket`
  /// or no `Upgrade` in `Connection`, a `Sec-WebSocket-Version` other than
  /// 13, a `Sec-WebSocket-Key` missing, repeated or not base64 of 16 bytes.
  package init(_ request: HTTPRequestHead) throws(WebSocketHandshakeError) {
    guard request.method == "GET" else {
      throw WebSocketHandshakeError(.badMethod, "a WebSocket handshake is a GET, not a \(request.method)")
    }
    guard request.version == .http1_1 else {
      throw WebSocketHandshakeError(.badHTTPVersion, "a WebSocket handshake is HTTP/1.1")
    }
    let headers = request.headers
    guard headers.containsToken("websocket", in: "Upgrade") else {
      throw WebSocketHandshakeError(.notAnUpgrade, "the request does not ask to upgrade to websocket")
    }
    guard headers.containsToken("Upgrade", in: "Connection") else {
      throw WebSocketHandshakeError(.notAnUpgrade, "the request's Connection does not hold Upgrade")
    }
    guard headers.values("Sec-WebSocket-Version") == ["13"] else {
      throw WebSocketHandshakeError(.badVersion, "the request's Sec-WebSocket-Version is not 13")
    }
    let keys = headers.values("Sec-WebSocket-Key")
    guard keys.count == 1, let key = keys.first, Base64.decode(key)?.count == 16 else {
      throw WebSocketHandshakeError(.badKey, "the request's Sec-WebSocket-Key is not one base64 text of 16 bytes")
    }
    self.key = key
    offeredProtocols = headers.listElements("Sec-WebSocket-Protocol").map(String.init)
  }

  /// The `Sec-WebSocket-Accept` for `key`: base64 of the SHA-1 of the key
  /// joined to ``guid`` (§4.2.2).
  package static func accept(forKey key: String) -> String {
    Base64.encode(SHA1.digest((key + guid).utf8))
  }

  /// The `Sec-WebSocket-Accept` for this handshake's key.
  package var accept: String { Self.accept(forKey: key) }

  /// The `101 Switching Protocols` response that accepts the handshake,
  /// with `subprotocol` chosen when given. Throws
  /// ``WebSocketHandshakeError/Kind/protocolNotOffered`` for a subprotocol
  /// the client did not offer: it would fail the connection.
  package func response(subprotocol: String? = nil) throws(WebSocketHandshakeError) -> HTTPResponse {
    var headers = [("Upgrade", "websocket"), ("Connection", "Upgrade"), ("Sec-WebSocket-Accept", accept)]
    if let subprotocol {
      guard offeredProtocols.contains(subprotocol) else {
        throw WebSocketHandshakeError(.protocolNotOffered, "the client did not offer the subprotocol chosen")
      }
      headers.append(("Sec-WebSocket-Protocol", subprotocol))
    }
    do {
      return try HTTPResponse(status: .switchingProtocols, headers: headers)
    } catch {
      preconditionFailure("a handshake's response is refused: \(error)")
    }
  }
}
