/// A request-target in origin form (RFC 9112 §3.2.1: `/path?query`), its
/// path decoded and checked: what a server maps to what it serves.
///
/// The path's segments are percent-decoded one by one, and a segment that
/// would change the path's shape once decoded is refused: `.` and `..`
/// (written or encoded), `%2F`, and `%00` anywhere. The query stays as sent
/// until ``queryItems()`` decodes it.
package struct RequestTarget: Sendable, Equatable {
  /// One `name=value` of a query, both decoded.
  package struct QueryItem: Sendable, Equatable {
    /// The name, decoded.
    package let name: String
    /// The value, decoded; empty when the item has no `=`.
    package let value: String

    /// An item of `name` and `value`.
    package init(name: String, value: String) {
      self.name = name
      self.value = value
    }
  }

  /// The target as sent.
  package let raw: String
  /// The path's segments, decoded: `/a/b%20c/` is `["a", "b c", ""]`, and
  /// `/` is `[""]`.
  package let segments: [String]
  /// The query as sent, after the `?`; nil when there is no `?`.
  package let query: String?

  /// The path, decoded: `/` and the segments joined by `/`.
  package var path: String { "/" + segments.joined(separator: "/") }

  /// `target` read as an origin-form target; throws ``HTTPRequestError``
  /// (``HTTPRequestError/Kind/badTarget`` and the kinds of decoding) for
  /// anything else.
  package init(parsing target: String) throws(HTTPRequestError) {
    let bytes = Array(target.utf8)
    guard bytes.first == UInt8(ascii: "/") else {
      throw HTTPRequestError(.badTarget, "the request-target is not a path beginning with /")
    }
    // Visible ASCII but `#`: a fragment never goes in a request.
    guard bytes.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "#") }) else {
      throw HTTPRequestError(.badTarget, "the request-target has a character no URL has")
    }
    raw = target
    let questionMark = bytes.firstIndex(of: UInt8(ascii: "?"))
    let pathBytes = bytes[1..<(questionMark ?? bytes.endIndex)]
    query = questionMark.map { String(decoding: bytes[($0 + 1)...], as: UTF8.self) }
    var segments: [String] = []
    for segment in pathBytes.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false) {
      let decoded = try Self.percentDecode(segment, plusIsSpace: false)
      if decoded == "." || decoded == ".." {
        throw HTTPRequestError(.dotSegment, "the path has a . or .. segment")
      }
      if decoded.utf8.contains(UInt8(ascii: "/")) {
        throw HTTPRequestError(.encodedSlash, "a segment of the path has an encoded /")
      }
      segments.append(decoded)
    }
    self.segments = segments
  }

  /// The query's items, in order, decoded (`+` is a space); empty ones
  /// (`a=1&&b=2`) are left out, and there are none without a query.
  package func queryItems() throws(HTTPRequestError) -> [QueryItem] {
    guard let query else { return [] }
    var items: [QueryItem] = []
    for item in query.utf8.split(separator: UInt8(ascii: "&")) {
      let equals = item.firstIndex(of: UInt8(ascii: "="))
      let name = try Self.percentDecode(item[..<(equals ?? item.endIndex)], plusIsSpace: true)
      let value = try equals.map { (equals) throws(HTTPRequestError) in
        try Self.percentDecode(item[item.index(after: equals)...], plusIsSpace: true)
      }
      items.append(QueryItem(name: name, value: value ?? ""))
    }
    return items
  }

  /// `text` with each `%XX` made the byte it stands for (and, when
  /// `plusIsSpace`, each `+` a space, as in a query). Throws for a `%` not
  /// followed by two hexadecimal digits, for `%00`, and for bytes that are
  /// not UTF-8.
  package static func percentDecode(_ text: some Collection<UInt8>, plusIsSpace: Bool) throws(HTTPRequestError)
    -> String
  {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(text.count)
    var iterator = text.makeIterator()
    while let byte = iterator.next() {
      switch byte {
      case UInt8(ascii: "%"):
        guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else {
          throw HTTPRequestError(.badPercentEncoding, "a % is not followed by two hexadecimal digits")
        }
        let decoded = high << 4 | low
        if decoded == 0 { throw HTTPRequestError(.encodedNUL, "the target has an encoded NUL (%00)") }
        bytes.append(decoded)
      case UInt8(ascii: "+") where plusIsSpace:
        bytes.append(UInt8(ascii: " "))
      case 0:
        throw HTTPRequestError(.encodedNUL, "the target has a NUL")
      default:
        bytes.append(byte)
      }
    }
    guard let decoded = String(validating: bytes, as: UTF8.self) else {
      throw HTTPRequestError(.badPercentEncoding, "the decoded bytes are not UTF-8")
    }
    return decoded
  }

  /// `percentDecode` of a string's UTF-8.
  package static func percentDecode(_ text: String, plusIsSpace: Bool) throws(HTTPRequestError) -> String {
    try percentDecode(text.utf8, plusIsSpace: plusIsSpace)
  }
}

/// The value of an ASCII hexadecimal digit, or nil.
private func hexValue(_ byte: UInt8) -> UInt8? {
  switch byte {
  case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
  case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
  case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
  default: nil
  }
}
