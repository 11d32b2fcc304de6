import Glibc

/// Bytes checked to hold one whole value as ``WireEncoder`` writes it, with
/// where each of its containers ends: what a type decodes from, in place,
/// without a tree of the value built first.
///
/// The check reads the bytes in one pass: every count against what is
/// left (no input makes a reader go out of bounds, and what the check keeps
/// grows in proportion to the bytes), every string as UTF-8, every key of a
/// container against the others, and no container nested deeper than
/// ``WireProtocol/depthLimit``.
/// Decoding then finds a key by reading the entries before it, and steps
/// over a nested container in one move, from the extents the check kept.
package final class WireValue: Sendable {
  let bytes: [UInt8]
  /// Each container, in the order they start.
  let containers: [WireContainerExtent]

  /// The value `bytes` hold, all of them; throws a ``WireError`` saying
  /// what is wrong for anything else.
  package init(checking bytes: [UInt8]) throws(WireError) {
    var checker = WireChecker(bytes)
    try checker.value()
    guard checker.isAtEnd else { throw WireError(.leftOver, "the value has bytes left over") }
    self.bytes = bytes
    containers = checker.containers
  }

  private init(bytes: [UInt8]) {
    self.bytes = bytes
    containers = []
  }

  /// Nothing: what a missing `super` entry decodes from.
  static let null = WireValue(bytes: [WireTag.null.rawValue])

  /// The tag of the value at `place`: a place the check found, whose tag it
  /// read (were it not one, the value would read as nothing, never as a crash).
  func tag(at place: WirePlace) -> WireTag { WireTag(rawValue: bytes[place.offset]) ?? .null }

  /// The number that starts at `offset`, and where it ends.
  func varint(at offset: Int) -> (value: UInt64, end: Int) {
    var (value, shift, position): (UInt64, UInt64, Int) = (0, 0, offset)
    while true {
      let next = bytes[position]
      position += 1
      value |= UInt64(next & 0x7F) << shift
      if next < 0x80 { return (value, position) }
      shift += 7
    }
  }

  /// The UTF-8 of the string whose length starts at `offset` (after its tag, if any).
  func stringBytes(at offset: Int) -> Range<Int> {
    let (length, start) = varint(at: offset)
    return start..<start + Int(length)
  }

  func string(_ range: Range<Int>) -> String { String(decoding: bytes[range], as: UTF8.self) }

  /// The count of the container at `place`, and its first entry.
  func entries(of place: WirePlace) -> (count: Int, first: WirePlace) {
    let count = (0..<4).reduce(0) { $0 | Int(bytes[place.offset + 1 + $1]) << (8 * $1) }
    return (count, WirePlace(offset: place.offset + 5, firstContainer: place.firstContainer + 1))
  }

  /// Where the value after the one at `place` starts.
  func after(_ place: WirePlace) -> WirePlace {
    switch tag(at: place) {
    case .null, .false, .true: WirePlace(offset: place.offset + 1, firstContainer: place.firstContainer)
    case .int, .unsigned: WirePlace(offset: varint(at: place.offset + 1).end, firstContainer: place.firstContainer)
    case .double: WirePlace(offset: place.offset + 9, firstContainer: place.firstContainer)
    case .string: WirePlace(offset: stringBytes(at: place.offset + 1).upperBound, firstContainer: place.firstContainer)
    case .keyed, .list:
      WirePlace(
        offset: containers[place.firstContainer].end, firstContainer: containers[place.firstContainer].next)
    }
  }

  /// Whether the key at `range` has the very bytes `wanted` has.
  func key(_ range: Range<Int>, hasBytes wanted: UnsafeBufferPointer<UInt8>) -> Bool {
    guard range.count == wanted.count else { return false }
    return bytes.withUnsafeBufferPointer { all in
      range.isEmpty || memcmp(all.baseAddress! + range.lowerBound, wanted.baseAddress!, range.count) == 0
    }
  }
}

/// Where a value starts: its offset, and the index of the first container
/// that starts there or after (the value's own, if it is one).
struct WirePlace {
  var offset: Int
  var firstContainer: Int
}

/// Where a container ends: the offset after its last byte, and the index
/// of the first container after it; whether a key of it is not ASCII.
struct WireContainerExtent {
  var end: Int
  var next: Int
  var hasNonASCIIKeys = false
}

/// Checks bytes as ``WireValue`` describes, keeping each container's extent.
private struct WireChecker {
  private let bytes: [UInt8]
  private var position = 0
  private var depth = 0
  private(set) var containers: [WireContainerExtent] = []
  /// The keys of the containers being checked, innermost last.
  private var keys: [Range<Int>] = []

  init(_ bytes: [UInt8]) { self.bytes = bytes }

  var isAtEnd: Bool { position == bytes.count }
  private var remaining: Int { bytes.count - position }

  private mutating func byte() throws(WireError) -> UInt8 {
    guard position < bytes.count else { throw WireError(.truncated, "the bytes end in the middle of a value") }
    defer { position += 1 }
    return bytes[position]
  }

  @discardableResult
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

  /// A string's length, its bytes and their UTF-8: its range.
  private mutating func string() throws(WireError) -> Range<Int> {
    let length = try varint()
    let from = position
    guard length <= UInt64(remaining) else {
      throw WireError(.countTooLarge, "a count of \(length) is more than the bytes hold")
    }
    position += Int(length)
    guard Self.isUTF8(bytes[from..<position]) else { throw WireError(.notUTF8, "a string is not valid UTF-8") }
    return from..<position
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

  mutating func value() throws(WireError) {
    let raw = try byte()
    guard let tag = WireTag(rawValue: raw) else { throw WireError(.unknownTag, "tag \(raw) is not one the wire has") }
    switch tag {
    case .null, .false, .true: return
    case .int, .unsigned: try varint()
    case .double:
      guard remaining >= 8 else { throw WireError(.truncated, "the bytes end in the middle of a double") }
      position += 8
    case .string: _ = try string()
    case .keyed:
      try container { (checker: inout WireChecker) throws(WireError) in
        // Each entry takes at least two bytes: an empty key's length and a tag.
        let count = try checker.count(each: 2)
        let first = checker.keys.count
        defer { checker.keys.removeSubrange(first...) }
        for _ in 0..<count {
          checker.keys.append(try checker.string())
          try checker.value()
        }
        let keys = checker.keys[first...]
        let hasNonASCIIKeys = keys.contains { !checker.bytes[$0].allSatisfy { $0 < 0x80 } }
        guard !checker.hasDuplicate(keys, someNotASCII: hasNonASCIIKeys) else {
          throw WireError(.duplicateKey, "a key appears twice among \(count)")
        }
        return hasNonASCIIKeys
      }
    case .list:
      try container { (checker: inout WireChecker) throws(WireError) in
        for _ in 0..<(try checker.count(each: 1)) { try checker.value() }
        return false
      }
    }
  }

  /// Checks a container with `check`, which says whether a key of it is not ASCII.
  private mutating func container(_ check: (inout WireChecker) throws(WireError) -> Bool) throws(WireError) {
    depth += 1
    defer { depth -= 1 }
    guard depth <= WireProtocol.depthLimit else {
      throw WireError(.tooDeep, "values are nested more than \(WireProtocol.depthLimit) deep")
    }
    let index = containers.count
    containers.append(WireContainerExtent(end: 0, next: 0))
    let hasNonASCIIKeys = try check(&self)
    containers[index] = WireContainerExtent(end: position, next: containers.count, hasNonASCIIKeys: hasNonASCIIKeys)
  }

  /// Whether a key comes twice (as Swift compares strings: a composed and
  /// a decomposed `é` are one key, and so are the Kelvin sign and `K`).
  private func hasDuplicate(_ keys: ArraySlice<Range<Int>>, someNotASCII: Bool) -> Bool {
    guard keys.count > 8 else {
      for (index, key) in zip(keys.indices, keys) {
        for earlier in keys[..<index] where bytes[key].elementsEqual(bytes[earlier]) { return true }
      }
      // Keys whose bytes differ may still be one string: only if one is not ASCII.
      guard someNotASCII else { return false }
      let strings = keys.map { String(decoding: bytes[$0], as: UTF8.self) }
      return Set(strings).count != strings.count
    }
    return Set(keys.map { String(decoding: bytes[$0], as: UTF8.self) }).count != keys.count
  }

  /// Whether `text` is well-formed UTF-8 (no overlong form, no surrogate,
  /// nothing past U+10FFFF), read without making a string of it.
  static func isUTF8(_ text: ArraySlice<UInt8>) -> Bool {
    var index = text.startIndex
    func continuation(_ range: ClosedRange<UInt8> = 0x80...0xBF) -> Bool {
      guard index < text.endIndex, range.contains(text[index]) else { return false }
      index += 1
      return true
    }
    while index < text.endIndex {
      let lead = text[index]
      index += 1
      switch lead {
      case 0x00...0x7F: continue
      case 0xC2...0xDF: guard continuation() else { return false }
      case 0xE0: guard continuation(0xA0...0xBF), continuation() else { return false }
      case 0xED: guard continuation(0x80...0x9F), continuation() else { return false }
      case 0xE1...0xEF: guard continuation(), continuation() else { return false }
      case 0xF0: guard continuation(0x90...0xBF), continuation(), continuation() else { return false }
      case 0xF4: guard continuation(0x80...0x8F), continuation(), continuation() else { return false }
      case 0xF1...0xF3: guard continuation(), continuation(), continuation() else { return false }
      default: return false
      }
    }
    return true
  }
}
