/// A secret no one can guess: 32 bytes from the system's cryptographic
/// random source (`SystemRandomNumberGenerator`: getrandom(2) on Linux),
/// written in base64's URL-safe alphabet without padding, so that it goes
/// as it is in a URL, a header or a cookie.
///
/// Neither its description nor its mirror shows it: a token printed by mistake is not
/// given away. It is not `Equatable`: compare with ``matches(_:)``, which
/// takes the same time wherever a guess goes wrong.
package struct RandomToken: Sendable, CustomStringConvertible, CustomReflectable {
  /// How many random bytes a token holds (256 bits).
  package static let byteCount = 32
  /// How long a token's text is: 32 bytes in unpadded base64.
  package static let textLength = 43

  /// The token as text: 43 characters of `A`–`Z`, `a`–`z`, `0`–`9`, `-`, `_`.
  package let text: String

  /// A new token from the system's random source.
  package init() {
    var generator = SystemRandomNumberGenerator()
    self.init(using: &generator)
  }

  /// A new token from `generator`: tests give one that repeats; anything
  /// else gives ``init()``'s.
  package init(using generator: inout some RandomNumberGenerator) {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(Self.byteCount)
    while bytes.count < Self.byteCount {
      let word = generator.next()
      for shift in stride(from: 0, to: 64, by: 8) {
        bytes.append(UInt8(truncatingIfNeeded: word >> UInt64(shift)))
      }
    }
    text = Base64.encodeURLSafe(bytes)
  }

  /// The token `text` writes, as ``text`` gives it (kept in a file);
  /// nil for text that is not a token's: another length or alphabet.
  package init?(text: String) {
    guard Self.isText(text) else { return nil }
    self.text = text
  }

  /// Whether `text` could be a token's ``text``: its length and alphabet.
  package static func isText(_ text: String) -> Bool {
    text.utf8.count == textLength
      && text.utf8.allSatisfy { byte in
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
          UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"):
          true
        default: false
        }
      }
  }

  /// Whether `presented` is this token, compared in constant time
  /// (``ConstantTime``).
  package func matches(_ presented: String) -> Bool {
    ConstantTime.equal(presented, text)
  }

  /// Says what it is without showing it.
  package var description: String { "RandomToken(\(Self.textLength) characters, not shown)" }

  /// No children: `dump` does not show it either.
  package var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}
