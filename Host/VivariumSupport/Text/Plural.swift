/// Counts in words: `1 module`, `2 modules`.
package enum Plural {
  /// `count` and `noun`, with an `s` (or `plural`) unless `count` is 1.
  package static func count(_ count: Int, _ noun: String, plural: String? = nil) -> String {
    "\(count) " + (count == 1 ? noun : plural ?? noun + "s")
  }
}
