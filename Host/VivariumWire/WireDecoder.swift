/// The wire's one codec, decoding side: reads what ``WireEncoder`` wrote
/// into any `Decodable` type. The bytes are first read into a tree, checking
/// every count against what is left (no input makes it read out of bounds
/// or allocate more than the bytes hold) and refusing containers nested
/// deeper than ``WireProtocol/depthLimit``; the type then decodes from the
/// tree, as strictly as it says: a number is never read as a flag, nor a
/// signed number as an unsigned one.
package enum WireDecoder {
  /// The `T` that `bytes` hold, all of them; throws a ``WireError`` saying
  /// what is wrong for anything else.
  package static func decode<T: Decodable>(_ type: T.Type, from bytes: [UInt8]) throws(WireError) -> T {
    try decode(type, from: try tree(bytes))
  }

  /// The value `bytes` hold, all of them, before a type reads it: to read
  /// one tree as more than one type.
  package static func tree(_ bytes: [UInt8]) throws(WireError) -> WireTree {
    var parser = WireParser(bytes)
    let tree = try parser.value()
    guard parser.isAtEnd else { throw WireError(.leftOver, "the value has bytes left over") }
    return tree
  }

  /// The `T` that `tree` holds.
  package static func decode<T: Decodable>(_ type: T.Type, from tree: WireTree) throws(WireError) -> T {
    do {
      return try T(from: TreeDecoder(tree))
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

/// A value read from the wire, before a type decodes it.
package enum WireTree {
  case null
  case bool(Bool)
  case int(Int64)
  case unsigned(UInt64)
  case double(Double)
  case string(String)
  case keyed(WireKeyed)
  case list([WireTree])

  /// What it is, for errors.
  var kind: String {
    switch self {
    case .null: "nothing"
    case .bool: "a flag"
    case .int: "a signed number"
    case .unsigned: "an unsigned number"
    case .double: "a double"
    case .string: "a string"
    case .keyed: "keyed values"
    case .list: "a list"
    }
  }
}

/// A keyed container's keys and values, found by key.
package final class WireKeyed {
  let keys: [String]
  let values: [WireTree]
  /// The index of each key, made for a large container on its first lookup.
  private lazy var index = Dictionary(zip(keys, keys.indices), uniquingKeysWith: { first, _ in first })

  init(keys: [String], values: [WireTree]) {
    self.keys = keys
    self.values = values
  }

  subscript(key: String) -> WireTree? {
    if keys.count <= 16 { return keys.firstIndex(of: key).map { values[$0] } }
    return index[key].map { values[$0] }
  }
}

/// Reads bytes into a ``WireTree``.
private struct WireParser {
  private let bytes: [UInt8]
  private var position = 0
  private var depth = 0

  init(_ bytes: [UInt8]) { self.bytes = bytes }

  var isAtEnd: Bool { position == bytes.count }
  private var remaining: Int { bytes.count - position }

  private mutating func byte() throws(WireError) -> UInt8 {
    guard position < bytes.count else { throw WireError(.truncated, "the bytes end in the middle of a value") }
    defer { position += 1 }
    return bytes[position]
  }

  private mutating func varint() throws(WireError) -> UInt64 {
    var value: UInt64 = 0
    var shift: UInt64 = 0
    while true {
      let next = try byte()
      guard shift < 63 || (shift == 63 && next <= 1) else {
        throw WireError(.numberTooLong, "a number is longer than 64 bits")
      }
      value |= UInt64(next & 0x7F) << shift
      if next < 0x80 { return value }
      shift += 7
    }
  }

  /// A string's length: never more than is left.
  private mutating func length() throws(WireError) -> Int {
    let count = try varint()
    guard count <= UInt64(remaining) else {
      throw WireError(.countTooLarge, "a count of \(count) is more than the bytes hold")
    }
    return Int(count)
  }

  /// A container's count of entries each taking at least `size` bytes:
  /// never more than is left.
  private mutating func count(each size: Int) throws(WireError) -> Int {
    guard remaining >= 4 else { throw WireError(.truncated, "the bytes end in the middle of a count") }
    let count = (0..<4).reduce(UInt64(0)) { $0 | UInt64(bytes[position + $1]) << (8 * UInt64($1)) }
    position += 4
    guard count <= UInt64(remaining / size) else {
      throw WireError(.countTooLarge, "a count of \(count) is more than the bytes hold")
    }
    return Int(count)
  }

  private mutating func string() throws(WireError) -> String {
    let length = try length()
    defer { position += length }
    let text = bytes[position..<position + length]
    // ASCII, as keys and most text are, is valid as it is: made without the
    // general validation, whose generic call costs more than the string.
    if text.allSatisfy({ $0 < 0x80 }) { return String(decoding: text, as: UTF8.self) }
    guard let valid = String(validating: text, as: UTF8.self) else {
      throw WireError(.notUTF8, "a string is not valid UTF-8")
    }
    return valid
  }

  mutating func value() throws(WireError) -> WireTree {
    let raw = try byte()
    guard let tag = WireTag(rawValue: raw) else { throw WireError(.unknownTag, "tag \(raw) is not one the wire has") }
    switch tag {
    case .null: return .null
    case .false: return .bool(false)
    case .true: return .bool(true)
    case .int:
      let zigzag = try varint()
      return .int(Int64(bitPattern: (zigzag >> 1) ^ (0 &- (zigzag & 1))))
    case .unsigned: return .unsigned(try varint())
    case .double:
      guard remaining >= 8 else { throw WireError(.truncated, "the bytes end in the middle of a double") }
      var bits: UInt64 = 0
      for index in 0..<8 { bits |= UInt64(bytes[position + index]) << (8 * UInt64(index)) }
      position += 8
      return .double(Double(bitPattern: bits))
    case .string: return .string(try string())
    case .keyed:
      return try nested { (parser: inout WireParser) throws(WireError) in
        // Each entry takes at least two bytes: an empty key's length and a tag.
        let count = try parser.count(each: 2)
        var keys: [String] = []
        var values: [WireTree] = []
        keys.reserveCapacity(count)
        values.reserveCapacity(count)
        for _ in 0..<count {
          keys.append(try parser.string())
          values.append(try parser.value())
        }
        guard !WireParser.hasDuplicate(keys) else {
          throw WireError(.duplicateKey, "a key appears twice among \(keys.count)")
        }
        return .keyed(WireKeyed(keys: keys, values: values))
      }
    case .list:
      return try nested { (parser: inout WireParser) throws(WireError) in
        let count = try parser.count(each: 1)
        var values: [WireTree] = []
        values.reserveCapacity(count)
        for _ in 0..<count { values.append(try parser.value()) }
        return .list(values)
      }
    }
  }

  /// Whether a key comes twice (as Swift compares strings: a composed and
  /// a decomposed `é` are one key).
  static func hasDuplicate(_ keys: [String]) -> Bool {
    guard keys.count > 8 else {
      for (index, key) in keys.enumerated() where keys[..<index].contains(key) { return true }
      return false
    }
    return Set(keys).count != keys.count
  }

  private mutating func nested(_ read: (inout WireParser) throws(WireError) -> WireTree) throws(WireError)
    -> WireTree
  {
    depth += 1
    defer { depth -= 1 }
    guard depth <= WireProtocol.depthLimit else {
      throw WireError(.tooDeep, "values are nested more than \(WireProtocol.depthLimit) deep")
    }
    return try read(&self)
  }
}

/// Decodes a type from a ``WireTree``. Coding paths are not kept (an error
/// says what was expected and found, not where): keeping them costs an
/// array for every field.
private struct TreeDecoder: Decoder, SingleValueDecodingContainer {
  let tree: WireTree
  var codingPath: [any CodingKey] { [] }
  var userInfo: [CodingUserInfoKey: Any] { [:] }

  init(_ tree: WireTree) {
    self.tree = tree
  }

  func mismatch<T>(_ type: T.Type) -> DecodingError {
    .typeMismatch(type, .init(codingPath: codingPath, debugDescription: "expected \(type), found \(tree.kind)"))
  }

  func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
    guard case .keyed(let keyed) = tree else { throw mismatch([String: Any].self) }
    return KeyedDecodingContainer(KeyedReader<Key>(keyed: keyed))
  }

  func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
    guard case .list(let values) = tree else { throw mismatch([Any].self) }
    return ListReader(values: values)
  }

  func singleValueContainer() throws -> any SingleValueDecodingContainer { self }

  func decodeNil() -> Bool {
    if case .null = tree { true } else { false }
  }

  func decode(_ type: Bool.Type) throws -> Bool {
    guard case .bool(let value) = tree else { throw mismatch(type) }
    return value
  }

  func decode(_ type: String.Type) throws -> String {
    guard case .string(let value) = tree else { throw mismatch(type) }
    return value
  }

  func decode(_ type: Double.Type) throws -> Double {
    guard case .double(let value) = tree else { throw mismatch(type) }
    return value
  }

  func decode(_ type: Float.Type) throws -> Float {
    guard case .double(let value) = tree, let narrow = Float(exactly: value) ?? (value.isNaN ? .nan : nil) else {
      throw mismatch(type)
    }
    return narrow
  }

  private func signed<T: FixedWidthInteger & SignedInteger>(_ type: T.Type) throws -> T {
    guard case .int(let value) = tree, let narrow = T(exactly: value) else { throw mismatch(type) }
    return narrow
  }

  private func unsigned<T: FixedWidthInteger & UnsignedInteger>(_ type: T.Type) throws -> T {
    guard case .unsigned(let value) = tree, let narrow = T(exactly: value) else { throw mismatch(type) }
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

private struct KeyedReader<Key: CodingKey>: KeyedDecodingContainerProtocol {
  let keyed: WireKeyed
  var codingPath: [any CodingKey] { [] }

  var allKeys: [Key] { keyed.keys.compactMap { Key(stringValue: $0) } }
  func contains(_ key: Key) -> Bool { keyed[key.stringValue] != nil }

  private func decoder(_ key: Key) throws -> TreeDecoder {
    guard let tree = keyed[key.stringValue] else {
      throw DecodingError.keyNotFound(
        key, .init(codingPath: codingPath, debugDescription: "no value for '\(key.stringValue)'"))
    }
    return TreeDecoder(tree)
  }

  func decodeNil(forKey key: Key) throws -> Bool { try decoder(key).decodeNil() }
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
    TreeDecoder(keyed["super"] ?? .null)
  }

  func superDecoder(forKey key: Key) throws -> any Decoder { try decoder(key) }
}

private struct ListReader: UnkeyedDecodingContainer {
  let values: [WireTree]
  var codingPath: [any CodingKey] { [] }
  var currentIndex = 0

  init(values: [WireTree]) {
    self.values = values
  }

  var count: Int? { values.count }
  var isAtEnd: Bool { currentIndex >= values.count }

  private mutating func next() throws -> TreeDecoder {
    guard !isAtEnd else {
      throw DecodingError.valueNotFound(
        Any.self, .init(codingPath: codingPath, debugDescription: "the list has only \(values.count) values"))
    }
    defer { currentIndex += 1 }
    return TreeDecoder(values[currentIndex])
  }

  mutating func decodeNil() throws -> Bool {
    guard !isAtEnd, case .null = values[currentIndex] else { return false }
    currentIndex += 1
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
