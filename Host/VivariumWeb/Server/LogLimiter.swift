/// Log lines at most ``linesPerSecond`` a second, in bursts of as many: a
/// flood of hostile clients cannot flood the log. The lines left out are
/// counted, and the count logged once a second has passed.
struct LogLimiter {
  /// The most lines a second.
  static let linesPerSecond = 20

  /// Where lines go.
  private let write: @Sendable (String) -> Void
  /// The rate.
  private var bucket: TokenBucket
  /// Lines left out since the last count was logged.
  private var leftOut = 0
  /// When the count of lines left out is logged, if any are.
  private(set) var nextFlush: Double?

  /// A limiter writing to `log`.
  init(log: @escaping @Sendable (String) -> Void) {
    write = log
    bucket = TokenBucket(rate: Self.linesPerSecond, now: Socket.now())
  }

  /// Logs `line`, unless too many lines came just before it.
  mutating func log(_ line: String, now: Double) {
    flush(now: now)
    if bucket.take(now: now) {
      write(line)
    } else {
      leftOut += 1
      if nextFlush == nil { nextFlush = now + 1 }
    }
  }

  /// Logs how many lines were left out, once their second has passed.
  mutating func flush(now: Double) {
    guard let due = nextFlush, now >= due else { return }
    write("web: \(leftOut) more log lines left out")
    leftOut = 0
    nextFlush = nil
  }
}
