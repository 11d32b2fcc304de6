import Testing

@testable import VivariumWeb

/// Tokens are compared without a shortcut, and made of 32 random bytes
/// as unpadded URL-safe base64.
@Suite("Web: tokens")
struct TokenWebTests {
  @Test func equalBytesAreEqual() {
    #expect(ConstantTime.equal([], []))
    #expect(ConstantTime.equal([1, 2, 3], [1, 2, 3]))
    #expect(ConstantTime.equal("token", "token"))
    #expect(ConstantTime.equal(String(repeating: "x", count: 1000), String(repeating: "x", count: 1000)))
  }

  @Test func aDifferenceAnywhereIsADifference() {
    let token = Array("0123456789abcdefghijklmnopqrstuvwxyz-_ABCDE".utf8)
    for place in token.indices {
      for flip: UInt8 in [1, 0x80, 0xFF] {
        var guess = token
        guess[place] ^= flip
        #expect(!ConstantTime.equal(guess, token), "byte \(place) ^ \(flip)")
        #expect(!ConstantTime.equal(token, guess), "byte \(place) ^ \(flip)")
      }
    }
  }

  @Test func differentLengthsAreNotEqual() {
    #expect(!ConstantTime.equal([1, 2, 3], [1, 2]))
    #expect(!ConstantTime.equal([1, 2], [1, 2, 3]))
    #expect(!ConstantTime.equal([], [0]))
    #expect(!ConstantTime.equal([0], []))
    #expect(!ConstantTime.equal([0, 0], []))
    // A prefix repeated is still not the token.
    #expect(!ConstantTime.equal([1, 2, 1, 2], [1, 2]))
    #expect(!ConstantTime.equal("abcabc", "abc"))
    #expect(!ConstantTime.equal("", "abc"))
  }

  /// The comparison is of bytes: text that looks the same but is written
  /// with other scalars is another token.
  @Test func textIsComparedByItsBytes() {
    #expect(!ConstantTime.equal("\u{E9}", "e\u{301}"))
    #expect("\u{E9}" == "e\u{301}")
  }

  /// A generator that repeats one word: what the token does with its bytes.
  struct RepeatingGenerator: RandomNumberGenerator {
    var word: UInt64
    mutating func next() -> UInt64 { word }
  }

  @Test func aTokenIs43URLSafeCharacters() {
    let allowed = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
    for _ in 0..<100 {
      let token = RandomToken()
      #expect(token.text.utf8.count == RandomToken.textLength)
      #expect(token.text.utf8.allSatisfy(allowed.contains))
      // Its text decodes to 32 bytes once made standard and padded.
      let standard = token.text.replacing("-", with: "+").replacing("_", with: "/") + "="
      #expect(Base64.decode(standard)?.count == RandomToken.byteCount)
    }
  }

  @Test func aTokenIsItsGeneratorsBytes() {
    var zeros = RepeatingGenerator(word: 0)
    #expect(RandomToken(using: &zeros).text == String(repeating: "A", count: 43))
    var ones = RepeatingGenerator(word: .max)
    #expect(RandomToken(using: &ones).text == String(repeating: "_", count: 42) + "8")
    var counting = RepeatingGenerator(word: 0x0807_0605_0403_0201)
    let bytes = (0..<4).flatMap { _ in [1, 2, 3, 4, 5, 6, 7, 8] as [UInt8] }
    #expect(RandomToken(using: &counting).text == Base64.encodeURLSafe(bytes))
  }

  @Test func tokensDifferAndMatchOnlyThemselves() {
    let tokens = (0..<1000).map { _ in RandomToken() }
    #expect(Set(tokens.map(\.text)).count == tokens.count)
    let token = tokens[0]
    #expect(token.matches(token.text))
    #expect(!token.matches(tokens[1].text))
    #expect(!token.matches(String(token.text.dropLast())))
    #expect(!token.matches(token.text + "A"))
    #expect(!token.matches(""))
  }

  @Test func aTokenDoesNotShowItself() {
    let token = RandomToken()
    #expect(!"\(token)".contains(token.text))
    #expect(!String(describing: token).contains(token.text))
    #expect(!String(reflecting: token).contains(token.text))
    var dumped = ""
    dump(token, to: &dumped)
    #expect(!dumped.contains(token.text))
  }
}
