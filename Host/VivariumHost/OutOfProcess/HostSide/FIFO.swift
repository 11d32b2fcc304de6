/// A first-in first-out queue over an array: taking the oldest moves
/// nothing, and what was taken is dropped from the front once it outgrows
/// what is left, so a queue that never empties does not grow without end.
struct FIFO<Element> {
  private var items: [Element] = []
  private var head = 0

  /// Whether nothing is waiting.
  var isEmpty: Bool { head == items.count }

  /// The oldest element, if any.
  var first: Element? { isEmpty ? nil : items[head] }

  /// The elements waiting, oldest first, indexed as ``remove(at:)`` takes them.
  var elements: ArraySlice<Element> { items[head...] }

  /// Adds `element` last.
  mutating func append(_ element: Element) { items.append(element) }

  /// Takes the oldest element, if any.
  mutating func popFirst() -> Element? {
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
  mutating func remove(at index: Int) -> Element {
    index == head ? popFirst()! : items.remove(at: index)
  }

  /// Takes every element.
  mutating func removeAll() { (items, head) = ([], 0) }
}
