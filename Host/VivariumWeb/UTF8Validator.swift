/// Checks that bytes are UTF-8 as they arrive, a byte at a time, with no
/// bytes held: well-formed sequences only (Unicode's table 3-7), so no
/// overlong forms, no surrogates, nothing past U+10FFFF. A text message
/// split across WebSocket frames, even inside a character, is checked as
/// one (RFC 6455 §8.1), and fails at its first bad byte.
package struct UTF8Validator: Sendable {
  /// How many continuation bytes the character under way still needs.
  private var remaining = 0
  /// The least the next continuation byte may be.
  private var lower: UInt8 = 0x80
  /// The most the next continuation byte may be.
  private var upper: UInt8 = 0xBF

  /// A check at the start of text.
  package init() {}

  /// Whether `bytes` are UTF-8, whole.
  package static func isValid(_ bytes: some Sequence<UInt8>) -> Bool {
    var validator = UTF8Validator()
    return validator.feed(bytes) && validator.isComplete
  }

  /// Whether every byte read so far begins or continues a well-formed
  /// sequence (the last may be unfinished). After false, the validator
  /// says nothing more of use.
  package mutating func feed(_ bytes: some Sequence<UInt8>) -> Bool {
    for byte in bytes {
      guard feed(byte) else { return false }
    }
    return true
  }

  /// Whether `byte` begins or continues a well-formed sequence.
  package mutating func feed(_ byte: UInt8) -> Bool {
    if remaining > 0 {
      guard byte >= lower && byte <= upper else { return false }
      remaining -= 1
      lower = 0x80
      upper = 0xBF
      return true
    }
    switch byte {
    case 0x00...0x7F: return true
    case 0xC2...0xDF: remaining = 1
    case 0xE0:
      remaining = 2
      lower = 0xA0
    case 0xE1...0xEC, 0xEE...0xEF: remaining = 2
    case 0xED:
      remaining = 2
      upper = 0x9F
    case 0xF0:
      remaining = 3
      lower = 0x90
    case 0xF1...0xF3: remaining = 3
    case 0xF4:
      remaining = 3
      upper = 0x8F
    default: return false
    }
    return true
  }

  /// Whether the bytes read end at the end of a character.
  package var isComplete: Bool { remaining == 0 }
}
