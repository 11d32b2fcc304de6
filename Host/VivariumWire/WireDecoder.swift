/// The wire's one codec, decoding side: reads what ``WireEncoder`` wrote
/// into any `Decodable` type. The bytes are first checked whole
/// (``WireValue``); the type then decodes from them in place, as strictly
/// as it says: a number is never read as a flag, nor a signed number as an
/// unsigned one.
package enum WireDecoder {
  /// The `T` that `bytes` hold, all of them; throws a ``WireError`` saying
  /// what is wrong for anything else.
  package static func decode<T: Decodable>(_ type: T.Type, from bytes: [UInt8]) throws(WireError) -> T {
    try decode(type, from: try WireValue(checking: bytes))
  }

  /// The `T` that `value` holds: one value may be read as more than one type.
  package static func decode<T: Decodable>(_ type: T.Type, from value: WireValue) throws(WireError) -> T {
    do {
      return try T(from: PlaceDecoder(value, WirePlace(offset: 0, firstContainer: 0)))
    } catch let error as WireError {
      throw error
    } catch let error as DecodingError {
      throw WireError(decoding: error)
    } catch {
      throw WireError(.mismatch, "it is not a \(T.self): \(error)")
    }
  }
}

/// Why bytes could not be decoded: ``kind`` is stable, for tests and
/// programs; the description says what is wrong, for people.
package struct WireError: Error, Equatable, CustomStringConvertible {
  /// What is wrong, as a stable name.
  package enum Kind: String, Sendable {
    /// The bytes end in the middle of a value.
    case truncated
    /// A count is more than the bytes left could hold.
    case countTooLarge
    /// A varint runs past 64 bits.
    case numberTooLong
    /// A string is not valid UTF-8.
    case notUTF8
    /// Containers are nested deeper than ``WireProtocol/depthLimit``.
    case tooDeep
    /// A tag is not one of ``WireTag``.
    case unknownTag
    /// A key appears twice in one container.
    case duplicateKey
    /// Bytes follow the value.
    case leftOver
    /// The value is not what its type reads (a field missing, of another kind, or out of range).
    case mismatch
    /// A frame's length is over ``WireProtocol/frameLimit``.
    case frameTooLarge
    /// A message's frames come to more than ``WireProtocol/messageLimit``.
    case messageTooLarge
    /// A peer sent messages faster than they could be taken.
    case flood
  }

  /// What is wrong, as a stable name.
  package let kind: Kind
  /// What is wrong, for people.
  package let description: String

  /// An error of `kind` saying `description`.
  package init(_ kind: Kind, _ description: String) {
    self.kind = kind
    self.description = description
  }

  /// A `DecodingError`, with where in the value it happened.
  init(decoding error: DecodingError) {
    func at(_ context: DecodingError.Context) -> String {
      let path = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
      return (path.isEmpty ? "" : " at \(path)") + ": \(context.debugDescription)"
    }
    switch error {
    case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
      self.init(.mismatch, "the value is not what its type reads\(at(context))")
    case .keyNotFound(let key, let context):
      self.init(.mismatch, "the value has no '\(key.stringValue)'\(at(context))")
    @unknown default:
      self.init(.mismatch, "the value is not what its type reads: \(error)")
    }
  }
}

extension WireTag {
  /// What a value of this tag is, for errors.
  var kind: String {
    switch self {
    case .null: "nothing"
    case .false, .true: "a flag"
    case .int: "a signed number"
    case .unsigned: "an unsigned number"
    case .double: "a double"
    case .string: "a string"
    case .keyed: "keyed values"
    case .list: "a list"
    }
  }
}

/// Decodes a type from the value at one place in checked bytes. Coding
/// paths are not kept (an error says what was expected and found, not
/// where): keeping them costs an array for every field.
private struct PlaceDecoder: Decoder, SingleValueDecodingContainer {
  let value: WireValue
  let place: WirePlace
  var codingPath: [any CodingKey] { [] }
  var userInfo: [CodingUserInfoKey: Any] { [:] }

  init(_ value: WireValue, _ place: WirePlace) {
    self.value = value
    self.place = place
  }

  private var tag: WireTag { value.tag(at: place) }

  func mismatch<T>(_ type: T.Type) -> DecodingError {
    .typeMismatch(type, .init(codingPath: codingPath, debugDescription: "expected \(type), found \(tag.kind)"))
  }

  func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
    guard tag == .keyed else { throw mismatch([String: Any].self) }
    return KeyedDecodingContainer(KeyedReader<Key>(value, value.entries(of: place)))
  }

  func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
    guard tag == .list else { throw mismatch([Any].self) }
    return ListReader(value, value.entries(of: place))
  }

  func singleValueContainer() throws -> any SingleValueDecodingContainer { self }

  func decodeNil() -> Bool { tag == .null }

  func decode(_ type: Bool.Type) throws -> Bool {
    switch tag {
    case .true: return true
    case .false: return false
    default: throw mismatch(type)
    }
  }

  func decode(_ type: String.Type) throws -> String {
    guard tag == .string else { throw mismatch(type) }
    return value.string(value.stringBytes(at: place.offset + 1))
  }

  private var bits: UInt64 {
    (0..<8).reduce(0) { $0 | UInt64(value.bytes[place.offset + 1 + $1]) << (8 * UInt64($1)) }
  }

  func decode(_ type: Double.Type) throws -> Double {
    guard tag == .double else { throw mismatch(type) }
    return Double(bitPattern: bits)
  }

  func decode(_ type: Float.Type) throws -> Float {
    let wide = try decode(Double.self)
    guard let narrow = Float(exactly: wide) ?? (wide.isNaN ? .nan : nil) else { throw mismatch(type) }
    return narrow
  }

  private func signed<T: FixedWidthInteger & SignedInteger>(_ type: T.Type) throws -> T {
    guard tag == .int else { throw mismatch(type) }
    let zigzag = value.varint(at: place.offset + 1).value
    guard let narrow = T(exactly: Int64(bitPattern: (zigzag >> 1) ^ (0 &- (zigzag & 1)))) else {
      throw mismatch(type)
    }
    return narrow
  }

  private func unsigned<T: FixedWidthInteger & UnsignedInteger>(_ type: T.Type) throws -> T {
    guard tag == .unsigned, let narrow = T(exactly: value.varint(at: place.offset + 1).value) else {
      throw mismatch(type)
    }
    return narrow
  }

  func decode(_ type: Int.Type) throws -> Int { try signed(type) }
  func decode(_ type: Int8.Type) throws -> Int8 { try signed(type) }
  func decode(_ type: Int16.Type) throws -> Int16 { try signed(type) }
  func decode(_ type: Int32.Type) throws -> Int32 { try signed(type) }
  func decode(_ type: Int64.Type) throws -> Int64 { try signed(type) }
  func decode(_ type: UInt.Type) throws -> UInt { try unsigned(type) }
  func decode(_ type: UInt8.Type) throws -> UInt8 { try unsigned(type) }
  func decode(_ type: UInt16.Type) throws -> UInt16 { try unsigned(type) }
  func decode(_ type: UInt32.Type) throws -> UInt32 { try unsigned(type) }
  func decode(_ type: UInt64.Type) throws -> UInt64 { try unsigned(type) }
  func decode<T: Decodable>(_ type: T.Type) throws -> T { try T(from: self) }
}

/// A keyed container's entries, read in place: a key is found by reading
/// the keys before it, comparing bytes; in a container of more than 16
/// keys, or one with a key that is not ASCII (compared as strings), from an
/// index made once.
private struct KeyedReader<Key: CodingKey>: KeyedDecodingContainerProtocol {
  let value: WireValue
  let count: Int
  let first: WirePlace
  /// Each key's value, for a large container or one with a key that is not ASCII.
  let index: [String: WirePlace]?
  var codingPath: [any CodingKey] { [] }

  init(_ value: WireValue, _ entries: (count: Int, first: WirePlace)) {
    self.value = value
    (count, first) = entries
    if count > 16 || value.containers[entries.first.firstContainer - 1].hasNonASCIIKeys {
      var index: [String: WirePlace] = [:]
      index.reserveCapacity(count)
      Self.forEachEntry(value, entries) { key, place in
        index[value.string(key)] = place
        return false
      }
      self.index = index
    } else {
      index = nil
    }
  }

  /// Calls `body` with each entry's key (its UTF-8) and value until it returns true.
  private static func forEachEntry(
    _ value: WireValue, _ entries: (count: Int, first: WirePlace), _ body: (Range<Int>, WirePlace) -> Bool
  ) {
    var place = entries.first
    for _ in 0..<entries.count {
      let key = value.stringBytes(at: place.offset)
      let entry = WirePlace(offset: key.upperBound, firstContainer: place.firstContainer)
      if body(key, entry) { return }
      place = value.after(entry)
    }
  }

  /// Where the value of `key` starts, if the container has it.
  private func place(of key: Key) -> WirePlace? { place(named: key.stringValue) }

  private func place(named key: String) -> WirePlace? {
    if let index { return index[key] }
    var name = key
    var found: WirePlace?
    // The bytes first; then, only where the name is not ASCII, as strings
    // (a container with a key that is not ASCII has an index).
    name.withUTF8 { wanted in
      Self.forEachEntry(value, (count, first)) { entryKey, place in
        guard value.key(entryKey, hasBytes: wanted) else { return false }
        found = place
        return true
      }
    }
    guard found == nil, !key.utf8.allSatisfy({ $0 < 0x80 }) else { return found }
    Self.forEachEntry(value, (count, first)) { entryKey, place in
      guard value.string(entryKey) == key else { return false }
      found = place
      return true
    }
    return found
  }

  var allKeys: [Key] {
    var keys: [Key] = []
    Self.forEachEntry(value, (count, first)) { key, _ in
      if let key = Key(stringValue: value.string(key)) { keys.append(key) }
      return false
    }
    return keys
  }

  func contains(_ key: Key) -> Bool { place(of: key) != nil }

  private func decoder(_ key: Key) throws -> PlaceDecoder {
    guard let place = place(of: key) else {
      throw DecodingError.keyNotFound(
        key, .init(codingPath: codingPath, debugDescription: "no value for '\(key.stringValue)'"))
    }
    return PlaceDecoder(value, place)
  }

  func decodeNil(forKey key: Key) throws -> Bool { try decoder(key).decodeNil() }
  /// One lookup, where the default asks whether the key is there, then
  /// whether it holds nothing, then for its value.
  func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
    guard let place = place(of: key), value.tag(at: place) != .null else { return nil }
    return try PlaceDecoder(value, place).decode(type)
  }
  func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? {
    guard let place = place(of: key), value.tag(at: place) != .null else { return nil }
    return try PlaceDecoder(value, place).decode(type)
  }
  func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T { try decoder(key).decode(type) }
  func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try decoder(key).decode(type) }
  func decode(_ type: String.Type, forKey key: Key) throws -> String { try decoder(key).decode(type) }
  func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try decoder(key).decode(type) }
  func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try decoder(key).decode(type) }
  func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try decoder(key).decode(type) }

  func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
    -> KeyedDecodingContainer<NestedKey>
  {
    try decoder(key).container(keyedBy: type)
  }

  func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
    try decoder(key).unkeyedContainer()
  }

  func superDecoder() throws -> any Decoder {
    place(named: "super").map { PlaceDecoder(value, $0) }
      ?? PlaceDecoder(.null, WirePlace(offset: 0, firstContainer: 0))
  }

  func superDecoder(forKey key: Key) throws -> any Decoder { try decoder(key) }
}

/// A list's values, read in place, in order.
private struct ListReader: UnkeyedDecodingContainer {
  let value: WireValue
  let total: Int
  private var place: WirePlace
  private(set) var currentIndex = 0
  var codingPath: [any CodingKey] { [] }

  init(_ value: WireValue, _ entries: (count: Int, first: WirePlace)) {
    self.value = value
    (total, place) = entries
  }

  var count: Int? { total }
  var isAtEnd: Bool { currentIndex >= total }

  private mutating func next() throws -> PlaceDecoder {
    guard !isAtEnd else {
      throw DecodingError.valueNotFound(
        Any.self, .init(codingPath: codingPath, debugDescription: "the list has only \(total) values"))
    }
    defer {
      place = value.after(place)
      currentIndex += 1
    }
    return PlaceDecoder(value, place)
  }

  mutating func decodeNil() throws -> Bool {
    guard !isAtEnd, value.tag(at: place) == .null else { return false }
    _ = try next()
    return true
  }

  mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { try next().decode(type) }

  mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws
    -> KeyedDecodingContainer<NestedKey>
  {
    try next().container(keyedBy: type)
  }

  mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer { try next().unkeyedContainer() }
  mutating func superDecoder() throws -> any Decoder { try next() }
}
