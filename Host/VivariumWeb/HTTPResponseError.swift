/// Why a response could not be built: ``kind`` is stable, for tests and
/// programs; the description says what is wrong, for people.
package struct HTTPResponseError: Error, Equatable, CustomStringConvertible {
  /// What is wrong, as a stable name.
  package enum Kind: String, Sendable {
    /// The status code is not from 100 to 599, or its reason has a control character.
    case badStatus
    /// A header name is empty or has a character that is not a token's.
    case badHeaderName
    /// A header value has a control character: CR or LF would end the
    /// field, and the response with it.
    case badHeaderValue
    /// `Content-Length` or `Transfer-Encoding`: the response writes the
    /// first from its body, and never the second.
    case framingHeader
    /// A body with a status that has none (1xx, 204, 304).
    case contentNotAllowed
  }

  /// What is wrong, as a stable name.
  package let kind: Kind
  /// What is wrong, for people.
  package let description: String

  /// An error of `kind` saying `description`.
  package init(_ kind: Kind, _ description: String) {
    self.kind = kind
    self.description = description
  }
}
