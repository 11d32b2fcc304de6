// Turns ``ModuleMessage`` values into ``Message`` fields and back, and reads
// a message type's fields for its contract declaration. Only flat structs of
// String, Int, Bool and Double (or enums with those raw values) are carried.

/// The primitive a field of type `T` is carried as, if it is one.
private func argumentType(of type: Any.Type) -> ArgumentType? {
  switch type {
  case is String.Type: .string
  case is Int.Type: .int
  case is Bool.Type: .bool
  case is Double.Type: .double
  default: nil
  }
}

private func argumentValue(_ value: Any) -> ArgumentValue? {
  switch value {
  case let value as String: .string(value)
  case let value as Int: .int(value)
  case let value as Bool: .bool(value)
  case let value as Double: .double(value)
  default: nil
  }
}

private func primitive(_ value: ArgumentValue) -> Any {
  switch value {
  case .string(let value): value
  case .int(let value): value
  case .bool(let value): value
  case .double(let value): value
  }
}

private func unsupported(_ what: String, _ path: [any CodingKey]) -> DecodingError {
  .typeMismatch(Any.self, .init(codingPath: path, debugDescription: what))
}

// MARK: Encoding

/// Encodes a message value into fields; a field messages cannot carry is
/// written as a string naming its type.
struct FieldsEncoder: Encoder {
  final class Box {
    var fields: [String: ArgumentValue] = [:]
    var single: ArgumentValue?
  }

  let box = Box()
  var codingPath: [any CodingKey] = []
  var userInfo: [CodingUserInfoKey: Any] { [:] }

  static func fields<M: Encodable>(of value: M) -> [String: ArgumentValue] {
    let encoder = FieldsEncoder()
    do {
      try value.encode(to: encoder)
    } catch {
      encoder.box.fields["(unsupported)"] = .string("\(M.self)")
    }
    return encoder.box.fields
  }

  func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
    KeyedEncodingContainer(Keyed<Key>(box: box, codingPath: codingPath))
  }
  func unkeyedContainer() -> any UnkeyedEncodingContainer { Unsupported(codingPath: codingPath) }
  func singleValueContainer() -> any SingleValueEncodingContainer { Single(box: box, codingPath: codingPath) }

  private struct Keyed<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let box: Box
    var codingPath: [any CodingKey]
    mutating func encodeNil(forKey key: Key) throws {}
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
      if let primitive = argumentValue(value) {
        box.fields[key.stringValue] = primitive
        return
      }
      let inner = FieldsEncoder(codingPath: codingPath + [key])
      if (try? value.encode(to: inner)) != nil, let single = inner.box.single {
        box.fields[key.stringValue] = single
      } else {
        box.fields[key.stringValue] = .string("(unsupported \(T.self))")
      }
    }
    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key)
      -> KeyedEncodingContainer<NestedKey>
    {
      box.fields[key.stringValue] = .string("(unsupported nested value)")
      return KeyedEncodingContainer(Keyed<NestedKey>(box: Box(), codingPath: codingPath + [key]))
    }
    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
      box.fields[key.stringValue] = .string("(unsupported list)")
      return Unsupported(codingPath: codingPath + [key])
    }
    mutating func superEncoder() -> any Encoder { FieldsEncoder(codingPath: codingPath) }
    mutating func superEncoder(forKey key: Key) -> any Encoder { FieldsEncoder(codingPath: codingPath + [key]) }
  }

  private struct Single: SingleValueEncodingContainer {
    let box: Box
    var codingPath: [any CodingKey]
    mutating func encodeNil() throws {
      throw EncodingError.invalidValue((), .init(codingPath: codingPath, debugDescription: "nil"))
    }
    mutating func encode<T: Encodable>(_ value: T) throws {
      guard let primitive = argumentValue(value) else {
        throw EncodingError.invalidValue(value, .init(codingPath: codingPath, debugDescription: "not a primitive"))
      }
      box.single = primitive
    }
  }

  private struct Unsupported: UnkeyedEncodingContainer {
    var codingPath: [any CodingKey]
    var count: Int { 0 }
    mutating func encodeNil() throws {}
    mutating func encode<T: Encodable>(_ value: T) throws {}
    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type)
      -> KeyedEncodingContainer<NestedKey>
    {
      KeyedEncodingContainer(Keyed<NestedKey>(box: Box(), codingPath: codingPath))
    }
    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer { self }
    mutating func superEncoder() -> any Encoder { FieldsEncoder(codingPath: codingPath) }
  }
}

// MARK: Decoding

/// Decodes a message value from fields. With `recording`, it instead answers
/// every field with a placeholder and notes its name and type: how a message
/// type's contract declaration is read without a value.
struct FieldsDecoder: Decoder {
  final class Record {
    var fields: [String: ArgumentType] = [:]
  }

  let fields: [String: ArgumentValue]
  var recording: Record?
  var codingPath: [any CodingKey] = []
  var userInfo: [CodingUserInfoKey: Any] { [:] }
  /// The value a single-value container reads, for a raw-value enum field.
  var single: ArgumentValue?

  init(fields: [String: ArgumentValue], recording: Record? = nil) {
    self.fields = fields
    self.recording = recording
  }

  /// The fields and types of `type`, or nil when it has a field messages
  /// cannot carry.
  static func declaredFields<M: Decodable>(of type: M.Type) -> [String: ArgumentType]? {
    let record = Record()
    guard (try? M(from: FieldsDecoder(fields: [:], recording: record))) != nil else { return nil }
    return record.fields
  }

  func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
    KeyedDecodingContainer(Keyed<Key>(decoder: self))
  }
  func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
    throw unsupported("lists are not message fields", codingPath)
  }
  func singleValueContainer() throws -> any SingleValueDecodingContainer {
    guard let single else { throw unsupported("a message is a struct of fields", codingPath) }
    return Single(value: single, codingPath: codingPath)
  }

  private struct Keyed<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let decoder: FieldsDecoder
    var codingPath: [any CodingKey] { decoder.codingPath }
    var allKeys: [Key] { decoder.fields.keys.compactMap { Key(stringValue: $0) } }
    func contains(_ key: Key) -> Bool { decoder.recording != nil || decoder.fields[key.stringValue] != nil }
    func decodeNil(forKey key: Key) throws -> Bool {
      decoder.recording == nil && decoder.fields[key.stringValue] == nil
    }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
      if let record = decoder.recording {
        if let primitiveType = argumentType(of: T.self) {
          record.fields[key.stringValue] = primitiveType
          return primitive(placeholder(primitiveType)) as! T
        }
        throw unsupported("\(T.self) is not a message field type", codingPath + [key])
      }
      guard let value = decoder.fields[key.stringValue] else {
        throw DecodingError.keyNotFound(key, .init(codingPath: codingPath, debugDescription: "missing field"))
      }
      if let typed = primitive(value) as? T { return typed }
      var inner = FieldsDecoder(fields: [:])
      inner.codingPath = codingPath + [key]
      inner.single = value
      return try T(from: inner)
    }

    private func placeholder(_ type: ArgumentType) -> ArgumentValue {
      switch type {
      case .string: .string("")
      case .int: .int(0)
      case .bool: .bool(false)
      case .double: .double(0)
      }
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
      -> KeyedDecodingContainer<NestedKey>
    {
      throw unsupported("nested values are not message fields", codingPath + [key])
    }
    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
      throw unsupported("lists are not message fields", codingPath + [key])
    }
    func superDecoder() throws -> any Decoder { decoder }
    func superDecoder(forKey key: Key) throws -> any Decoder { decoder }
  }

  private struct Single: SingleValueDecodingContainer {
    let value: ArgumentValue
    var codingPath: [any CodingKey]
    func decodeNil() -> Bool { false }
    func decode<T: Decodable>(_ type: T.Type) throws -> T {
      guard let typed = primitive(value) as? T else { throw unsupported("\(value) is not \(T.self)", codingPath) }
      return typed
    }
  }
}
