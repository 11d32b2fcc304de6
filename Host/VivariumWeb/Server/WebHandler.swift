/// What the server asks of the app; called on the main actor, one call at a time.
@MainActor package protocol WebHandler: AnyObject {
  /// The response to a request that is not a WebSocket upgrade (its Host already checked).
  func respond(to request: HTTPRequestHead, body: [UInt8]) -> HTTPResponse
  /// A WebSocket upgrade whose handshake, Host and Origin passed: the handler of its
  /// messages, or the response refusing it (401 without a valid token, say).
  func upgrade(_ request: HTTPRequestHead, connection: WebSocketConnection) -> Result<
    any WebSocketHandler, WebUpgradeRefusal
  >
}

/// A refused upgrade's response (an `Error` wrapper so it can sit in `Result`).
package struct WebUpgradeRefusal: Error {
  /// The response sent in place of the 101; the connection is closed after it.
  package let response: HTTPResponse

  /// A refusal answered with `response`.
  package init(_ response: HTTPResponse) { self.response = response }
}

/// One WebSocket's messages, on the main actor.
@MainActor package protocol WebSocketHandler: AnyObject {
  /// A whole text message from the client.
  func received(_ text: String)
  /// The connection ended (closed by either side, refused, or lost); called once.
  func closed()
}
