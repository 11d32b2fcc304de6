/// Base64 (RFC 4648): the standard alphabet with padding, for WebSocket
/// handshakes, and the URL-safe alphabet without padding (§5), for tokens.
///
/// Decoding is strict, as a key a client made is: the standard alphabet,
/// padded to a multiple of four, no whitespace, and the unused bits of the
/// last character zero, so that one text stands for one byte string.
package enum Base64 {
  /// The standard alphabet (§4).
  private static let standard = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
  /// The URL- and filename-safe alphabet (§5).
  private static let urlSafe = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

  /// `bytes` in the standard alphabet, padded with `=` to a multiple of four.
  package static func encode(_ bytes: some Collection<UInt8>) -> String {
    encode(bytes, alphabet: standard, padded: true)
  }

  /// `bytes` in the URL-safe alphabet, without padding: text that can go in
  /// a URL's path or query, or a cookie, as it is.
  package static func encodeURLSafe(_ bytes: some Collection<UInt8>) -> String {
    encode(bytes, alphabet: urlSafe, padded: false)
  }

  /// The bytes `text` stands for in the standard alphabet with padding, or
  /// nil when it is not exactly such a text (see the type's summary).
  package static func decode(_ text: some StringProtocol) -> [UInt8]? {
    let characters = Array(text.utf8)
    guard characters.count % 4 == 0 else { return nil }
    var bytes: [UInt8] = []
    bytes.reserveCapacity(characters.count / 4 * 3)
    var index = 0
    while index < characters.count {
      let isLast = index + 4 == characters.count
      var values: (UInt32, UInt32, UInt32, UInt32) = (0, 0, 0, 0)
      var padding = 0
      for offset in 0..<4 {
        let character = characters[index + offset]
        let value: UInt32
        if character == UInt8(ascii: "=") {
          // Only the last group pads, in its last one or two places.
          guard isLast, offset >= 2 else { return nil }
          padding += 1
          value = 0
        } else {
          guard padding == 0, let decoded = sextet(character) else { return nil }
          value = decoded
        }
        switch offset {
        case 0: values.0 = value
        case 1: values.1 = value
        case 2: values.2 = value
        default: values.3 = value
        }
      }
      let group = values.0 << 18 | values.1 << 12 | values.2 << 6 | values.3
      bytes.append(UInt8(truncatingIfNeeded: group >> 16))
      switch padding {
      case 0:
        bytes.append(UInt8(truncatingIfNeeded: group >> 8))
        bytes.append(UInt8(truncatingIfNeeded: group))
      case 1:
        guard group & 0xFF == 0 else { return nil }
        bytes.append(UInt8(truncatingIfNeeded: group >> 8))
      default:
        guard group & 0xFFFF == 0 else { return nil }
      }
      index += 4
    }
    return bytes
  }

  /// The value of one character of the standard alphabet, or nil.
  private static func sextet(_ character: UInt8) -> UInt32? {
    switch character {
    case UInt8(ascii: "A")...UInt8(ascii: "Z"): UInt32(character - UInt8(ascii: "A"))
    case UInt8(ascii: "a")...UInt8(ascii: "z"): UInt32(character - UInt8(ascii: "a")) + 26
    case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(character - UInt8(ascii: "0")) + 52
    case UInt8(ascii: "+"): 62
    case UInt8(ascii: "/"): 63
    default: nil
    }
  }

  /// `bytes` in `alphabet`, padded or not.
  private static func encode(_ bytes: some Collection<UInt8>, alphabet: [UInt8], padded: Bool) -> String {
    var text: [UInt8] = []
    text.reserveCapacity((bytes.count + 2) / 3 * 4)
    var iterator = bytes.makeIterator()
    while let first = iterator.next() {
      let second = iterator.next()
      let third = second == nil ? nil : iterator.next()
      let group = UInt32(first) << 16 | UInt32(second ?? 0) << 8 | UInt32(third ?? 0)
      text.append(alphabet[Int(group >> 18 & 0x3F)])
      text.append(alphabet[Int(group >> 12 & 0x3F)])
      if second != nil {
        text.append(alphabet[Int(group >> 6 & 0x3F)])
      } else if padded {
        text.append(UInt8(ascii: "="))
      }
      if third != nil {
        text.append(alphabet[Int(group & 0x3F)])
      } else if padded {
        text.append(UInt8(ascii: "="))
      }
    }
    return String(decoding: text, as: UTF8.self)
  }
}
