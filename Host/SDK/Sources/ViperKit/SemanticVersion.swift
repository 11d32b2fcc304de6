/// A semantic version, `MAJOR.MINOR.PATCH` (semver.org): a plugin's, and a
/// business service's (ViperKit 2.7). Written as a string literal, `"1.2"`
/// or `"1.2.3"` (a missing part is 0), and compared part by part.
public struct SemanticVersion: Hashable, Sendable, Comparable, CustomStringConvertible {
  /// Raised for a change that breaks those who use it.
  public var major: Int
  /// Raised for an addition.
  public var minor: Int
  /// Raised for a fix.
  public var patch: Int

  /// `major.minor.patch`; no part may be negative.
  public init(_ major: Int, _ minor: Int = 0, _ patch: Int = 0) {
    precondition(major >= 0 && minor >= 0 && patch >= 0, "a version's parts are counts, never negative")
    self.major = major
    self.minor = minor
    self.patch = patch
  }

  /// `1`, `1.2` or `1.2.3` (parts of at most 9 digits); nil for anything else.
  public init?(parsing text: String) {
    let parts = text.split(separator: ".", omittingEmptySubsequences: false)
    guard (1...3).contains(parts.count),
      parts.allSatisfy({ !$0.isEmpty && $0.count <= 9 && $0.allSatisfy { $0.isASCII && $0.isNumber } })
    else { return nil }
    let numbers = parts.compactMap { Int($0) }
    self.init(numbers[0], numbers.count > 1 ? numbers[1] : 0, numbers.count > 2 ? numbers[2] : 0)
  }

  /// `MAJOR.MINOR.PATCH`.
  public var description: String { "\(major).\(minor).\(patch)" }

  /// Whether `lhs` comes before `rhs`: major first, then minor, then patch.
  public static func < (lhs: SemanticVersion, rhs: SemanticVersion) -> Bool {
    (lhs.major, lhs.minor, lhs.patch) < (rhs.major, rhs.minor, rhs.patch)
  }
}

extension SemanticVersion: ExpressibleByStringLiteral {
  /// A version written in code, `"1.2"`: a literal that is not a version
  /// stops the program that builds the plugin's manifest, naming it, as a
  /// mistyped route would.
  public init(stringLiteral text: String) {
    guard let version = SemanticVersion(parsing: text) else {
      preconditionFailure("'\(text)' is not a version: write MAJOR, MAJOR.MINOR or MAJOR.MINOR.PATCH, as \"1.2\"")
    }
    self = version
  }
}

extension SemanticVersion: Codable {
  /// Decodes `MAJOR.MINOR.PATCH` from a string.
  public init(from decoder: any Decoder) throws {
    self = try TextForm.decode(from: decoder, as: "a version (MAJOR.MINOR.PATCH)", Self.init(parsing:))
  }

  /// Encodes `MAJOR.MINOR.PATCH` as a string.
  public func encode(to encoder: any Encoder) throws { try TextForm.encode(description, to: encoder) }
}

/// The versions a requirement accepts: from ``lower`` up to, not including,
/// ``upper``, written `"1.2"..<"2"` (ViperKit 2.7).
public struct VersionRange: Hashable, Sendable, CustomStringConvertible {
  /// The first version accepted.
  public var lower: SemanticVersion
  /// The first version past the range.
  public var upper: SemanticVersion

  /// The versions in `range`.
  public init(_ range: Range<SemanticVersion>) {
    lower = range.lowerBound
    upper = range.upperBound
  }

  /// `1.2..<2` (as ``description`` writes it); nil for anything else, or an empty range.
  public init?(parsing text: String) {
    let bounds = text.split(separator: "..<", omittingEmptySubsequences: false)
    guard bounds.count == 2, let lower = SemanticVersion(parsing: String(bounds[0])),
      let upper = SemanticVersion(parsing: String(bounds[1])), lower < upper
    else { return nil }
    self.init(lower..<upper)
  }

  /// Whether the range accepts `version`.
  public func contains(_ version: SemanticVersion) -> Bool { lower <= version && version < upper }

  /// `LOWER..<UPPER`, the parts of each as written: `1.2.0..<2.0.0`.
  public var description: String { "\(lower)..<\(upper)" }
}

extension VersionRange: Codable {
  /// Decodes `LOWER..<UPPER` from a string.
  public init(from decoder: any Decoder) throws {
    self = try TextForm.decode(
      from: decoder, as: "a version range (LOWER..<UPPER, LOWER below UPPER)", Self.init(parsing:))
  }

  /// Encodes `LOWER..<UPPER` as a string.
  public func encode(to encoder: any Encoder) throws { try TextForm.encode(description, to: encoder) }
}

/// Values whose coded form is their text, as versions are.
enum TextForm {
  /// The value `parse` makes of the string `decoder` holds; a string it
  /// refuses is data that is not `expected`.
  static func decode<Value>(from decoder: any Decoder, as expected: String, _ parse: (String) -> Value?) throws
    -> Value
  {
    let container = try decoder.singleValueContainer()
    let text = try container.decode(String.self)
    guard let value = parse(text) else {
      throw DecodingError.dataCorruptedError(in: container, debugDescription: "'\(text)' is not \(expected)")
    }
    return value
  }

  /// Encodes `text` as a single string.
  static func encode(_ text: String, to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    try container.encode(text)
  }
}
