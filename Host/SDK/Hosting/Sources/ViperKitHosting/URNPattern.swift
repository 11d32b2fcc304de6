/// A URN pattern from a contract, such as `items:detail:{itemID}`: literal
/// segments and `{name}` placeholders, each a whole segment. The first segment
/// is a literal (the namespace). Placeholder names are unique.
public struct URNPattern: Hashable, Sendable, CustomStringConvertible {
  /// One segment of a pattern.
  public enum Segment: Hashable, Sendable {
    /// Matches exactly this decoded text.
    case literal(String)
    /// Matches any one segment and binds it to the argument `name`.
    case placeholder(String)
  }

  /// The segments in order.
  public let segments: [Segment]
  /// The pattern as written.
  public let text: String

  /// Parses a pattern, throwing a ``URNError`` that says what to fix.
  public init(parsing text: String) throws(URNError) {
    guard !text.isEmpty else {
      throw URNError(text, "the pattern is empty; write it as namespace:segment, e.g. items:list")
    }
    guard !text.utf8.contains(UInt8(ascii: "?")) else {
      throw URNError(text, "a pattern has no '?query'; declare optional arguments in the contract instead")
    }
    var segments: [Segment] = []
    var names: Set<String> = []
    for (index, raw) in text.split(separator: ":", omittingEmptySubsequences: false).enumerated() {
      let position = index + 1
      if raw.hasPrefix("{") || raw.hasSuffix("}") {
        guard raw.hasPrefix("{"), raw.hasSuffix("}"), raw.count > 2 else {
          throw URNError(text, "segment \(position) ('\(raw)') must be a whole placeholder like {name}")
        }
        let name = raw.dropFirst().dropLast()
        guard URNSyntax.isIdentifier(name) else {
          throw URNError(
            text, "placeholder '{\(name)}' is not a name (letters, digits and '_', not starting with a digit)")
        }
        guard position > 1 else {
          throw URNError(text, "the first segment must be a literal namespace, not the placeholder {\(name)}")
        }
        guard names.insert(String(name)).inserted else {
          throw URNError(text, "placeholder {\(name)} appears twice")
        }
        segments.append(.placeholder(String(name)))
      } else {
        if raw.utf8.contains(where: { $0 == UInt8(ascii: "{") || $0 == UInt8(ascii: "}") }) {
          throw URNError(
            text, "segment \(position) ('\(raw)') mixes text and a placeholder; a placeholder must be a whole segment")
        }
        segments.append(.literal(try URNSyntax.decodeSegment(String(raw), position: position, in: text)))
      }
    }
    self.segments = segments
    self.text = text
  }

  /// The placeholder names in order.
  public var placeholders: [String] {
    segments.compactMap { if case .placeholder(let name) = $0 { name } else { nil } }
  }

  /// Each placeholder, in order, with its segment of `segments`, the
  /// decoded segments of a URN this pattern matches.
  public func placeholderValues(in segments: [String]) -> [(name: String, value: String)] {
    zip(self.segments, segments).compactMap { segment, value in
      if case .placeholder(let name) = segment { (name: name, value: value) } else { nil }
    }
  }

  /// The pattern with placeholder names erased: two patterns with the same
  /// shape match exactly the same URNs.
  public var shape: [String?] {
    segments.map { if case .literal(let text) = $0 { text } else { nil } }
  }

  /// Binds `urn`'s segments to placeholders if it matches, else nil. The
  /// bindings are made only for a match, and only if there are placeholders.
  public func match(_ urn: ParsedURN) -> [String: String]? {
    guard urn.segments.count == segments.count else { return nil }
    var placeholders = 0
    for (segment, value) in zip(segments, urn.segments) {
      switch segment {
      case .literal(let text): if text != value { return nil }
      case .placeholder: placeholders += 1
      }
    }
    guard placeholders > 0 else { return [:] }
    var bound: [String: String] = .init(minimumCapacity: placeholders)
    for (segment, value) in zip(segments, urn.segments) {
      if case .placeholder(let name) = segment { bound[name] = value }
    }
    return bound
  }

  /// The pattern as written.
  public var description: String { text }
}

extension URNPattern {
  /// Of `candidates`, the ones the router prefers for `shape`: segment by
  /// segment, where some candidate's segment is the same as `shape`'s (the
  /// same literal, or a placeholder where `shape` has one, as nil), the
  /// others are dropped. `shape` is a URN's segments or a declared pattern's
  /// ``shape``. Of candidates that all match a URN, this leaves the one the
  /// host routes it to, a literal segment being tried before a placeholder.
  public static func preferred<Candidate>(
    _ candidates: [Candidate], for shape: [String?], pattern: (Candidate) -> URNPattern
  ) -> [Candidate] {
    var kept = candidates
    for (position, segment) in shape.enumerated() where kept.count > 1 {
      let same = kept.filter { candidate in
        let theirs = pattern(candidate).shape
        return position < theirs.count && theirs[position] == segment
      }
      if !same.isEmpty { kept = same }
    }
    return kept
  }
}
