import ViperKit

/// A parsed URN: `namespace:segment:…[?name=value&…]`.
///
/// Grammar (README, "URN syntax"):
/// ```
/// urn     = segment *( ":" segment ) [ "?" query ]
/// segment = 1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / pct-encoded )
/// query   = param *( "&" param ),  param = name "=" value
/// ```
/// Segments are compared case-sensitively after percent-decoding.
public struct ParsedURN: Hashable, Sendable, CustomStringConvertible {
  /// The decoded segments, at least one.
  public let segments: [String]
  /// Decoded query arguments, in the order given.
  public let query: [(name: String, value: String)]
  /// The text the URN was parsed from.
  public let text: String

  /// Longest URN accepted, in bytes.
  public static let maximumLength = 2048

  /// Parses `text`, throwing a ``URNError`` that names the offending part.
  public init(parsing text: String) throws(URNError) {
    guard !text.isEmpty else {
      throw URNError(text, "the URN is empty; write it as namespace:segment, e.g. items:list")
    }
    guard text.utf8.count <= ParsedURN.maximumLength else {
      throw URNError(text, "the URN is \(text.utf8.count) bytes long; the limit is \(ParsedURN.maximumLength)")
    }
    let (path, queryText) = ParsedURN.splitQuery(text)
    var segments: [String] = []
    for (index, raw) in path.split(separator: ":", omittingEmptySubsequences: false).enumerated() {
      segments.append(try URNSyntax.decodeSegment(String(raw), position: index + 1, in: text))
    }
    self.segments = segments
    if let queryText {
      self.query = try URNSyntax.decodeQuery(queryText, in: text)
    } else {
      self.query = []
    }
    self.text = text
  }

  /// The text the URN was parsed from.
  public var description: String { text }

  /// Two URNs are equal when written the same.
  public static func == (lhs: ParsedURN, rhs: ParsedURN) -> Bool { lhs.text == rhs.text }
  /// Hashes the text.
  public func hash(into hasher: inout Hasher) { hasher.combine(text) }

  private static func splitQuery(_ text: String) -> (Substring, Substring?) {
    guard let mark = text.firstIndex(of: "?") else { return (Substring(text), nil) }
    return (text[..<mark], text[text.index(after: mark)...])
  }
}

/// A URN or URN pattern that cannot be parsed, with the reason.
public struct URNError: Error, Hashable, Sendable, CustomStringConvertible {
  /// The text that failed.
  public let text: String
  /// What is wrong and how to write it instead.
  public let reason: String

  init(_ text: String, _ reason: String) {
    self.text = text
    self.reason = reason
  }

  /// `invalid URN 'TEXT': REASON`.
  public var description: String { "invalid URN '\(text)': \(reason)" }
}

/// Character rules shared by URNs and URN patterns.
enum URNSyntax {
  /// The URN builder's rule: letters, digits and `-._~` stand for themselves.
  static func isUnreserved(_ byte: UInt8) -> Bool { URN.isUnreserved(byte) }

  static func isIdentifier(_ name: Substring) -> Bool {
    guard let first = name.utf8.first, !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first) else {
      return false
    }
    return name.utf8.allSatisfy {
      isUnreserved($0) && $0 != UInt8(ascii: "-") && $0 != UInt8(ascii: ".") && $0 != UInt8(ascii: "~")
    }
  }

  /// Percent-decodes one segment, rejecting empty segments and reserved
  /// characters with a message naming the segment's position.
  static func decodeSegment(_ raw: String, position: Int, in text: String) throws(URNError) -> String {
    guard !raw.isEmpty else {
      throw URNError(text, "segment \(position) is empty; segments are separated by single ':'")
    }
    return try percentDecode(raw, what: "segment \(position) ('\(raw)')", in: text)
  }

  static func decodeQuery(_ query: Substring, in text: String) throws(URNError) -> [(name: String, value: String)] {
    var result: [(name: String, value: String)] = []
    for param in query.split(separator: "&", omittingEmptySubsequences: false) {
      guard let equals = param.firstIndex(of: "="), equals != param.startIndex else {
        throw URNError(text, "query part '\(param)' is not name=value")
      }
      let name = String(param[..<equals])
      guard isIdentifier(Substring(name)) else {
        throw URNError(text, "query name '\(name)' is not a name (letters, digits and '_', not starting with a digit)")
      }
      if result.contains(where: { $0.name == name }) {
        throw URNError(text, "query argument '\(name)' is given twice")
      }
      let value = try percentDecode(
        String(param[param.index(after: equals)...]), what: "the value of '\(name)'", in: text)
      result.append((name, value))
    }
    return result
  }

  /// `raw` decoded; `what` names it in the error, and is only made for one.
  static func percentDecode(_ raw: String, what: @autoclosure () -> String, in text: String) throws(URNError) -> String
  {
    // Most segments have nothing to decode: they are their own text.
    if raw.utf8.allSatisfy(isUnreserved) { return raw }
    var bytes: [UInt8] = []
    var iterator = Array(raw.utf8)[...]
    while let byte = iterator.popFirst() {
      let offset = raw.utf8.count - iterator.count - 1
      if byte == UInt8(ascii: "%") {
        guard iterator.count >= 2, let high = hexValue(iterator.popFirst()!), let low = hexValue(iterator.popFirst()!)
        else {
          throw URNError(text, "\(what()) has a '%' not followed by two hex digits")
        }
        bytes.append(high << 4 | low)
      } else if isUnreserved(byte) {
        bytes.append(byte)
      } else {
        // The whole character, not the one byte of it (a lone byte of a
        // multi-byte character would print as U+FFFD).
        let shown = raw[raw.utf8.index(raw.utf8.startIndex, offsetBy: offset)...].prefix(1)
        throw URNError(
          text,
          "\(what()) contains '\(shown)'; only letters, digits, '-', '.', '_', '~' are allowed, anything else percent-encoded (%XX)"
        )
      }
    }
    guard let decoded = String(validating: bytes, as: UTF8.self) else {
      throw URNError(text, "\(what()) does not decode to valid UTF-8")
    }
    return decoded
  }

  private static func hexValue(_ byte: UInt8) -> UInt8? {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
    default: nil
    }
  }
}
