import ViperKit

/// The registry cache's hand-written byte format, both ways: numbers as
/// LEB128 varints (signed ones zigzagged), the file key's numbers in 8 bytes,
/// strings as a length and their UTF-8, lists as a count and their items,
/// flags and enumerations in a byte each. No tags and no field names: the
/// layout is fixed by ``PluginRegistry/formatVersion``, which changes
/// whenever it does.
struct RegistryWriter {
  private(set) var bytes: [UInt8] = []

  mutating func byte(_ value: UInt8) { bytes.append(value) }

  mutating func flag(_ value: Bool) { bytes.append(value ? 1 : 0) }

  mutating func unsigned(_ value: UInt64) {
    var value = value
    while value >= 0x80 {
      bytes.append(UInt8(truncatingIfNeeded: value) | 0x80)
      value >>= 7
    }
    bytes.append(UInt8(value))
  }

  mutating func signed(_ value: Int) {
    let wide = Int64(value)
    unsigned(UInt64(bitPattern: (wide << 1) ^ (wide >> 63)))
  }

  mutating func fixed(_ value: UInt64) {
    for shift in stride(from: 0, to: 64, by: 8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(shift))) }
  }

  mutating func string(_ value: String) {
    unsigned(UInt64(value.utf8.count))
    bytes.append(contentsOf: value.utf8)
  }

  mutating func strings(_ values: [String]) { list(values) { $0.string($1) } }

  /// Host service names, by their names.
  mutating func services(_ values: [Services.Name]) { strings(values.map(\.rawValue)) }

  mutating func list<Item>(_ items: [Item], _ each: (inout RegistryWriter, Item) -> Void) {
    unsigned(UInt64(items.count))
    for item in items { each(&self, item) }
  }

  mutating func append(_ other: ArraySlice<UInt8>) { bytes.append(contentsOf: other) }
}

/// Why bytes of the registry cache could not be read: what was expected.
struct RegistryDamage: Error, CustomStringConvertible {
  let description: String
  init(_ description: String) { self.description = description }
}

/// Reads what ``RegistryWriter`` wrote, from `bytes` (a slice: its indices
/// are those of the whole file). Every length and count is checked against
/// the bytes left before anything is made of it (a count of items each
/// taking at least one byte can never be more than the bytes left), so no
/// input makes it read out of bounds, allocate more than the input's size,
/// or loop longer than its length.
struct RegistryReader {
  let bytes: ArraySlice<UInt8>
  private(set) var position: Int
  var end: Int { bytes.endIndex }

  init(_ bytes: ArraySlice<UInt8>) {
    self.bytes = bytes
    position = bytes.startIndex
  }

  var isAtEnd: Bool { position == end }
  var remaining: Int { end - position }

  mutating func byte() throws(RegistryDamage) -> UInt8 {
    guard position < end else { throw RegistryDamage("it ends in the middle of an entry") }
    defer { position += 1 }
    return bytes[position]
  }

  mutating func flag() throws(RegistryDamage) -> Bool {
    switch try byte() {
    case 0: false
    case 1: true
    case let other: throw RegistryDamage("a flag is \(other)")
    }
  }

  mutating func unsigned() throws(RegistryDamage) -> UInt64 {
    var value: UInt64 = 0
    var shift: UInt64 = 0
    while true {
      let next = try byte()
      guard shift < 63 || (shift == 63 && next <= 1) else { throw RegistryDamage("a number is longer than 64 bits") }
      value |= UInt64(next & 0x7F) << shift
      if next < 0x80 { return value }
      shift += 7
    }
  }

  mutating func signed() throws(RegistryDamage) -> Int {
    let zigzag = try unsigned()
    return Int(truncatingIfNeeded: Int64(bitPattern: zigzag >> 1) ^ -Int64(bitPattern: zigzag & 1))
  }

  mutating func fixed() throws(RegistryDamage) -> UInt64 {
    guard remaining >= 8 else { throw RegistryDamage("it ends in the middle of a number") }
    var value: UInt64 = 0
    for index in 0..<8 { value |= UInt64(bytes[position + index]) << UInt64(8 * index) }
    position += 8
    return value
  }

  /// A length or count of items taking at least `each` bytes apiece.
  mutating func count(each: Int = 1) throws(RegistryDamage) -> Int {
    let count = try unsigned()
    guard count <= UInt64(remaining / each) else {
      throw RegistryDamage("a count of \(count) is more than the \(remaining) bytes left hold")
    }
    return Int(count)
  }

  mutating func string() throws(RegistryDamage) -> String {
    let length = try count()
    defer { position += length }
    guard let text = String(validating: bytes[position..<position + length], as: UTF8.self) else {
      throw RegistryDamage("a string is not UTF-8")
    }
    return text
  }

  mutating func strings() throws(RegistryDamage) -> [String] {
    try list { (reader) throws(RegistryDamage) in try reader.string() }
  }

  /// Host service names; one this host does not know is damage.
  mutating func services() throws(RegistryDamage) -> [Services.Name] {
    try list { (reader) throws(RegistryDamage) in
      let name = try reader.string()
      guard let service = Services.Name(rawValue: name) else {
        throw RegistryDamage("a service is named '\(name)', which this host does not know")
      }
      return service
    }
  }

  /// A list of at most `limit` items, each read by `each`. Nothing is
  /// reserved for the count it says: an item in memory may be many times
  /// the byte it takes at the least, so the list grows only with items read.
  mutating func list<Item>(
    atMost limit: Int = .max, _ each: (inout RegistryReader) throws(RegistryDamage) -> Item
  ) throws(RegistryDamage) -> [Item] {
    let count = try count()
    guard count <= limit else { throw RegistryDamage("a list of \(count) is longer than the \(limit) allowed") }
    var items: [Item] = []
    for _ in 0..<count { items.append(try each(&self)) }
    return items
  }

  /// The next `length` bytes, as they are.
  mutating func slice(_ length: Int) throws(RegistryDamage) -> ArraySlice<UInt8> {
    guard length <= remaining else { throw RegistryDamage("it ends in the middle of an entry") }
    defer { position += length }
    return bytes[position..<position + length]
  }
}
