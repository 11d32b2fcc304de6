import ViperKit

/// A parsed URN: `namespace:segment:…[?name=value&…]`.
///
/// Grammar (docs/reference.md, "URN syntax"):
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
    self.text = text
    if let scanned = URNSyntax.scan(text) {
      self.segments = scanned.segments
      self.query = scanned.query
      return
    }
    // Not a URN, or not one the scan reads: parsed part by part, which says
    // what is wrong.
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
  static func isUnreserved(_ byte: UInt8) -> Bool { unreserved.contains(byte) }

  /// ``URN/isUnreserved(_:)`` as a set, so that checking a byte is not a
  /// call into ViperKit.
  static let unreserved = ByteSet(URN.isUnreserved)
  /// The bytes of a name: the unreserved ones but `-`, `.` and `~`.
  static let nameBytes = ByteSet { URN.isUnreserved($0) && !"-.~".utf8.contains($0) }

  static func isIdentifier(_ name: Substring) -> Bool {
    guard let first = name.utf8.first, !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first) else {
      return false
    }
    return name.utf8.allSatisfy(nameBytes.contains)
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

  static func hexValue(_ byte: UInt8) -> UInt8? {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
    default: nil
    }
  }
}

extension URNSyntax {
  /// The decoded segments and query of `text`, read straight from its bytes,
  /// if it is a valid URN; nil if not, and ``ParsedURN/init(parsing:)`` then
  /// parses it part by part to say why.
  ///
  /// Nothing is made but the array of segments, the query's array if there
  /// is a query, and each part's string; a part is decoded only if it has a
  /// `%`. For ASCII text, parts are split exactly where the general parser
  /// splits them; any other byte is refused here, as it is there.
  static func scan(_ text: String) -> (segments: [String], query: [(name: String, value: String)])? {
    let bytes = text.utf8.span
    // Read once: every read of a static checks that it was made.
    let (unreserved, nameBytes) = (URNSyntax.unreserved, URNSyntax.nameBytes)
    var colons = 0
    var end = 0
    while end < bytes.count, bytes[end] != UInt8(ascii: "?") {
      if bytes[end] == UInt8(ascii: ":") { colons += 1 }
      end += 1
    }
    var segments: [String] = []
    segments.reserveCapacity(colons + 1)
    var start = 0
    while true {
      guard let segment = part(of: bytes, from: start, to: end, until: UInt8(ascii: ":"), unreserved),
        !segment.text.isEmpty
      else { return nil }
      segments.append(segment.text)
      if segment.next > end { break }
      start = segment.next
    }
    guard end < bytes.count else { return (segments, []) }
    var query: [(name: String, value: String)] = []
    var param = end + 1
    while true {
      guard let equals = nameEnd(in: bytes, from: param, nameBytes),
        let name = part(of: bytes, from: param, to: equals, until: UInt8(ascii: "="), unreserved),
        !query.contains(where: { $0.name == name.text }),
        let value = part(of: bytes, from: equals + 1, to: bytes.count, until: UInt8(ascii: "&"), unreserved)
      else { return nil }
      query.append((name.text, value.text))
      if value.next > bytes.count { return (segments, query) }
      param = value.next
    }
  }

  /// The part of `bytes` from `start` to the first `separator` or `end`,
  /// decoded, and where the next part starts (past `end` for none); nil if
  /// a byte is neither unreserved nor a valid `%XX`, or the part does not
  /// decode to UTF-8.
  private static func part(
    of bytes: Span<UInt8>, from start: Int, to end: Int, until separator: UInt8, _ unreserved: ByteSet
  ) -> (text: String, next: Int)? {
    var stop = start
    var escaped = false
    while stop < end, bytes[stop] != separator {
      if bytes[stop] == UInt8(ascii: "%") {
        escaped = true
      } else if !unreserved.contains(bytes[stop]) {
        return nil
      }
      stop += 1
    }
    let raw = bytes.extracting(start..<stop)
    guard escaped else {
      // Unreserved bytes are ASCII: always valid UTF-8.
      guard let plain = try? UTF8Span(validating: raw) else { return nil }
      return (String(copying: plain), stop + 1)
    }
    var decoded: [UInt8] = []
    decoded.reserveCapacity(raw.count)
    var index = 0
    while index < raw.count {
      guard raw[index] == UInt8(ascii: "%") else {
        decoded.append(raw[index])
        index += 1
        continue
      }
      guard index + 2 < raw.count, let high = hexValue(raw[index + 1]), let low = hexValue(raw[index + 2]) else {
        return nil
      }
      decoded.append(high << 4 | low)
      index += 3
    }
    guard let string = String(validating: decoded, as: UTF8.self) else { return nil }
    return (string, stop + 1)
  }
}

/// A set of bytes, looked up with a shift and a mask.
struct ByteSet: Sendable {
  private let words: (UInt64, UInt64, UInt64, UInt64)

  /// The bytes for which `rule` holds.
  init(_ rule: (UInt8) -> Bool) {
    var words: [UInt64] = [0, 0, 0, 0]
    for byte in UInt8.min...UInt8.max where rule(byte) {
      words[Int(byte >> 6)] |= 1 << UInt64(byte & 63)
    }
    self.words = (words[0], words[1], words[2], words[3])
  }

  func contains(_ byte: UInt8) -> Bool {
    let word =
      switch byte >> 6 {
      case 0: words.0
      case 1: words.1
      case 2: words.2
      default: words.3
      }
    return word & (1 << UInt64(byte & 63)) != 0
  }
}
