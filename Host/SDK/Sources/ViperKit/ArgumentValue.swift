/// A typed argument value. Encodes as a bare JSON string, integer or boolean,
/// and a double as `{"double": 1.5}`, so each comes back as the case it was.
public enum ArgumentValue: Hashable, Sendable, CustomStringConvertible {
  /// A ``ArgumentType/string`` value.
  case string(String)
  /// An ``ArgumentType/int`` value.
  case int(Int)
  /// A ``ArgumentType/bool`` value.
  case bool(Bool)
  /// A ``ArgumentType/double`` value.
  case double(Double)

  /// The type of this value.
  public var type: ArgumentType {
    switch self {
    case .string: .string
    case .int: .int
    case .bool: .bool
    case .double: .double
    }
  }

  /// The string, if this is a ``string(_:)`` value.
  public var stringValue: String? {
    if case .string(let value) = self { return value }
    return nil
  }

  /// The number, if this is an ``int(_:)`` value.
  public var intValue: Int? {
    if case .int(let value) = self { return value }
    return nil
  }

  /// The flag, if this is a ``bool(_:)`` value.
  public var boolValue: Bool? {
    if case .bool(let value) = self { return value }
    return nil
  }

  /// The number, if this is a ``double(_:)`` value.
  public var doubleValue: Double? {
    if case .double(let value) = self { return value }
    return nil
  }

  /// Parses `text` as a value of `type`; nil when it is not one.
  public init?(parsing text: String, as type: ArgumentType) {
    switch type {
    case .string: self = .string(text)
    case .int:
      guard let value = Int(text) else { return nil }
      self = .int(value)
    case .bool:
      switch text {
      case "true": self = .bool(true)
      case "false": self = .bool(false)
      default: return nil
      }
    case .double:
      guard let value = Double(text), value.isFinite else { return nil }
      self = .double(value)
    }
  }

  /// The value as it is written in a URN or on the command line.
  public var description: String {
    switch self {
    case .string(let value): value
    case .int(let value): String(value)
    case .bool(let value): String(value)
    case .double(let value): String(value)
    }
  }
}

/// JSON cannot tell `1.0` from `1`, so a double is written tagged,
/// `{"double": 1}`, and comes back a double; strings, ints and bools are
/// written bare. Infinities and NaN, which JSON numbers cannot hold, are
/// tagged strings: `{"double": "inf"}`, `"-inf"`, `"nan"`.
///
/// A bare number still reads, as earlier versions wrote every value bare: a
/// double when it has a fraction, an int when it is whole (as a whole-number
/// double was written then, so nothing tells it from an int).
extension ArgumentValue: Codable {
  private enum TagKey: String, CodingKey {
    case double
  }

  /// Decodes a bare JSON string, integer, boolean or number, or a tagged
  /// double.
  public init(from decoder: any Decoder) throws {
    if let tagged = try? decoder.container(keyedBy: TagKey.self) {
      if let value = try? tagged.decode(Double.self, forKey: .double) {
        self = .double(value)
        return
      }
      let text = try tagged.decode(String.self, forKey: .double)
      switch text {
      case "inf": self = .double(.infinity)
      case "-inf": self = .double(-.infinity)
      case "nan": self = .double(.nan)
      default:
        throw DecodingError.dataCorruptedError(
          forKey: .double, in: tagged, debugDescription: "a tagged double is a number, \"inf\", \"-inf\" or \"nan\"")
      }
      return
    }
    let container = try decoder.singleValueContainer()
    if let value = try? container.decode(Bool.self) {
      self = .bool(value)
    } else if let value = try? container.decode(Int.self) {
      self = .int(value)
    } else if let value = try? container.decode(Double.self) {
      self = .double(value)
    } else {
      self = .string(try container.decode(String.self))
    }
  }

  /// Encodes the bare value, or a double tagged.
  public func encode(to encoder: any Encoder) throws {
    switch self {
    case .string(let value): try Self.encodeBare(value, to: encoder)
    case .int(let value): try Self.encodeBare(value, to: encoder)
    case .bool(let value): try Self.encodeBare(value, to: encoder)
    case .double(let value):
      var tagged = encoder.container(keyedBy: TagKey.self)
      if value.isFinite {
        try tagged.encode(value, forKey: .double)
      } else {
        try tagged.encode(value.isNaN ? "nan" : value < 0 ? "-inf" : "inf", forKey: .double)
      }
    }
  }

  private static func encodeBare(_ value: some Encodable, to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    try container.encode(value)
  }
}

/// The validated arguments a module is built from: every required argument of
/// the contract is present with its declared type, and defaults are filled in.
///
/// A name the contract does not declare reads nothing, as a misspelt one
/// would: where the arguments are watched (the test kit's harness, and so
/// `vivarium check`), each such read is reported, naming it.
public struct Arguments: Hashable, Sendable {
  /// All values by argument name.
  public let values: [String: ArgumentValue]
  /// The names the contract declares, and who hears of a read of another.
  private let watch: Watch?

  private struct Watch: Sendable {
    let declared: Set<String>
    let undeclared: @Sendable (String) -> Void
  }

  /// Wraps already-validated values. The host validates before it calls this.
  public init(_ values: [String: ArgumentValue] = [:]) {
    self.values = values
    watch = nil
  }

  /// Wraps already-validated values of a contract declaring the arguments
  /// `declared`; `undeclared` is called with each name read that is not
  /// among them (ViperKit 3.0). Hosts and the test kit make these.
  public init(
    _ values: [String: ArgumentValue], declared: Set<String>, undeclared: @escaping @Sendable (String) -> Void
  ) {
    self.values = values
    watch = Watch(declared: declared, undeclared: undeclared)
  }

  /// Equal when the values are: who watches is not compared.
  public static func == (lhs: Arguments, rhs: Arguments) -> Bool { lhs.values == rhs.values }

  /// Hashes the values.
  public func hash(into hasher: inout Hasher) { hasher.combine(values) }

  /// The value of `name`, the read reported when the contract does not declare it.
  private func value(_ name: String) -> ArgumentValue? {
    if let watch, !watch.declared.contains(name) { watch.undeclared(name) }
    return values[name]
  }

  /// The string argument `name`, or nil if absent or of another type.
  public func string(_ name: String) -> String? { value(name)?.stringValue }

  /// The int argument `name`, or nil if absent or of another type.
  public func int(_ name: String) -> Int? { value(name)?.intValue }

  /// The bool argument `name`, or nil if absent or of another type.
  public func bool(_ name: String) -> Bool? { value(name)?.boolValue }

  /// The double argument `name`, or nil if absent or of another type.
  public func double(_ name: String) -> Double? { value(name)?.doubleValue }
}
