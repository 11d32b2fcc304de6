import Foundation
import Testing

@testable import VivariumWeb

/// Base64 round-trips every byte string in both alphabets, agrees with
/// Foundation, and decodes only canonical standard text.
@Suite("Web: base64")
struct Base64WebTests {
  @Test func theRFCsExamples() {
    let examples = [
      ("", ""), ("f", "Zg=="), ("fo", "Zm8="), ("foo", "Zm9v"), ("foob", "Zm9vYg=="), ("fooba", "Zm9vYmE="),
      ("foobar", "Zm9vYmFy"),
    ]
    for (plain, encoded) in examples {
      #expect(Base64.encode(Array(plain.utf8)) == encoded)
      #expect(Base64.decode(encoded) == Array(plain.utf8))
    }
  }

  @Test func agreesWithFoundationForEveryLength() {
    for length in 0...100 {
      let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 97 &+ 251 &* length) }
      let foundation = Data(bytes).base64EncodedString()
      #expect(Base64.encode(bytes) == foundation)
      #expect(Base64.decode(foundation) == bytes)
      let urlSafe = foundation.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        .replacingOccurrences(of: "=", with: "")
      #expect(Base64.encodeURLSafe(bytes) == urlSafe)
    }
  }

  @Test func theURLSafeAlphabetUsesDashAndUnderscore() {
    #expect(Base64.encodeURLSafe([0xFB, 0xFF]) == "-_8")
    #expect(Base64.encode([0xFB, 0xFF]) == "+/8=")
  }

  @Test func decodingRefusesAnythingNotCanonical() {
    for text in [
      "Zg", "Zg=", "Zm9", "Z===", "====", "Zg==Zg==", "Zm=v", "Zh==", "Zm9=", "Zm9v ", " Zm9v", "Zm9\nv", "Zm-v",
      "Zm_v", "Zm9v=", "Zm9v====", "é===",
    ] {
      #expect(Base64.decode(text) == nil, "\(text.debugDescription)")
    }
  }
}
