import Foundation

extension Array where Element: Sendable {
  /// `transform` applied to every element, on as many threads as there are
  /// cores, with the results in the elements' order. For work that waits on
  /// child processes, such as probing plugins and running checks.
  func concurrentMap<Result: Sendable>(_ transform: @Sendable (Element) -> Result) -> [Result] {
    let slots = Slots<Result>(count: count)
    DispatchQueue.concurrentPerform(iterations: count) { index in
      slots.set(index, transform(self[index]))
    }
    return slots.values
  }
}

/// Results by index, filled from several threads.
private final class Slots<Value: Sendable>: @unchecked Sendable {
  private let lock = NSLock()
  private var slots: [Value?]

  init(count: Int) { slots = Array(repeating: nil, count: count) }

  func set(_ index: Int, _ value: Value) { lock.withLock { slots[index] = value } }

  var values: [Value] { lock.withLock { slots.map { $0! } } }
}
