import Glibc

/// How many calls of each kind a plugin process made in the last minute:
/// one count per second for sixty seconds, so counting costs the same
/// however many calls there were (Chrome's task manager counts per
/// process the same way).
package struct CallCounts: Sendable {
  /// What a plugin process asks of the host.
  package enum Kind: Int, CaseIterable, Sendable {
    /// A host service: storage, settings, the clock, notifications, the log.
    case hostService
    /// A business service another plugin provides.
    case businessService
    /// An http request through the host.
    case http
  }

  /// The window, in seconds.
  package static let window = 60
  /// Per kind, the count of each second, at the index of that second modulo the window.
  private var counts = Array(repeating: Array(repeating: 0, count: CallCounts.window), count: Kind.allCases.count)
  /// The second each bucket counts.
  private var seconds = Array(repeating: -1, count: CallCounts.window)

  /// No call counted yet.
  package init() {}

  /// Counts a call of `kind` made at `second` (whole seconds of a monotonic clock).
  package mutating func count(_ kind: Kind, at second: Int) {
    let bucket = second % Self.window
    if seconds[bucket] != second {
      seconds[bucket] = second
      for index in counts.indices { counts[index][bucket] = 0 }
    }
    counts[kind.rawValue][bucket] += 1
  }

  /// The calls of `kind` made in the window that ends at `second`.
  package func count(_ kind: Kind, endingAt second: Int) -> Int {
    seconds.indices.reduce(0) { total, bucket in
      seconds[bucket] > second - Self.window && seconds[bucket] <= second
        ? total + counts[kind.rawValue][bucket] : total
    }
  }

  /// Whole seconds of the monotonic clock now.
  package static var now: Int {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return Int(time.tv_sec)
  }
}
