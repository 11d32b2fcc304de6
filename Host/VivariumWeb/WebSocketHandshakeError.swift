/// Why a request is not a WebSocket handshake to accept: ``kind`` is
/// stable, for tests and programs; the description says what is wrong, for
/// people; ``response()`` answers it.
package struct WebSocketHandshakeError: Error, Equatable, CustomStringConvertible {
  /// What is wrong, as a stable name.
  package enum Kind: String, Sendable, CaseIterable {
    /// The method is not GET (405).
    case badMethod
    /// The request is not HTTP/1.1 (400).
    case badHTTPVersion
    /// No `Upgrade` holding `websocket`, or no `Connection` holding
    /// `Upgrade` (426, saying `Upgrade: websocket`).
    case notAnUpgrade
    /// `Sec-WebSocket-Version` is missing, repeated or not 13 (426, saying
    /// `Sec-WebSocket-Version: 13`, §4.4).
    case badVersion
    /// `Sec-WebSocket-Key` is missing, repeated, not base64, or not of 16 bytes (400).
    case badKey
    /// The server chose a subprotocol the client did not offer (500: the
    /// server's mistake, not the client's).
    case protocolNotOffered
  }

  /// What is wrong, as a stable name.
  package let kind: Kind
  /// What is wrong, for people. It never quotes the request.
  package let description: String

  /// An error of `kind` saying `description`.
  package init(_ kind: Kind, _ description: String) {
    self.kind = kind
    self.description = description
  }

  /// The status of the response to the refused handshake.
  package var status: HTTPStatus {
    switch kind {
    case .badMethod: .methodNotAllowed
    case .badHTTPVersion, .badKey: .badRequest
    case .notAnUpgrade, .badVersion: .upgradeRequired
    case .protocolNotOffered: .internalServerError
    }
  }

  /// The response to the refused handshake: its status, the fields that
  /// status calls for (`Allow`, `Upgrade`, `Sec-WebSocket-Version`), the
  /// security headers, and `Connection: close`.
  package func response() -> HTTPResponse {
    var fields = [("Connection", "close")]
    switch kind {
    case .badMethod: fields.append(("Allow", "GET"))
    case .notAnUpgrade: fields = [("Upgrade", "websocket"), ("Connection", "Upgrade, close")]
    case .badVersion:
      fields = [("Upgrade", "websocket"), ("Connection", "Upgrade, close"), ("Sec-WebSocket-Version", "13")]
    case .badHTTPVersion, .badKey, .protocolNotOffered: break
    }
    do {
      var response = try HTTPResponse(status: status, text: "\(status)\n")
      for (name, value) in fields { try response.addHeader(name, value) }
      response.addSecurityHeaders(noStore: true)
      return response
    } catch {
      preconditionFailure("a refused handshake's response is refused: \(error)")
    }
  }
}
