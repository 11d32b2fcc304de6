import Foundation

/// A JSON value, Sendable, as the DevTools protocol's messages carry them:
/// written as literals in the tests' commands, read with subscripts.
enum JSONValue: Sendable, Equatable, Codable {
  /// `null`.
  case null
  /// `true` or `false`.
  case bool(Bool)
  /// A number.
  case number(Double)
  /// A string.
  case string(String)
  /// An array.
  case array([JSONValue])
  /// An object.
  case object([String: JSONValue])

  /// Decodes whichever JSON value comes.
  init(from decoder: any Decoder) throws {
    let container = try decoder.singleValueContainer()
    if container.decodeNil() {
      self = .null
    } else if let value = try? container.decode(Bool.self) {
      self = .bool(value)
    } else if let value = try? container.decode(Double.self) {
      self = .number(value)
    } else if let value = try? container.decode(String.self) {
      self = .string(value)
    } else if let value = try? container.decode([JSONValue].self) {
      self = .array(value)
    } else {
      self = .object(try container.decode([String: JSONValue].self))
    }
  }

  /// Encodes the value as the JSON it is.
  func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    switch self {
    case .null: try container.encodeNil()
    case .bool(let value): try container.encode(value)
    case .number(let value): try container.encode(value)
    case .string(let value): try container.encode(value)
    case .array(let value): try container.encode(value)
    case .object(let value): try container.encode(value)
    }
  }

  /// The member `key` of an object; nil for anything else or a missing key.
  subscript(key: String) -> JSONValue? {
    guard case .object(let members) = self else { return nil }
    return members[key]
  }

  /// The element at `index` of an array; nil for anything else or out of range.
  subscript(index: Int) -> JSONValue? {
    guard case .array(let elements) = self, elements.indices.contains(index) else { return nil }
    return elements[index]
  }

  /// The string, if this is one.
  var string: String? {
    guard case .string(let value) = self else { return nil }
    return value
  }

  /// The number, if this is one.
  var number: Double? {
    guard case .number(let value) = self else { return nil }
    return value
  }

  /// The Boolean, if this is one.
  var bool: Bool? {
    guard case .bool(let value) = self else { return nil }
    return value
  }

  /// The elements, if this is an array; empty otherwise.
  var elements: [JSONValue] {
    guard case .array(let value) = self else { return [] }
    return value
  }

  /// The value as compact JSON text, for messages and failures.
  var text: String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    return (try? encoder.encode(self)).map { String(decoding: $0, as: UTF8.self) } ?? "\(self)"
  }
}

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
  ExpressibleByBooleanLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral, ExpressibleByNilLiteral
{
  /// A string, written as a literal.
  init(stringLiteral value: String) { self = .string(value) }
  /// A number, written as an integer literal.
  init(integerLiteral value: Int) { self = .number(Double(value)) }
  /// A number, written as a floating-point literal.
  init(floatLiteral value: Double) { self = .number(value) }
  /// A Boolean, written as a literal.
  init(booleanLiteral value: Bool) { self = .bool(value) }
  /// An array, written as a literal.
  init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
  /// `null`, written as `nil`.
  init(nilLiteral: ()) { self = .null }
  /// An object, written as a dictionary literal (a repeated key: the last wins).
  init(dictionaryLiteral elements: (String, JSONValue)...) {
    self = .object(Dictionary(elements) { _, last in last })
  }
}
