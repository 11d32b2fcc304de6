/// Appends values to a frame's payload: unsigned numbers as LEB128
/// varints, signed ones zigzagged, doubles as their 8 bytes, strings and
/// arrays with their count first.
struct WireWriter {
  private(set) var bytes: [UInt8] = []

  init() {
    bytes.reserveCapacity(256)
  }

  mutating func byte(_ value: UInt8) { bytes.append(value) }

  mutating func unsigned(_ value: UInt64) {
    var rest = value
    while rest >= 0x80 {
      bytes.append(UInt8(truncatingIfNeeded: rest) | 0x80)
      rest >>= 7
    }
    bytes.append(UInt8(rest))
  }

  mutating func int(_ value: Int) {
    let wide = Int64(value)
    unsigned(UInt64(bitPattern: (wide << 1) ^ (wide >> 63)))
  }

  mutating func bool(_ value: Bool) { bytes.append(value ? 1 : 0) }

  mutating func double(_ value: Double) {
    var bits = value.bitPattern
    for _ in 0..<8 {
      bytes.append(UInt8(truncatingIfNeeded: bits))
      bits >>= 8
    }
  }

  mutating func string(_ value: String) {
    var value = value
    value.withUTF8 { utf8 in
      unsigned(UInt64(utf8.count))
      bytes.append(contentsOf: utf8)
    }
  }

  mutating func optional<T>(_ value: T?, _ write: (inout WireWriter, T) -> Void) {
    guard let value else { return byte(0) }
    byte(1)
    write(&self, value)
  }

  mutating func optionalString(_ value: String?) { optional(value) { $0.string($1) } }

  mutating func array<T>(_ values: [T], _ write: (inout WireWriter, T) -> Void) {
    unsigned(UInt64(values.count))
    for value in values { write(&self, value) }
  }

  /// `value` as its place among `cases`, which ``WireReader/choice(_:_:)``
  /// reads back; both sides list the cases in the same order.
  mutating func choice<T: Equatable>(_ value: T, _ cases: [T]) {
    unsigned(UInt64(cases.firstIndex(of: value) ?? 0))
  }

  mutating func raw(_ data: [UInt8]) {
    unsigned(UInt64(data.count))
    bytes.append(contentsOf: data)
  }
}

/// Why a frame could not be decoded.
struct WireError: Error, Equatable, CustomStringConvertible {
  let description: String
  init(_ description: String) { self.description = description }
}

/// Reads what ``WireWriter`` wrote, checking every length against what is
/// left, so no input makes it read out of bounds, allocate more than the
/// frame holds or recurse without limit.
struct WireReader {
  private let bytes: [UInt8]
  private var position = 0
  /// How deep nested values go, checked against ``WireProtocol/depthLimit``.
  private var depth = 0

  init(_ bytes: [UInt8]) {
    self.bytes = bytes
  }

  var isAtEnd: Bool { position == bytes.count }
  private var remaining: Int { bytes.count - position }

  mutating func byte() throws(WireError) -> UInt8 {
    guard position < bytes.count else { throw WireError("the frame ends in the middle of a value") }
    defer { position += 1 }
    return bytes[position]
  }

  mutating func unsigned() throws(WireError) -> UInt64 {
    var value: UInt64 = 0
    var shift: UInt64 = 0
    while true {
      let next = try byte()
      guard shift < 64, shift < 63 || next <= 1 else { throw WireError("a number is longer than 64 bits") }
      value |= UInt64(next & 0x7F) << shift
      if next < 0x80 { return value }
      shift += 7
    }
  }

  /// An unsigned number that must fit `UInt32`.
  mutating func u32() throws(WireError) -> UInt32 {
    let value = try unsigned()
    guard let narrow = UInt32(exactly: value) else { throw WireError("a call or module number \(value) is too big") }
    return narrow
  }

  mutating func int() throws(WireError) -> Int {
    let raw = try unsigned()
    return Int(Int64(bitPattern: (raw >> 1) ^ (0 &- (raw & 1))))
  }

  mutating func bool() throws(WireError) -> Bool {
    switch try byte() {
    case 0: return false
    case 1: return true
    case let other: throw WireError("a flag is \(other), not 0 or 1")
    }
  }

  mutating func double() throws(WireError) -> Double {
    guard remaining >= 8 else { throw WireError("the frame ends in the middle of a number") }
    var bits: UInt64 = 0
    for index in 0..<8 { bits |= UInt64(bytes[position + index]) << (8 * UInt64(index)) }
    position += 8
    return Double(bitPattern: bits)
  }

  /// A count of items each taking at least one byte: never more than is left.
  mutating func count() throws(WireError) -> Int {
    let count = try unsigned()
    guard count <= UInt64(remaining) else { throw WireError("a count of \(count) is more than the frame holds") }
    return Int(count)
  }

  mutating func rawBytes() throws(WireError) -> ArraySlice<UInt8> {
    let length = try count()
    defer { position += length }
    return bytes[position..<position + length]
  }

  mutating func string() throws(WireError) -> String {
    let utf8 = try rawBytes()
    guard let text = String(validating: utf8, as: UTF8.self) else { throw WireError("a string is not valid UTF-8") }
    return text
  }

  mutating func optional<T>(_ read: (inout WireReader) throws(WireError) -> T) throws(WireError) -> T? {
    try bool() ? try read(&self) : nil
  }

  mutating func optionalString() throws(WireError) -> String? {
    try optional { (reader: inout WireReader) throws(WireError) in try reader.string() }
  }

  mutating func array<T>(_ read: (inout WireReader) throws(WireError) -> T) throws(WireError) -> [T] {
    let count = try count()
    var values: [T] = []
    // An element may take far more memory than its byte on the wire: room
    // grows with what really decodes, not with what the count claims.
    values.reserveCapacity(Swift.min(count, 1_024))
    for _ in 0..<count { values.append(try read(&self)) }
    return values
  }

  /// Reads a nested value, refusing nesting deeper than ``WireProtocol/depthLimit``.
  mutating func nested<T>(_ read: (inout WireReader) throws(WireError) -> T) throws(WireError) -> T {
    depth += 1
    defer { depth -= 1 }
    guard depth <= WireProtocol.depthLimit else {
      throw WireError("values are nested more than \(WireProtocol.depthLimit) deep")
    }
    return try read(&self)
  }

  /// One of `cases`, by its index.
  mutating func choice<T>(_ cases: [T], _ what: String) throws(WireError) -> T {
    let index = try unsigned()
    guard index < UInt64(cases.count) else { throw WireError("\(what) \(index) is not one this host knows") }
    return cases[Int(index)]
  }
}
