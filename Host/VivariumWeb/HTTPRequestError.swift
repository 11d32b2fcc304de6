/// Why a request was refused: ``kind`` is stable, for tests and programs;
/// the description says what is wrong, for people; ``status`` is the
/// response to send before closing the connection.
package struct HTTPRequestError: Error, Equatable, CustomStringConvertible {
  /// What is wrong, as a stable name.
  package enum Kind: String, Sendable, CaseIterable {
    /// The request line is longer than the parser's limit (414).
    case requestLineTooLong
    /// The field lines come to more than the parser's limit (431).
    case headerBlockTooLarge
    /// There are more field lines than the parser's limit (431).
    case tooManyHeaders
    /// The request line is not `method SP target SP version` (400).
    case badRequestLine
    /// The method has a character that is not a token's (400).
    case badMethod
    /// The request-target is not in origin form (`/path?query`), or has a
    /// character no URL has (400). `*` (OPTIONS) and absolute URLs are refused.
    case badTarget
    /// The version is well formed but not HTTP/1.0 or HTTP/1.1 (505).
    case unsupportedVersion
    /// A CR not followed by LF (400).
    case bareCR
    /// An LF not preceded by CR (400): lines end in CRLF, nothing else.
    case bareLF
    /// A field line begins with whitespace: obsolete line folding (400).
    case obsFold
    /// A field line has no colon (400).
    case badHeaderLine
    /// A field name is empty, has a character that is not a token's, or is
    /// followed by whitespace before its colon (400).
    case badHeaderName
    /// A field value has a control character (400).
    case badHeaderValue
    /// An HTTP/1.1 request has no `Host` (400).
    case missingHost
    /// A request has more than one `Host` (400).
    case duplicateHost
    /// `Content-Length` and `Transfer-Encoding` together: a request one
    /// reader could frame one way and another the other (400).
    case contentLengthWithTransferEncoding
    /// A `Transfer-Encoding`: this server reads only bodies of a stated
    /// length (501).
    case unsupportedTransferEncoding
    /// A `Content-Length` that is not a decimal number (400).
    case badContentLength
    /// `Content-Length` given more than once, with different values (400).
    case conflictingContentLength
    /// A `Content-Length` over the parser's body limit (413).
    case bodyTooLarge
    /// A `%` in the path or query not followed by two hexadecimal digits,
    /// or bytes that decode to no UTF-8 text (400).
    case badPercentEncoding
    /// `%00` in the path or query (400).
    case encodedNUL
    /// A path segment that decodes to `/`-holding text (`%2F`) (400).
    case encodedSlash
    /// A path segment that is `.` or `..`, as written or decoded (400).
    case dotSegment
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
    case .requestLineTooLong: .uriTooLong
    case .headerBlockTooLarge, .tooManyHeaders: .requestHeaderFieldsTooLarge
    case .bodyTooLarge: .contentTooLarge
    case .unsupportedVersion: .httpVersionNotSupported
    case .unsupportedTransferEncoding: .notImplemented
    case .badRequestLine, .badMethod, .badTarget, .bareCR, .bareLF, .obsFold, .badHeaderLine, .badHeaderName,
      .badHeaderValue, .missingHost, .duplicateHost, .contentLengthWithTransferEncoding, .badContentLength,
      .conflictingContentLength, .badPercentEncoding, .encodedNUL, .encodedSlash, .dotSegment:
      .badRequest
    }
  }
}
