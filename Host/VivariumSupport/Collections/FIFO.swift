/// A first-in first-out queue over an array: taking the oldest moves
/// nothing, and what was taken is dropped from the front once it outgrows
/// what is left, so a queue that never empties does not grow without end.
package struct FIFO<Element> {
  private var items: [Element] = []
  private var head = 0

  /// An empty queue.
  package init() {}

  /// Whether nothing is waiting.
  package var isEmpty: Bool { head == items.count }

  /// The oldest element, if any.
  package var first: Element? { isEmpty ? nil : items[head] }

  /// The elements waiting, oldest first, indexed as ``remove(at:)`` takes them.
  package var elements: ArraySlice<Element> { items[head...] }

  /// Adds `element` last.
  package mutating func append(_ element: Element) { items.append(element) }

  /// Takes the oldest element, if any.
  package mutating func popFirst() -> Element? {
    guard !isEmpty else { return nil }
    let element = items[head]
    head += 1
    if head == items.count {
      items.removeAll(keepingCapacity: true)
      head = 0
    } else if head > 64, head > items.count / 2 {
      items.removeFirst(head)
      head = 0
    }
    return element
  }

  /// Takes the element at `index` of ``elements``, wherever it is.
  package mutating func remove(at index: Int) -> Element {
    index == head ? popFirst()! : items.remove(at: index)
  }

  /// Takes every element.
  package mutating func removeAll() { (items, head) = ([], 0) }
}
