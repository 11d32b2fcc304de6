/// Why a request's `Host` or a WebSocket's `Origin` is refused: ``kind``
/// is stable, for tests and programs; the description says what is wrong,
/// for people; ``status`` is the response's.
package struct OriginCheckError: Error, Equatable, CustomStringConvertible {
  /// What is wrong, as a stable name.
  package enum Kind: String, Sendable, CaseIterable {
    /// The request has no `Host` (400).
    case missingHost
    /// The `Host` is not one of the server's: DNS rebinding, or a mistake
    /// (421 Misdirected Request: this server does not answer for that host).
    case foreignHost
    /// The WebSocket handshake has no `Origin`: no browser's, so none to trust (403).
    case missingOrigin
    /// The `Origin` is another site's: cross-site WebSocket hijacking (403).
    case foreignOrigin
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

  /// The status of the response to the refused request.
  package var status: HTTPStatus {
    switch kind {
    case .missingHost: .badRequest
    case .foreignHost: .misdirectedRequest
    case .missingOrigin, .foreignOrigin: .forbidden
    }
  }
}
