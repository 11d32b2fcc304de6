import Foundation
import Synchronization

extension Array where Element: Sendable {
  /// `transform` applied to every element, on as many threads as there are
  /// cores, with the results in the elements' order. For work that waits on
  /// child processes, such as probing plugins and running checks.
  package func concurrentMap<Result: Sendable>(_ transform: @Sendable (Element) -> Result) -> [Result] {
    let slots = Mutex<[Result?]>([Result?](repeating: nil, count: count))
    DispatchQueue.concurrentPerform(iterations: count) { index in
      let result = transform(self[index])
      slots.withLock { $0[index] = result }
    }
    return slots.withLock { $0.map { $0! } }
  }
}
