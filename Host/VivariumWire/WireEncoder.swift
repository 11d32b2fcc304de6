/// The wire's one codec, encoding side: any `Encodable` value in a tagged
/// binary form, derived from its `Codable` conformance, the same one its
/// JSON form comes from. Each value starts with a ``WireTag`` saying what it
/// is, so a type that decodes by trying one form after another (as
/// `ArgumentValue` tries Bool, Int, Double, String) reads back what was
/// written. ``WireDecoder`` reads it.
///
/// Layout, after the tag: numbers as LEB128 varints (signed ones
/// zigzagged), doubles as their 8 bytes little-endian, strings as their
/// UTF-8 length then bytes, a keyed container as its count (4 bytes,
/// little-endian) then each key (a string) and value, a list as its count
/// (the same) then its values.
///
/// Values are written as they are encoded, into one buffer: a type must
/// finish a nested container before it goes back to the one holding it, as
/// every synthesized and hand-written `encode(to:)` does; one that goes
/// back to a container it left gets an `EncodingError`.
package enum WireEncoder {
  /// `value`'s bytes; throws what `value`'s own `encode(to:)` throws.
  package static func encode(_ value: some Encodable) throws -> [UInt8] {
    let writer = WireWriter()
    try writer.encode(value)
    writer.closeAll()
    if let misuse = writer.misuse { throw misuse }
    return writer.bytes
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

/// The buffer values are written into, and the containers open in it.
///
/// Its state is not checked for overlapping access at run time: one
/// encoding uses it, on one thread, and no code of a value's (its
/// `encode(to:)`, a key's `stringValue`) runs while one of these
/// properties is being accessed: each is read or changed in one step.
private final class WireWriter {
  @exclusivity(unchecked) var bytes: [UInt8] = []
  /// Open containers, innermost last: who opened it (a value's encoder),
  /// where its count goes, and how many entries it has.
  @exclusivity(unchecked) private var open: [(id: Int, owner: Int, countAt: Int, count: UInt32)] = []
  @exclusivity(unchecked) private var nextID = 0
  /// Why the bytes are wrong, when a nested container was asked for in a
  /// container already finished (those calls cannot throw): the encoding
  /// then throws it.
  var misuse: (any Error)?

  init() { bytes.reserveCapacity(512) }

  func newOwner() -> Int {
    nextID += 1
    return nextID
  }

  /// Opens a container for the value `owner` encodes, or gives back the
  /// one it has open.
  func openContainer(_ tag: WireTag, owner: Int) -> Int {
    if let last = open.last, last.owner == owner { return last.id }
    bytes.append(tag.rawValue)
    let countAt = bytes.count
    bytes.append(contentsOf: [0, 0, 0, 0])
    nextID += 1
    open.append((nextID, owner, countAt, 0))
    return nextID
  }

  /// Makes container `id` the innermost, closing those inside it, and
  /// counts one more entry in it.
  func entry(in id: Int) throws {
    guard let index = open.lastIndex(where: { $0.id == id }) else {
      throw EncodingError.invalidValue(
        id, .init(codingPath: [], debugDescription: "a value went back to a container it had finished"))
    }
    while open.count > index + 1 { close() }
    open[index].count += 1
  }

  private func close() {
    let last = open.removeLast()
    for index in 0..<4 { bytes[last.countAt + index] = UInt8(truncatingIfNeeded: last.count >> (8 * UInt32(index))) }
  }

  func closeAll() {
    while !open.isEmpty { close() }
  }

  func tag(_ tag: WireTag) { bytes.append(tag.rawValue) }
  func key(_ key: String) { bytes.appendString(key) }
  func null() { tag(.null) }
  func bool(_ value: Bool) { tag(value ? .true : .false) }
  func string(_ value: String) {
    tag(.string)
    bytes.appendString(value)
  }
  func double(_ value: Double) {
    tag(.double)
    var bits = value.bitPattern
    for _ in 0..<8 {
      bytes.append(UInt8(truncatingIfNeeded: bits))
      bits >>= 8
    }
  }
  func signed(_ value: Int64) {
    tag(.int)
    bytes.appendVarint(UInt64(bitPattern: (value << 1) ^ (value >> 63)))
  }
  func unsigned(_ value: UInt64) {
    tag(.unsigned)
    bytes.appendVarint(value)
  }
  func encode<T: Encodable>(_ value: T) throws {
    let owner = newOwner()
    let start = bytes.count
    try value.encode(to: ValueEncoder(self, owner: owner))
    // A type that encoded nothing at all is nothing.
    if bytes.count == start { null() }
  }
}

/// Encodes one value into a ``WireWriter``. Coding paths are not kept:
/// keeping them costs an array for every value.
private struct ValueEncoder: Encoder, SingleValueEncodingContainer {
  let writer: WireWriter
  let owner: Int
  var codingPath: [any CodingKey] { [] }
  var userInfo: [CodingUserInfoKey: Any] { [:] }

  init(_ writer: WireWriter, owner: Int) {
    self.writer = writer
    self.owner = owner
  }

  func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
    KeyedEncodingContainer(KeyedWriter<Key>(writer: writer, id: writer.openContainer(.keyed, owner: owner)))
  }

  func unkeyedContainer() -> any UnkeyedEncodingContainer {
    ListWriter(writer: writer, id: writer.openContainer(.list, owner: owner))
  }

  func singleValueContainer() -> any SingleValueEncodingContainer { self }

  mutating func encodeNil() throws { writer.null() }
  mutating func encode(_ value: Bool) throws { writer.bool(value) }
  mutating func encode(_ value: String) throws { writer.string(value) }
  mutating func encode(_ value: Double) throws { writer.double(value) }
  mutating func encode(_ value: Float) throws { writer.double(Double(value)) }
  mutating func encode(_ value: Int) throws { writer.signed(Int64(value)) }
  mutating func encode(_ value: Int8) throws { writer.signed(Int64(value)) }
  mutating func encode(_ value: Int16) throws { writer.signed(Int64(value)) }
  mutating func encode(_ value: Int32) throws { writer.signed(Int64(value)) }
  mutating func encode(_ value: Int64) throws { writer.signed(value) }
  mutating func encode(_ value: UInt) throws { writer.unsigned(UInt64(value)) }
  mutating func encode(_ value: UInt8) throws { writer.unsigned(UInt64(value)) }
  mutating func encode(_ value: UInt16) throws { writer.unsigned(UInt64(value)) }
  mutating func encode(_ value: UInt32) throws { writer.unsigned(UInt64(value)) }
  mutating func encode(_ value: UInt64) throws { writer.unsigned(value) }
  mutating func encode<T: Encodable>(_ value: T) throws { try value.encode(to: self) }
}

private struct KeyedWriter<Key: CodingKey>: KeyedEncodingContainerProtocol {
  let writer: WireWriter
  let id: Int
  var codingPath: [any CodingKey] { [] }

  /// Starts the entry for `key`: the container is made innermost and the key written.
  private func at(_ key: Key) throws -> WireWriter {
    try writer.entry(in: id)
    writer.key(key.stringValue)
    return writer
  }

  mutating func encodeNil(forKey key: Key) throws { try at(key).null() }
  mutating func encode(_ value: Bool, forKey key: Key) throws { try at(key).bool(value) }
  mutating func encode(_ value: String, forKey key: Key) throws { try at(key).string(value) }
  mutating func encode(_ value: Double, forKey key: Key) throws { try at(key).double(value) }
  mutating func encode(_ value: Float, forKey key: Key) throws { try at(key).double(Double(value)) }
  mutating func encode(_ value: Int, forKey key: Key) throws { try at(key).signed(Int64(value)) }
  mutating func encode(_ value: Int8, forKey key: Key) throws { try at(key).signed(Int64(value)) }
  mutating func encode(_ value: Int16, forKey key: Key) throws { try at(key).signed(Int64(value)) }
  mutating func encode(_ value: Int32, forKey key: Key) throws { try at(key).signed(Int64(value)) }
  mutating func encode(_ value: Int64, forKey key: Key) throws { try at(key).signed(value) }
  mutating func encode(_ value: UInt, forKey key: Key) throws { try at(key).unsigned(UInt64(value)) }
  mutating func encode(_ value: UInt8, forKey key: Key) throws { try at(key).unsigned(UInt64(value)) }
  mutating func encode(_ value: UInt16, forKey key: Key) throws { try at(key).unsigned(UInt64(value)) }
  mutating func encode(_ value: UInt32, forKey key: Key) throws { try at(key).unsigned(UInt64(value)) }
  mutating func encode(_ value: UInt64, forKey key: Key) throws { try at(key).unsigned(value) }
  mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws { try at(key).encode(value) }

  /// A nested container's entry is started at once; one that cannot be
  /// (its container was finished) makes the encoding throw.
  private func nested(_ key: Key) -> ValueEncoder {
    do { _ = try at(key) } catch { writer.misuse = writer.misuse ?? error }
    return ValueEncoder(writer, owner: writer.newOwner())
  }

  mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key)
    -> KeyedEncodingContainer<NestedKey>
  {
    nested(key).container(keyedBy: keyType)
  }

  mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
    nested(key).unkeyedContainer()
  }

  mutating func superEncoder() -> any Encoder {
    do { try writer.entry(in: id) } catch { writer.misuse = writer.misuse ?? error }
    writer.key("super")
    return ValueEncoder(writer, owner: writer.newOwner())
  }

  mutating func superEncoder(forKey key: Key) -> any Encoder { nested(key) }
}

private struct ListWriter: UnkeyedEncodingContainer {
  let writer: WireWriter
  let id: Int
  private(set) var count = 0
  var codingPath: [any CodingKey] { [] }

  init(writer: WireWriter, id: Int) {
    self.writer = writer
    self.id = id
  }

  private mutating func next() throws -> WireWriter {
    try writer.entry(in: id)
    count += 1
    return writer
  }

  mutating func encodeNil() throws { try next().null() }
  mutating func encode(_ value: Bool) throws { try next().bool(value) }
  mutating func encode(_ value: String) throws { try next().string(value) }
  mutating func encode(_ value: Double) throws { try next().double(value) }
  mutating func encode(_ value: Float) throws { try next().double(Double(value)) }
  mutating func encode(_ value: Int) throws { try next().signed(Int64(value)) }
  mutating func encode(_ value: Int8) throws { try next().signed(Int64(value)) }
  mutating func encode(_ value: Int16) throws { try next().signed(Int64(value)) }
  mutating func encode(_ value: Int32) throws { try next().signed(Int64(value)) }
  mutating func encode(_ value: Int64) throws { try next().signed(value) }
  mutating func encode(_ value: UInt) throws { try next().unsigned(UInt64(value)) }
  mutating func encode(_ value: UInt8) throws { try next().unsigned(UInt64(value)) }
  mutating func encode(_ value: UInt16) throws { try next().unsigned(UInt64(value)) }
  mutating func encode(_ value: UInt32) throws { try next().unsigned(UInt64(value)) }
  mutating func encode(_ value: UInt64) throws { try next().unsigned(value) }
  mutating func encode<T: Encodable>(_ value: T) throws { try next().encode(value) }

  private mutating func nested() -> ValueEncoder {
    do { _ = try next() } catch { writer.misuse = writer.misuse ?? error }
    return ValueEncoder(writer, owner: writer.newOwner())
  }

  mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type)
    -> KeyedEncodingContainer<NestedKey>
  {
    nested().container(keyedBy: keyType)
  }

  mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer { nested().unkeyedContainer() }
  mutating func superEncoder() -> any Encoder { nested() }
}
