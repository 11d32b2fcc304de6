/// A request's head as ``HTTPRequestParser`` read and checked it: the
/// request line, the header fields, and what they say of the body and the
/// connection.
package struct HTTPRequestHead: Sendable, Equatable {
  /// The HTTP versions this server speaks.
  package enum Version: String, Sendable {
    /// HTTP/1.0.
    case http1_0 = "HTTP/1.0"
    /// HTTP/1.1.
    case http1_1 = "HTTP/1.1"
  }

  /// The method, as sent (methods are case-sensitive: `GET`, not `get`).
  package let method: String
  /// The request-target, its path decoded and checked.
  package let target: RequestTarget
  /// The version.
  package let version: Version
  /// The header fields, in order.
  package let headers: HTTPHeaders
  /// How many bytes of body follow the head: the `Content-Length`, or 0
  /// without one (the parser refuses `Transfer-Encoding`).
  package let contentLength: Int

  /// A head of these parts.
  package init(method: String, target: RequestTarget, version: Version, headers: HTTPHeaders, contentLength: Int) {
    self.method = method
    self.target = target
    self.version = version
    self.headers = headers
    self.contentLength = contentLength
  }

  /// The `Host` field's value; the parser makes sure there is at most one,
  /// and one for HTTP/1.1.
  package var host: String? { headers["Host"] }

  /// Whether the connection stays open for another request after this
  /// one's response (RFC 9112 §9.3): HTTP/1.1 unless `Connection: close`,
  /// HTTP/1.0 only with `Connection: keep-alive`.
  package var keepsAlive: Bool {
    if headers.containsToken("close", in: "Connection") { return false }
    return version == .http1_1 || headers.containsToken("keep-alive", in: "Connection")
  }
}
