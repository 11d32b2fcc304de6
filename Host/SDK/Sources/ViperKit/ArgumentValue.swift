/// A typed argument value. Encodes as a bare JSON string, number or boolean.
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

  /// The string, if this is a ``string(_:)`` value. Since 1.1.
  public var stringValue: String? {
    if case .string(let value) = self { return value }
    return nil
  }

  /// The number, if this is an ``int(_:)`` value. Since 1.1.
  public var intValue: Int? {
    if case .int(let value) = self { return value }
    return nil
  }

  /// The flag, if this is a ``bool(_:)`` value. Since 1.1.
  public var boolValue: Bool? {
    if case .bool(let value) = self { return value }
    return nil
  }

  /// The number, if this is a ``double(_:)`` value. Since 1.1.
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

extension ArgumentValue: Codable {
  /// Decodes a bare JSON string, integer, boolean or number.
  public init(from decoder: any Decoder) throws {
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

  /// Encodes the bare value.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    switch self {
    case .string(let value): try container.encode(value)
    case .int(let value): try container.encode(value)
    case .bool(let value): try container.encode(value)
    case .double(let value): try container.encode(value)
    }
  }
}

/// The validated arguments a module is built from: every required argument of
/// the contract is present with its declared type, and defaults are filled in.
public struct Arguments: Hashable, Sendable {
  /// All values by argument name.
  public let values: [String: ArgumentValue]

  /// Wraps already-validated values. The host validates before it calls this.
  public init(_ values: [String: ArgumentValue] = [:]) {
    self.values = values
  }

  /// The string argument `name`, or nil if absent or of another type.
  public func string(_ name: String) -> String? { values[name]?.stringValue }

  /// The int argument `name`, or nil if absent or of another type.
  public func int(_ name: String) -> Int? { values[name]?.intValue }

  /// The bool argument `name`, or nil if absent or of another type.
  public func bool(_ name: String) -> Bool? { values[name]?.boolValue }

  /// The double argument `name`, or nil if absent or of another type.
  public func double(_ name: String) -> Double? { values[name]?.doubleValue }
}
