/// An HTTP/1.1 response, built checked: a header that could split the
/// response (a CR or LF in a value, a name that is not a token) is refused
/// as it is set, and `Content-Length` is always the body's, written by the
/// response itself.
package struct HTTPResponse: Sendable, Equatable {
  /// The policy ``addSecurityHeaders(noStore:)`` sets: everything from this
  /// origin only, images also as `data:`, no `<base>`, no forms posted,
  /// and never in a frame.
  package static let contentSecurityPolicy =
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
    + "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

  /// The status.
  package let status: HTTPStatus
  /// The header fields, in order, `Content-Length` left out.
  package private(set) var headers: [HTTPHeaders.Field] = []
  /// The body.
  package let body: [UInt8]

  /// A response of `status` with `headers` (in order) and `body`. Throws
  /// ``HTTPResponseError`` for a status not from 100 to 599 or with a
  /// control in its reason, for a header ``addHeader(_:_:)`` refuses, and
  /// for a body with a status that has none (1xx, 204, 304).
  package init(status: HTTPStatus, headers: [(String, String)] = [], body: [UInt8] = []) throws(HTTPResponseError) {
    guard (100...599).contains(status.code), status.reason.utf8.allSatisfy(isFieldValueByte) else {
      throw HTTPResponseError(.badStatus, "the status \(status.code) is not 100 to 599 with a reason without controls")
    }
    guard body.isEmpty || !status.forbidsContent else {
      throw HTTPResponseError(.contentNotAllowed, "a \(status.code) response has no content")
    }
    self.status = status
    self.body = body
    for (name, value) in headers {
      try addHeader(name, value)
    }
  }

  /// A response of `status` with `text` as a UTF-8 `text/plain` body.
  package init(status: HTTPStatus, text: String) throws(HTTPResponseError) {
    try self.init(
      status: status, headers: [("Content-Type", "text/plain; charset=utf-8")], body: Array(text.utf8))
  }

  /// Adds a field after the others. Throws ``HTTPResponseError`` for a name
  /// that is not a token, a value with a control (CR, LF, NUL and the rest;
  /// a tab is allowed), and `Content-Length` or `Transfer-Encoding`, which
  /// the response writes itself or never.
  package mutating func addHeader(_ name: String, _ value: String) throws(HTTPResponseError) {
    try Self.check(name, value)
    headers.append(HTTPHeaders.Field(name: name, value: value))
  }

  /// Sets the field `name` to `value` alone, in place of any field of that
  /// name (whatever its case); refuses what ``addHeader(_:_:)`` refuses.
  package mutating func setHeader(_ name: String, _ value: String) throws(HTTPResponseError) {
    try Self.check(name, value)
    headers.removeAll { HTTPHeaders.sameName($0.name, name) }
    headers.append(HTTPHeaders.Field(name: name, value: value))
  }

  /// Throws for a field ``addHeader(_:_:)`` refuses.
  private static func check(_ name: String, _ value: String) throws(HTTPResponseError) {
    guard !name.isEmpty, name.utf8.allSatisfy(isTokenCharacter) else {
      throw HTTPResponseError(.badHeaderName, "a header name is empty or has a character that is not a token's")
    }
    guard value.utf8.allSatisfy(isFieldValueByte) else {
      throw HTTPResponseError(.badHeaderValue, "the value of \(name) has a control character")
    }
    if HTTPHeaders.sameName(name, "Content-Length") || HTTPHeaders.sameName(name, "Transfer-Encoding") {
      throw HTTPResponseError(.framingHeader, "\(name) is the response's own")
    }
  }

  /// The value of the first field named `name`, whatever its case.
  package subscript(_ name: String) -> String? {
    headers.first { HTTPHeaders.sameName($0.name, name) }?.value
  }

  /// Sets the headers every response of the app carries: a strict
  /// ``contentSecurityPolicy``, `X-Content-Type-Options: nosniff`,
  /// `Referrer-Policy: no-referrer` and, when `noStore`, `Cache-Control:
  /// no-store`.
  package mutating func addSecurityHeaders(noStore: Bool) {
    var fields = [
      ("Content-Security-Policy", Self.contentSecurityPolicy), ("X-Content-Type-Options", "nosniff"),
      ("Referrer-Policy", "no-referrer"),
    ]
    if noStore { fields.append(("Cache-Control", "no-store")) }
    for (name, value) in fields {
      do {
        try setHeader(name, value)
      } catch {
        preconditionFailure("a security header is refused: \(error)")
      }
    }
  }

  /// The status line and the header fields, `Content-Length` among them
  /// unless the status has no content, and the empty line: what answers a
  /// HEAD request, and what precedes the body otherwise.
  package func head() -> [UInt8] {
    var text = "HTTP/1.1 \(status.code) \(status.reason)\r\n"
    for field in headers {
      text += "\(field.name): \(field.value)\r\n"
    }
    if !status.forbidsContent {
      text += "Content-Length: \(body.count)\r\n"
    }
    text += "\r\n"
    return Array(text.utf8)
  }

  /// The whole response: ``head()``, then the body.
  package func serialized() -> [UInt8] {
    head() + body
  }

  /// The response to a request refused for `error`: its status, a short
  /// text saying only that status (nothing of the request is echoed), the
  /// security headers, and `Connection: close`, since what follows a
  /// refused head cannot be read.
  package static func refusing(_ error: HTTPRequestError) -> HTTPResponse {
    refusing(status: error.status)
  }

  /// The response refusing a request with `status` (a 4xx or 5xx): a
  /// short text saying only that status, the security headers, and
  /// `Connection: close`.
  package static func refusing(status: HTTPStatus) -> HTTPResponse {
    do {
      var response = try HTTPResponse(status: status, text: "\(status)\n")
      try response.addHeader("Connection", "close")
      response.addSecurityHeaders(noStore: true)
      return response
    } catch {
      preconditionFailure("a refusal's response is refused: \(error)")
    }
  }
}

/// Whether `byte` may be in a field value as sent: anything but controls
/// (CR, LF, NUL, …, DEL), where a tab is no control.
private func isFieldValueByte(_ byte: UInt8) -> Bool {
  byte == UInt8(ascii: "\t") || (byte >= 0x20 && byte != 0x7F)
}
