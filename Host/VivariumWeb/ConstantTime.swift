/// Comparison of secrets (tokens, cookies) in time that does not depend on
/// where they differ: a comparison that stops at the first differing byte
/// tells someone timing it how much of a guess was right.
package enum ConstantTime {
  /// Whether `presented` and `expected` are the same bytes. Every byte of
  /// `presented` is read whatever the bytes are, and its length alone sets
  /// how long this takes: when the lengths differ, `presented` is still
  /// read whole, against `expected` repeated (or zero), and the answer is
  /// false.
  package static func equal(_ presented: [UInt8], _ expected: [UInt8]) -> Bool {
    var difference: UInt8 = presented.count == expected.count ? 0 : 1
    if expected.isEmpty {
      for byte in presented { difference |= byte | 1 }
    } else {
      var place = 0
      for byte in presented {
        difference |= byte ^ expected[place]
        place += 1
        if place == expected.count { place = 0 }
      }
    }
    return difference == 0
  }

  /// Whether `presented` and `expected` are the same text, byte for byte in
  /// UTF-8 (no Unicode equivalence), compared as the bytes are.
  package static func equal(_ presented: String, _ expected: String) -> Bool {
    equal(Array(presented.utf8), Array(expected.utf8))
  }
}
