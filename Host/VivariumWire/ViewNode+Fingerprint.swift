import ViperKit

extension ViewNode {
  /// A number that tells this tree from others: the same in every process
  /// and every run (unlike `hashValue`), from everything the tree holds,
  /// in order. A ``ViewTreeDiff`` names the tree it was made from by it.
  package var fingerprint: UInt64 {
    var hasher = FingerprintHasher()
    hasher.mix(self)
    return hasher.value
  }
}

/// Mixes a tree's values into 64 bits, eight bytes at a time: each string
/// is its length then its UTF-8 bytes, each list its count then its
/// elements, so no two trees give the same stream of words.
private struct FingerprintHasher {
  private(set) var value: UInt64 = 0x243F_6A88_85A3_08D3

  mutating func mix(_ word: UInt64) {
    value = (value ^ word) &* 0x9E37_79B9_7F4A_7C15
    value ^= value >> 29
  }

  mutating func mix(_ text: String) {
    let mixed: Void? = text.utf8.withContiguousStorageIfAvailable { mix(UnsafeRawBufferPointer($0)) }
    if mixed == nil { Array(text.utf8).withUnsafeBytes { mix($0) } }
  }

  mutating func mix(_ bytes: UnsafeRawBufferPointer) {
    mix(UInt64(bytes.count))
    var offset = 0
    while offset + 8 <= bytes.count {
      mix(UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self)))
      offset += 8
    }
    guard offset < bytes.count else { return }
    var last: UInt64 = 0
    for (shift, byte) in bytes[offset...].enumerated() { last |= UInt64(byte) << (8 * UInt64(shift)) }
    mix(last)
  }

  mutating func mix(_ tone: Tone) { mix(tone.rawValue) }

  mutating func mix(_ node: ViewNode) {
    switch node {
    case .text(let text, let tone):
      mix(1)
      mix(text)
      mix(tone)
    case .heading(let text):
      mix(2)
      mix(text)
    case .list(let id, let rows):
      mix(3)
      mix(id)
      mix(UInt64(rows.count))
      for index in rows.indices { mix(rows[index]) }
    case .button(let id, let title):
      mix(4)
      mix(id)
      mix(title)
    case .field(let id, let label, let value, let placeholder):
      mix(5)
      mix(id)
      mix(label)
      mix(value)
      mix(placeholder)
    case .secretField(let id, let label, let length, let placeholder):
      mix(6)
      mix(id)
      mix(label)
      mix(UInt64(bitPattern: Int64(length)))
      mix(placeholder)
    case .stack(let axis, let children):
      mix(7)
      mix(axis.rawValue)
      mix(UInt64(children.count))
      for child in children { mix(child) }
    case .slot(let name):
      mix(9)
      mix(name)
    case .notice(let tone, let text):
      mix(10)
      mix(tone)
      mix(text)
    @unknown default:
      mix(11)
      mix(String(describing: node))
    }
  }

  mutating func mix(_ row: ListRow) {
    mix(row.id)
    mix(row.title)
    mix(row.detail)
    if let marker = row.marker {
      mix(1)
      mix(marker.tone)
      mix(marker.label)
    } else {
      mix(0)
    }
  }
}
