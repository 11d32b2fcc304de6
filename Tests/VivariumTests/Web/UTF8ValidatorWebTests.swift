import Testing

@testable import VivariumWeb

/// The UTF-8 check agrees with the standard library's on every sequence of
/// one and two bytes and on the edges of three- and four-byte ones, and
/// gives the same answer however the bytes are split.
@Suite("Web: UTF-8 check")
struct UTF8ValidatorWebTests {
  /// The standard library's answer.
  static func isUTF8(_ bytes: [UInt8]) -> Bool { String(validating: bytes, as: UTF8.self) != nil }

  @Test func everySequenceOfOneAndTwoBytes() {
    var disagreements: [[UInt8]] = []
    for first in UInt8.min...UInt8.max {
      if UTF8Validator.isValid([first]) != Self.isUTF8([first]) { disagreements.append([first]) }
      for second in UInt8.min...UInt8.max where UTF8Validator.isValid([first, second]) != Self.isUTF8([first, second]) {
        disagreements.append([first, second])
      }
    }
    #expect(disagreements.isEmpty)
  }

  /// The bytes around every boundary of table 3-7.
  static let edges: [UInt8] = [
    0x00, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC1, 0xC2, 0xDF, 0xE0, 0xE1, 0xEC, 0xED, 0xEE, 0xEF, 0xF0,
    0xF1, 0xF3, 0xF4, 0xF5, 0xFF,
  ]

  @Test func theEdgesOfLongerSequences() {
    var disagreements: [[UInt8]] = []
    var checked = 0
    for first in Self.edges {
      for second in Self.edges {
        for third in Self.edges {
          for sequence in [[first, second, third]] + Self.edges.map({ [first, second, third, $0] }) {
            checked += 1
            if UTF8Validator.isValid(sequence) != Self.isUTF8(sequence) { disagreements.append(sequence) }
          }
        }
      }
    }
    #expect(checked == 24 * 24 * 24 * 25)
    #expect(disagreements.isEmpty, "\(disagreements.prefix(10))")
  }

  @Test func splitAnywhere() {
    let text = Array("a\u{E9}\u{20AC}\u{10348}\u{1F44D}\u{10FFFF}z".utf8)
    for cut in 0...text.count {
      var validator = UTF8Validator()
      let first = validator.feed(text[..<cut])
      let second = validator.feed(text[cut...])
      #expect(first && second)
      #expect(validator.isComplete)
    }
  }

  @Test func anUnfinishedCharacterIsNotComplete() {
    var validator = UTF8Validator()
    let begun = validator.feed([0x61, 0xF0, 0x9F])
    #expect(begun)
    #expect(!validator.isComplete)
    let ended = validator.feed([0x91, 0x8D])
    #expect(ended)
    #expect(validator.isComplete)
    #expect(!UTF8Validator.isValid([0xE2, 0x82]))
    #expect(UTF8Validator.isValid([]))
  }
}
