/// A response's status: its code and the reason phrase that goes with it
/// on the status line.
package struct HTTPStatus: Sendable, Hashable, CustomStringConvertible {
  /// The three-digit code.
  package let code: Int
  /// The reason phrase (RFC 9110 §15's).
  package let reason: String

  /// A status of `code` with `reason`; ``HTTPResponse`` refuses a code of
  /// other than three digits and a reason with a control character.
  package init(code: Int, reason: String) {
    self.code = code
    self.reason = reason
  }

  /// `101 Switching Protocols`: a WebSocket handshake accepted.
  package static let switchingProtocols = HTTPStatus(code: 101, reason: "Switching Protocols")
  /// `200 OK`.
  package static let ok = HTTPStatus(code: 200, reason: "OK")
  /// `204 No Content`.
  package static let noContent = HTTPStatus(code: 204, reason: "No Content")
  /// `304 Not Modified`.
  package static let notModified = HTTPStatus(code: 304, reason: "Not Modified")
  /// `400 Bad Request`.
  package static let badRequest = HTTPStatus(code: 400, reason: "Bad Request")
  /// `403 Forbidden`.
  package static let forbidden = HTTPStatus(code: 403, reason: "Forbidden")
  /// `404 Not Found`.
  package static let notFound = HTTPStatus(code: 404, reason: "Not Found")
  /// `405 Method Not Allowed`.
  package static let methodNotAllowed = HTTPStatus(code: 405, reason: "Method Not Allowed")
  /// `413 Content Too Large`.
  package static let contentTooLarge = HTTPStatus(code: 413, reason: "Content Too Large")
  /// `414 URI Too Long`.
  package static let uriTooLong = HTTPStatus(code: 414, reason: "URI Too Long")
  /// `417 Expectation Failed`: an `Expect` other than `100-continue`.
  package static let expectationFailed = HTTPStatus(code: 417, reason: "Expectation Failed")
  /// `421 Misdirected Request`: a `Host` that is not one of the server's.
  package static let misdirectedRequest = HTTPStatus(code: 421, reason: "Misdirected Request")
  /// `426 Upgrade Required`: a WebSocket version this server does not speak.
  package static let upgradeRequired = HTTPStatus(code: 426, reason: "Upgrade Required")
  /// `431 Request Header Fields Too Large`.
  package static let requestHeaderFieldsTooLarge = HTTPStatus(code: 431, reason: "Request Header Fields Too Large")
  /// `500 Internal Server Error`.
  package static let internalServerError = HTTPStatus(code: 500, reason: "Internal Server Error")
  /// `501 Not Implemented`.
  package static let notImplemented = HTTPStatus(code: 501, reason: "Not Implemented")
  /// `503 Service Unavailable`: too many connections.
  package static let serviceUnavailable = HTTPStatus(code: 503, reason: "Service Unavailable")
  /// `505 HTTP Version Not Supported`.
  package static let httpVersionNotSupported = HTTPStatus(code: 505, reason: "HTTP Version Not Supported")

  /// Whether a response of this status has no content and no
  /// `Content-Length`: 1xx and 204, which may not send one (RFC 9110
  /// §8.6), and 304, whose one could only repeat another response's.
  package var forbidsContent: Bool { (100...199).contains(code) || code == 204 || code == 304 }

  /// The code and the reason, as on the status line.
  package var description: String { "\(code) \(reason)" }
}
