import Testing

@testable import VivariumSupport

/// The queue under a plugin process's inbox and its outstanding calls.
@Suite("First-in first-out queue")
struct FIFOTests {
  @Test func aQueueThatNeverEmptiesKeepsItsOrder() {
    var queue = FIFO<Int>()
    var taken: [Int] = []
    for value in 0..<10_000 {
      queue.append(value)
      // Two always wait: the queue never empties, so it must drop what was
      // taken as it goes, and still give everything back in order.
      if value >= 2, let first = queue.popFirst() { taken.append(first) }
    }
    #expect(taken == Array(0..<9_998))
    #expect(Array(queue.elements) == [9_998, 9_999])
  }

  @Test func anElementIsTakenFromAnywhere() {
    var queue = FIFO<Int>()
    for value in 0..<5 { queue.append(value) }
    _ = queue.popFirst()
    let elements = queue.elements
    #expect(queue.remove(at: elements.index(after: elements.startIndex)) == 2)
    #expect(queue.remove(at: queue.elements.startIndex) == 1)
    #expect(queue.first == 3)
    #expect(Array(queue.elements) == [3, 4])
    queue.removeAll()
    #expect(queue.isEmpty && queue.popFirst() == nil)
  }
}
