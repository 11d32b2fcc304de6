import ViperKit

/// A sample of any `Decodable` type, for calling a provider's operations
/// with: strings `sample`, numbers 1 (1.5 where fractional), `true`, one
/// element in each list, every optional field present. A type whose own
/// decoding refuses these (an enum whose raw values do not include
/// `sample`, a validating initializer) has no sample: the check says so.
enum SampleRequest {
  /// `type`'s sample in its wire form; nil when the type refuses it.
  static func value(of type: any (Decodable & Sendable).Type) -> ServiceValue? {
    func make<T: Decodable & Sendable>(_ type: T.Type) -> ServiceValue? {
      guard let sample = try? T(from: SampleDecoder(codingPath: [])), let encodable = sample as? any Encodable else {
        return nil
      }
      return try? ServiceValue(encoding: encodable)
    }
    return make(type)
  }
}

/// Decodes the sample of whatever type asks. Below ``depth`` levels lists
/// are empty and optionals absent, so that a type holding itself ends.
private struct SampleDecoder: Decoder {
  var codingPath: [any CodingKey]
  var userInfo: [CodingUserInfoKey: Any] { [:] }
  static let depth = 8

  func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedDecodingContainer<Key> {
    KeyedDecodingContainer(Keyed(codingPath: codingPath))
  }
  func unkeyedContainer() -> any UnkeyedDecodingContainer { Unkeyed(codingPath: codingPath) }
  func singleValueContainer() -> any SingleValueDecodingContainer { Single(codingPath: codingPath) }

  /// The sample of `type`: a leaf directly, anything else through its own `init(from:)`.
  static func sample<T: Decodable>(_ type: T.Type, at path: [any CodingKey]) throws -> T {
    switch type {
    case is String.Type: return "sample" as! T
    case is Bool.Type: return true as! T
    case is Double.Type: return 1.5 as! T
    case is Float.Type: return Float(1.5) as! T
    case let integer as any BinaryInteger.Type: return integer.init(1) as! T
    default: return try T(from: SampleDecoder(codingPath: path))
    }
  }

  private struct Keyed<Key: CodingKey>: KeyedDecodingContainerProtocol {
    var codingPath: [any CodingKey]
    var allKeys: [Key] { [] }
    func contains(_ key: Key) -> Bool { true }
    func decodeNil(forKey key: Key) -> Bool { codingPath.count >= SampleDecoder.depth }
    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
      try SampleDecoder.sample(type, at: codingPath + [key])
    }
    func nestedContainer<Nested: CodingKey>(keyedBy type: Nested.Type, forKey key: Key) -> KeyedDecodingContainer<
      Nested
    > {
      KeyedDecodingContainer(Keyed<Nested>(codingPath: codingPath + [key]))
    }
    func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedDecodingContainer {
      Unkeyed(codingPath: codingPath + [key])
    }
    func superDecoder() -> any Decoder { SampleDecoder(codingPath: codingPath) }
    func superDecoder(forKey key: Key) -> any Decoder { SampleDecoder(codingPath: codingPath + [key]) }
  }

  /// One element, of whatever type is asked for.
  private struct Unkeyed: UnkeyedDecodingContainer {
    var codingPath: [any CodingKey]
    var currentIndex = 0
    var count: Int? { codingPath.count >= SampleDecoder.depth ? 0 : 1 }
    var isAtEnd: Bool { currentIndex >= count ?? 0 }

    init(codingPath: [any CodingKey]) { self.codingPath = codingPath }

    mutating func decodeNil() -> Bool { false }
    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
      currentIndex += 1
      return try SampleDecoder.sample(type, at: codingPath)
    }
    mutating func nestedContainer<Nested: CodingKey>(keyedBy type: Nested.Type) -> KeyedDecodingContainer<Nested> {
      currentIndex += 1
      return KeyedDecodingContainer(Keyed<Nested>(codingPath: codingPath))
    }
    mutating func nestedUnkeyedContainer() -> any UnkeyedDecodingContainer {
      currentIndex += 1
      return Unkeyed(codingPath: codingPath)
    }
    mutating func superDecoder() -> any Decoder {
      currentIndex += 1
      return SampleDecoder(codingPath: codingPath)
    }
  }

  private struct Single: SingleValueDecodingContainer {
    var codingPath: [any CodingKey]
    func decodeNil() -> Bool { false }
    func decode<T: Decodable>(_ type: T.Type) throws -> T { try SampleDecoder.sample(type, at: codingPath) }
  }
}
