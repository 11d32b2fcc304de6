/// A rate: at most `rate` takes a second on average, with bursts of as
/// many; tokens come back continuously.
struct TokenBucket {
  /// Tokens a second, and the most held.
  let rate: Double
  /// Tokens held now.
  private var tokens: Double
  /// When tokens were last counted.
  private var last: Double

  /// A full bucket of `rate` tokens a second, at time `now`.
  init(rate: Int, now: Double) {
    self.rate = Double(max(rate, 1))
    tokens = self.rate
    last = now
  }

  /// Takes a token at time `now`: false when there is none.
  mutating func take(now: Double) -> Bool {
    tokens = min(rate, tokens + max(0, now - last) * rate)
    last = now
    guard tokens >= 1 else { return false }
    tokens -= 1
    return true
  }
}
