/// The wire's one codec, encoding side: any `Encodable` value in a tagged
/// binary form, derived from its `Codable` conformance, the same one its
/// JSON form comes from. Each value starts with a ``WireTag`` saying what it
/// is, so a type that decodes by trying one form after another (as
/// `ArgumentValue` tries Bool, Int, Double, String) reads back what was
/// written. ``WireDecoder`` reads it.
///
/// Layout, after the tag: numbers as LEB128 varints (signed ones
/// zigzagged), doubles as their 8 bytes little-endian, strings as their
/// UTF-8 length then bytes, a keyed container as its count then each key (a
/// string) and value, a list as its count then its values.
package enum WireEncoder {
  /// `value`'s bytes; throws only what `value`'s own `encode(to:)` throws.
  package static func encode(_ value: some Encodable) throws -> [UInt8] {
    let root = EncodedValue()
    try value.encode(to: ValueEncoder(root))
    var bytes: [UInt8] = []
    bytes.reserveCapacity(256)
    root.write(into: &bytes)
    return bytes
  }
}

/// What each value on the wire is: its first byte.
enum WireTag: UInt8 {
  case null = 0
  case `false` = 1
  case `true` = 2
  /// A signed number, zigzagged.
  case int = 3
  /// An unsigned number.
  case unsigned = 4
  case double = 5
  case string = 6
  /// Keys and values.
  case keyed = 7
  /// Values in order.
  case list = 8
}

/// Appends varints, doubles and strings to bytes.
extension Array where Element == UInt8 {
  mutating func appendVarint(_ value: UInt64) {
    var rest = value
    while rest >= 0x80 {
      append(UInt8(truncatingIfNeeded: rest) | 0x80)
      rest >>= 7
    }
    append(UInt8(rest))
  }

  mutating func appendString(_ value: String) {
    var value = value
    value.withUTF8 { utf8 in
      appendVarint(UInt64(utf8.count))
      append(contentsOf: utf8)
    }
  }
}

/// One value being encoded: a scalar's bytes, or a container's children.
private final class EncodedValue {
  enum Content {
    case unset
    case scalar([UInt8])
    case keyed(keys: [String], values: [EncodedValue])
    case list([EncodedValue])
  }
  var content = Content.unset

  func write(into bytes: inout [UInt8]) {
    switch content {
    case .unset: bytes.append(WireTag.null.rawValue)
    case .scalar(let scalar): bytes.append(contentsOf: scalar)
    case .keyed(let keys, let values):
      bytes.append(WireTag.keyed.rawValue)
      bytes.appendVarint(UInt64(keys.count))
      for (key, value) in zip(keys, values) {
        bytes.appendString(key)
        value.write(into: &bytes)
      }
    case .list(let values):
      bytes.append(WireTag.list.rawValue)
      bytes.appendVarint(UInt64(values.count))
      for value in values { value.write(into: &bytes) }
    }
  }

  /// A child under `key`, replacing one already there in a container of a
  /// few keys (a type's fields; the keys of a dictionary are unique).
  func child(forKey key: String) -> EncodedValue {
    let child = EncodedValue()
    guard case .keyed(var keys, var values) = content else {
      content = .keyed(keys: [key], values: [child])
      return child
    }
    content = .unset
    if keys.count <= 16, let index = keys.firstIndex(of: key) {
      values[index] = child
    } else {
      keys.append(key)
      values.append(child)
    }
    content = .keyed(keys: keys, values: values)
    return child
  }

  /// A new last child of a list.
  func appended() -> EncodedValue {
    let child = EncodedValue()
    guard case .list(var values) = content else {
      content = .list([child])
      return child
    }
    content = .unset
    values.append(child)
    content = .list(values)
    return child
  }

  var count: Int {
    switch content {
    case .list(let values): values.count
    case .keyed(let keys, _): keys.count
    default: 0
    }
  }

  static func scalar(_ tag: WireTag, _ body: (inout [UInt8]) -> Void = { _ in }) -> Content {
    var bytes = [tag.rawValue]
    body(&bytes)
    return .scalar(bytes)
  }

  func setNil() { content = .scalar([WireTag.null.rawValue]) }
  func set(_ value: Bool) { content = .scalar([(value ? WireTag.true : WireTag.false).rawValue]) }
  func set(_ value: String) { content = Self.scalar(.string) { $0.appendString(value) } }
  func set(_ value: Double) {
    content = Self.scalar(.double) { bytes in
      var bits = value.bitPattern
      for _ in 0..<8 {
        bytes.append(UInt8(truncatingIfNeeded: bits))
        bits >>= 8
      }
    }
  }
  func set(signed value: Int64) {
    content = Self.scalar(.int) { $0.appendVarint(UInt64(bitPattern: (value << 1) ^ (value >> 63))) }
  }
  func set(unsigned value: UInt64) { content = Self.scalar(.unsigned) { $0.appendVarint(value) } }

  /// Encodes `value` here: scalars directly, anything else through its `encode(to:)`.
  func set<T: Encodable>(_ value: T) throws {
    try value.encode(to: ValueEncoder(self))
  }
}

/// Encodes into an ``EncodedValue``. Coding paths are not kept: nothing
/// here fails, and keeping them costs an array for every value.
private struct ValueEncoder: Encoder, SingleValueEncodingContainer {
  let value: EncodedValue
  var codingPath: [any CodingKey] { [] }
  var userInfo: [CodingUserInfoKey: Any] { [:] }

  init(_ value: EncodedValue) {
    self.value = value
  }

  func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
    if case .keyed = value.content {} else { value.content = .keyed(keys: [], values: []) }
    return KeyedEncodingContainer(KeyedWriter<Key>(value: value))
  }

  func unkeyedContainer() -> any UnkeyedEncodingContainer {
    if case .list = value.content {} else { value.content = .list([]) }
    return ListWriter(value: value)
  }

  func singleValueContainer() -> any SingleValueEncodingContainer { self }

  mutating func encodeNil() throws { value.setNil() }
  mutating func encode(_ value: Bool) throws { self.value.set(value) }
  mutating func encode(_ value: String) throws { self.value.set(value) }
  mutating func encode(_ value: Double) throws { self.value.set(value) }
  mutating func encode(_ value: Float) throws { self.value.set(Double(value)) }
  mutating func encode(_ value: Int) throws { self.value.set(signed: Int64(value)) }
  mutating func encode(_ value: Int8) throws { self.value.set(signed: Int64(value)) }
  mutating func encode(_ value: Int16) throws { self.value.set(signed: Int64(value)) }
  mutating func encode(_ value: Int32) throws { self.value.set(signed: Int64(value)) }
  mutating func encode(_ value: Int64) throws { self.value.set(signed: value) }
  mutating func encode(_ value: UInt) throws { self.value.set(unsigned: UInt64(value)) }
  mutating func encode(_ value: UInt8) throws { self.value.set(unsigned: UInt64(value)) }
  mutating func encode(_ value: UInt16) throws { self.value.set(unsigned: UInt64(value)) }
  mutating func encode(_ value: UInt32) throws { self.value.set(unsigned: UInt64(value)) }
  mutating func encode(_ value: UInt64) throws { self.value.set(unsigned: value) }
  mutating func encode<T: Encodable>(_ value: T) throws { try self.value.set(value) }
}

private struct KeyedWriter<Key: CodingKey>: KeyedEncodingContainerProtocol {
  let value: EncodedValue
  var codingPath: [any CodingKey] { [] }

  private func child(_ key: Key) -> EncodedValue { value.child(forKey: key.stringValue) }

  mutating func encodeNil(forKey key: Key) throws { child(key).setNil() }
  mutating func encode(_ value: Bool, forKey key: Key) throws { child(key).set(value) }
  mutating func encode(_ value: String, forKey key: Key) throws { child(key).set(value) }
  mutating func encode(_ value: Double, forKey key: Key) throws { child(key).set(value) }
  mutating func encode(_ value: Float, forKey key: Key) throws { child(key).set(Double(value)) }
  mutating func encode(_ value: Int, forKey key: Key) throws { child(key).set(signed: Int64(value)) }
  mutating func encode(_ value: Int8, forKey key: Key) throws { child(key).set(signed: Int64(value)) }
  mutating func encode(_ value: Int16, forKey key: Key) throws { child(key).set(signed: Int64(value)) }
  mutating func encode(_ value: Int32, forKey key: Key) throws { child(key).set(signed: Int64(value)) }
  mutating func encode(_ value: Int64, forKey key: Key) throws { child(key).set(signed: value) }
  mutating func encode(_ value: UInt, forKey key: Key) throws { child(key).set(unsigned: UInt64(value)) }
  mutating func encode(_ value: UInt8, forKey key: Key) throws { child(key).set(unsigned: UInt64(value)) }
  mutating func encode(_ value: UInt16, forKey key: Key) throws { child(key).set(unsigned: UInt64(value)) }
  mutating func encode(_ value: UInt32, forKey key: Key) throws { child(key).set(unsigned: UInt64(value)) }
  mutating func encode(_ value: UInt64, forKey key: Key) throws { child(key).set(unsigned: value) }
  mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
    try child(key).set(value)
  }

  mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key)
    -> KeyedEncodingContainer<NestedKey>
  {
    ValueEncoder(child(key)).container(keyedBy: keyType)
  }

  mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
    ValueEncoder(child(key)).unkeyedContainer()
  }

  mutating func superEncoder() -> any Encoder {
    ValueEncoder(value.child(forKey: "super"))
  }

  mutating func superEncoder(forKey key: Key) -> any Encoder { ValueEncoder(child(key)) }
}

private struct ListWriter: UnkeyedEncodingContainer {
  let value: EncodedValue
  var codingPath: [any CodingKey] { [] }
  var count: Int { value.count }

  private func next() -> EncodedValue { value.appended() }

  mutating func encodeNil() throws { next().setNil() }
  mutating func encode(_ value: Bool) throws { next().set(value) }
  mutating func encode(_ value: String) throws { next().set(value) }
  mutating func encode(_ value: Double) throws { next().set(value) }
  mutating func encode(_ value: Float) throws { next().set(Double(value)) }
  mutating func encode(_ value: Int) throws { next().set(signed: Int64(value)) }
  mutating func encode(_ value: Int8) throws { next().set(signed: Int64(value)) }
  mutating func encode(_ value: Int16) throws { next().set(signed: Int64(value)) }
  mutating func encode(_ value: Int32) throws { next().set(signed: Int64(value)) }
  mutating func encode(_ value: Int64) throws { next().set(signed: value) }
  mutating func encode(_ value: UInt) throws { next().set(unsigned: UInt64(value)) }
  mutating func encode(_ value: UInt8) throws { next().set(unsigned: UInt64(value)) }
  mutating func encode(_ value: UInt16) throws { next().set(unsigned: UInt64(value)) }
  mutating func encode(_ value: UInt32) throws { next().set(unsigned: UInt64(value)) }
  mutating func encode(_ value: UInt64) throws { next().set(unsigned: value) }
  mutating func encode<T: Encodable>(_ value: T) throws { try next().set(value) }

  mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type)
    -> KeyedEncodingContainer<NestedKey>
  {
    ValueEncoder(next()).container(keyedBy: keyType)
  }

  mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
    ValueEncoder(next()).unkeyedContainer()
  }

  mutating func superEncoder() -> any Encoder { ValueEncoder(next()) }
}
