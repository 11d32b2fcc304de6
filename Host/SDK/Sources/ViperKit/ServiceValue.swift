/// A business service's request, response or failure as it crosses between
/// plugins: the `Codable` value's own form, with no Swift type attached
/// (ViperKit 2.7). The provider and its consumers each decode it into their
/// own copy of the interface's types, so they share no binary; a field
/// added in a minor version is absent for an older peer, and decodes as
/// `nil` where it is optional.
///
/// Plugins never build these: a ``ServiceHandle`` encodes the request and
/// decodes the response, and ``ServiceAnswers`` the other way round.
public enum ServiceValue: Hashable, Sendable {
  /// `nil`, or an absent optional.
  case null
  /// A Boolean.
  case bool(Bool)
  /// Any integer that fits in `Int`.
  case int(Int)
  /// A floating-point number.
  case double(Double)
  /// A string.
  case string(String)
  /// An array, or another unkeyed container.
  case list([ServiceValue])
  /// A struct or dictionary with string keys: its fields by name.
  case record([String: ServiceValue])

  /// `value` in this form; throws `EncodingError` when its `encode(to:)`
  /// throws, when it nests deeper than ``depthLimit``, or when an integer
  /// does not fit in `Int`.
  public init(encoding value: some Encodable) throws {
    self = try ServiceValueEncoder.encode(value)
  }

  /// This value as a `T`; throws `DecodingError` naming the field that
  /// does not fit.
  public func decode<T: Decodable>(as type: T.Type = T.self) throws -> T {
    try T(from: ServiceValueDecoder(self, codingPath: []))
  }

  /// The deepest a value may nest: deeper ones do not encode, and the host
  /// refuses them, in one process as across processes.
  public static let depthLimit = 64

  /// How deeply it nests: 1 for a leaf or an empty container. Stops
  /// counting past ``depthLimit``.
  public var depth: Int {
    func depth(_ value: ServiceValue, _ level: Int) -> Int {
      guard level <= ServiceValue.depthLimit else { return level }
      switch value {
      case .list(let values): return values.map { depth($0, level + 1) }.max() ?? level
      case .record(let fields): return fields.values.map { depth($0, level + 1) }.max() ?? level
      default: return level
      }
    }
    return depth(self, 1)
  }

  /// What kind of value this is, for messages: `a string`, `a record`.
  var kind: String {
    switch self {
    case .null: "null"
    case .bool: "a Boolean"
    case .int: "an integer"
    case .double: "a number"
    case .string: "a string"
    case .list: "a list"
    case .record: "a record"
    }
  }
}

/// A service value carries itself in any `Codable` format (the host's wire,
/// JSON in reports): each case as the container it is.
extension ServiceValue: Codable {
  /// Writes the case as the container or single value it is.
  public func encode(to encoder: any Encoder) throws {
    switch self {
    case .list(let values):
      var container = encoder.unkeyedContainer()
      for value in values { try container.encode(value) }
    case .record(let fields):
      var container = encoder.container(keyedBy: NameKey.self)
      for (key, value) in fields { try container.encode(value, forKey: NameKey(key)) }
    default:
      var container = encoder.singleValueContainer()
      switch self {
      case .bool(let value): try container.encode(value)
      case .int(let value): try container.encode(value)
      case .double(let value): try container.encode(value)
      case .string(let value): try container.encode(value)
      default: try container.encodeNil()
      }
    }
  }

  /// Reads whichever container the format holds.
  public init(from decoder: any Decoder) throws {
    if let keyed = try? decoder.container(keyedBy: NameKey.self) {
      var fields: [String: ServiceValue] = [:]
      for key in keyed.allKeys { fields[key.stringValue] = try keyed.decode(ServiceValue.self, forKey: key) }
      self = .record(fields)
    } else if var unkeyed = try? decoder.unkeyedContainer() {
      var values: [ServiceValue] = []
      while !unkeyed.isAtEnd { values.append(try unkeyed.decode(ServiceValue.self)) }
      self = .list(values)
    } else {
      let single = try decoder.singleValueContainer()
      if single.decodeNil() {
        self = .null
      } else if let value = try? single.decode(Bool.self) {
        self = .bool(value)
      } else if let value = try? single.decode(Int.self) {
        self = .int(value)
      } else if let value = try? single.decode(Double.self) {
        self = .double(value)
      } else {
        self = .string(try single.decode(String.self))
      }
    }
  }
}

/// A key that is a name: a field of a ``ServiceValue/record(_:)`` or of a message.
struct NameKey: CodingKey {
  var stringValue: String
  var intValue: Int? { nil }
  init(_ name: String) { stringValue = name }
  init(stringValue: String) { self.stringValue = stringValue }
  init?(intValue: Int) { nil }
}
