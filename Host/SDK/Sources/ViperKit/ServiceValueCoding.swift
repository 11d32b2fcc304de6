// Turns any Codable value into a ServiceValue and back: the one form a
// business service's values take between plugins (ServiceValue.swift).

// MARK: Encoding

/// A container being written: filled in place, read out once the value's
/// `encode(to:)` has returned.
final class ServiceValueSlot {
  enum Content {
    case empty
    case single(ServiceValue)
    case record([String: ServiceValueSlot])
    case list([ServiceValueSlot])
  }

  var content = Content.empty

  var value: ServiceValue {
    switch content {
    case .empty: .record([:])
    case .single(let value): value
    case .record(let fields): .record(fields.mapValues(\.value))
    case .list(let values): .list(values.map(\.value))
    }
  }
}

/// The encoder behind ``ServiceValue/init(encoding:)``.
struct ServiceValueEncoder: Encoder {
  let slot: ServiceValueSlot
  var codingPath: [any CodingKey]
  var userInfo: [CodingUserInfoKey: Any] { [:] }

  static func encode(_ value: some Encodable) throws -> ServiceValue {
    let slot = ServiceValueSlot()
    try ServiceValueEncoder(slot: slot, codingPath: []).encodeValue(value)
    let encoded = slot.value
    guard encoded.depth <= ServiceValue.depthLimit else {
      throw EncodingError.invalidValue(
        value,
        .init(codingPath: [], debugDescription: "it nests deeper than \(ServiceValue.depthLimit) levels"))
    }
    return encoded
  }

  /// Writes `value` into this encoder's slot: its primitive form when it
  /// has one, else whatever its `encode(to:)` writes.
  func encodeValue(_ value: some Encodable) throws {
    if let primitive = try ServiceValueEncoder.primitive(value, codingPath) {
      slot.content = .single(primitive)
    } else {
      try value.encode(to: self)
    }
  }

  /// `value` as a leaf, when it is a number, string or Boolean.
  static func primitive(_ value: some Encodable, _ path: [any CodingKey]) throws -> ServiceValue? {
    switch value {
    case let value as String: return .string(value)
    case let value as Bool: return .bool(value)
    case let value as Int: return .int(value)
    case let value as Double: return .double(value)
    case let value as Float: return .double(Double(value))
    case let value as any BinaryInteger:
      guard let int = Int(exactly: value) else {
        throw EncodingError.invalidValue(
          value, .init(codingPath: path, debugDescription: "\(value) does not fit in Int"))
      }
      return .int(int)
    default: return nil
    }
  }

  func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
    if case .record = slot.content {} else { slot.content = .record([:]) }
    return KeyedEncodingContainer(KeyedWriter(slot: slot, codingPath: codingPath))
  }

  func unkeyedContainer() -> any UnkeyedEncodingContainer {
    if case .list = slot.content {} else { slot.content = .list([]) }
    return ListWriter(slot: slot, codingPath: codingPath)
  }

  func singleValueContainer() -> any SingleValueEncodingContainer { SingleWriter(slot: slot, codingPath: codingPath) }

  private struct KeyedWriter<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let slot: ServiceValueSlot
    var codingPath: [any CodingKey]

    private func child(_ key: Key) -> ServiceValueSlot { child(named: key.stringValue) }

    private func child(named name: String) -> ServiceValueSlot {
      let child = ServiceValueSlot()
      if case .record(var fields) = slot.content {
        fields[name] = child
        slot.content = .record(fields)
      }
      return child
    }

    mutating func encodeNil(forKey key: Key) throws { child(key).content = .single(.null) }
    mutating func encode(_ value: some Encodable, forKey key: Key) throws {
      try ServiceValueEncoder(slot: child(key), codingPath: codingPath + [key]).encodeValue(value)
    }
    mutating func nestedContainer<NestedKey: CodingKey>(
      keyedBy keyType: NestedKey.Type, forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
      ServiceValueEncoder(slot: child(key), codingPath: codingPath + [key]).container(keyedBy: keyType)
    }
    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
      ServiceValueEncoder(slot: child(key), codingPath: codingPath + [key]).unkeyedContainer()
    }
    // A class's superclass encodes under `super`, which its own keys need not have.
    mutating func superEncoder() -> any Encoder {
      ServiceValueEncoder(slot: child(named: "super"), codingPath: codingPath + [NameKey("super")])
    }
    mutating func superEncoder(forKey key: Key) -> any Encoder {
      ServiceValueEncoder(slot: child(key), codingPath: codingPath + [key])
    }
  }

  private struct ListWriter: UnkeyedEncodingContainer {
    let slot: ServiceValueSlot
    var codingPath: [any CodingKey]
    var count: Int {
      if case .list(let values) = slot.content { return values.count }
      return 0
    }

    private func next() -> (ServiceValueSlot, [any CodingKey]) {
      let child = ServiceValueSlot()
      let path = codingPath + [ServiceValueIndex(count)]
      if case .list(var values) = slot.content {
        values.append(child)
        slot.content = .list(values)
      }
      return (child, path)
    }

    mutating func encodeNil() throws { next().0.content = .single(.null) }
    mutating func encode(_ value: some Encodable) throws {
      let (child, path) = next()
      try ServiceValueEncoder(slot: child, codingPath: path).encodeValue(value)
    }
    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<
      NestedKey
    > {
      let (child, path) = next()
      return ServiceValueEncoder(slot: child, codingPath: path).container(keyedBy: keyType)
    }
    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
      let (child, path) = next()
      return ServiceValueEncoder(slot: child, codingPath: path).unkeyedContainer()
    }
    mutating func superEncoder() -> any Encoder {
      let (child, path) = next()
      return ServiceValueEncoder(slot: child, codingPath: path)
    }
  }

  private struct SingleWriter: SingleValueEncodingContainer {
    let slot: ServiceValueSlot
    var codingPath: [any CodingKey]
    mutating func encodeNil() throws { slot.content = .single(.null) }
    mutating func encode(_ value: some Encodable) throws {
      try ServiceValueEncoder(slot: slot, codingPath: codingPath).encodeValue(value)
    }
  }
}

/// A position in a ``ServiceValue/list(_:)``, in a coding path.
struct ServiceValueIndex: CodingKey {
  var intValue: Int?
  var stringValue: String { "[\(intValue ?? 0)]" }
  init(_ index: Int) { intValue = index }
  init?(stringValue: String) { nil }
  init?(intValue: Int) { self.intValue = intValue }
}

// MARK: Decoding

/// The decoder behind ``ServiceValue/decode(as:)``.
struct ServiceValueDecoder: Decoder {
  let value: ServiceValue
  var codingPath: [any CodingKey]
  var userInfo: [CodingUserInfoKey: Any] { [:] }

  init(_ value: ServiceValue, codingPath: [any CodingKey]) {
    self.value = value
    self.codingPath = codingPath
  }

  /// `value` as a `T`: a leaf read directly, anything else through its `init(from:)`.
  static func decode<T: Decodable>(_ type: T.Type, from value: ServiceValue, at path: [any CodingKey]) throws -> T {
    func mismatch(_ expected: String) -> DecodingError {
      .typeMismatch(T.self, .init(codingPath: path, debugDescription: "expected \(expected), found \(value.kind)"))
    }
    switch type {
    case is String.Type:
      guard case .string(let string) = value else { throw mismatch("a string") }
      return string as! T
    case is Bool.Type:
      guard case .bool(let flag) = value else { throw mismatch("a Boolean") }
      return flag as! T
    case is Double.Type, is Float.Type:
      let number: Double
      switch value {
      case .double(let double): number = double
      case .int(let int): number = Double(int)
      default: throw mismatch("a number")
      }
      return (type is Float.Type ? Float(number) as Any : number as Any) as! T
    case let integer as any BinaryInteger.Type:
      guard case .int(let int) = value else { throw mismatch("an integer") }
      guard let fitted = integer.init(exactly: int) else { throw mismatch("an integer in range of \(T.self)") }
      return fitted as! T
    default:
      return try T(from: ServiceValueDecoder(value, codingPath: path))
    }
  }

  func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
    guard case .record(let fields) = value else {
      throw DecodingError.typeMismatch(
        [String: ServiceValue].self,
        .init(codingPath: codingPath, debugDescription: "expected a record, found \(value.kind)"))
    }
    return KeyedDecodingContainer(KeyedReader(fields: fields, codingPath: codingPath))
  }

  func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
    guard case .list(let values) = value else {
      throw DecodingError.typeMismatch(
        [ServiceValue].self, .init(codingPath: codingPath, debugDescription: "expected a list, found \(value.kind)"))
    }
    return ListReader(values: values, codingPath: codingPath)
  }

  func singleValueContainer() throws -> any SingleValueDecodingContainer { SingleReader(decoder: self) }

  private struct KeyedReader<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let fields: [String: ServiceValue]
    var codingPath: [any CodingKey]
    var allKeys: [Key] { fields.keys.compactMap { Key(stringValue: $0) } }

    func contains(_ key: Key) -> Bool { fields[key.stringValue] != nil }

    private func field(_ key: Key) throws -> ServiceValue {
      guard let value = fields[key.stringValue] else {
        throw DecodingError.keyNotFound(
          key, .init(codingPath: codingPath, debugDescription: "no field '\(key.stringValue)'"))
      }
      return value
    }

    func decodeNil(forKey key: Key) throws -> Bool { (fields[key.stringValue] ?? .null) == .null }
    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
      try ServiceValueDecoder.decode(type, from: field(key), at: codingPath + [key])
    }
    func nestedContainer<NestedKey: CodingKey>(
      keyedBy type: NestedKey.Type, forKey key: Key
    ) throws -> KeyedDecodingContainer<NestedKey> {
      try ServiceValueDecoder(field(key), codingPath: codingPath + [key]).container(keyedBy: type)
    }
    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
      try ServiceValueDecoder(field(key), codingPath: codingPath + [key]).unkeyedContainer()
    }
    func superDecoder() throws -> any Decoder {
      ServiceValueDecoder(fields["super"] ?? .null, codingPath: codingPath)
    }
    func superDecoder(forKey key: Key) throws -> any Decoder {
      ServiceValueDecoder(fields[key.stringValue] ?? .null, codingPath: codingPath + [key])
    }
  }

  private struct ListReader: UnkeyedDecodingContainer {
    let values: [ServiceValue]
    var codingPath: [any CodingKey]
    var currentIndex = 0
    var count: Int? { values.count }
    var isAtEnd: Bool { currentIndex >= values.count }

    init(values: [ServiceValue], codingPath: [any CodingKey]) {
      self.values = values
      self.codingPath = codingPath
    }

    private mutating func next() throws -> (ServiceValue, [any CodingKey]) {
      let path = codingPath + [ServiceValueIndex(currentIndex)]
      guard !isAtEnd else {
        throw DecodingError.valueNotFound(
          ServiceValue.self, .init(codingPath: path, debugDescription: "the list has \(values.count) values"))
      }
      defer { currentIndex += 1 }
      return (values[currentIndex], path)
    }

    mutating func decodeNil() throws -> Bool {
      guard !isAtEnd, values[currentIndex] == .null else { return false }
      currentIndex += 1
      return true
    }
    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
      let (value, path) = try next()
      return try ServiceValueDecoder.decode(type, from: value, at: path)
    }
    mutating func nestedContainer<NestedKey: CodingKey>(
      keyedBy type: NestedKey.Type
    ) throws -> KeyedDecodingContainer<NestedKey> {
      let (value, path) = try next()
      return try ServiceValueDecoder(value, codingPath: path).container(keyedBy: type)
    }
    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
      let (value, path) = try next()
      return try ServiceValueDecoder(value, codingPath: path).unkeyedContainer()
    }
    mutating func superDecoder() throws -> any Decoder {
      let (value, path) = try next()
      return ServiceValueDecoder(value, codingPath: path)
    }
  }

  private struct SingleReader: SingleValueDecodingContainer {
    let decoder: ServiceValueDecoder
    var codingPath: [any CodingKey] { decoder.codingPath }
    func decodeNil() -> Bool { decoder.value == .null }
    func decode<T: Decodable>(_ type: T.Type) throws -> T {
      try ServiceValueDecoder.decode(type, from: decoder.value, at: codingPath)
    }
  }
}
