/// Objects kept without being kept alive, in the order they were added:
/// adding and removing one cost the same however many there are (an
/// object released without being removed is dropped at a later add), and
/// listing them costs their number.
struct WeakRegistry<Object: AnyObject> {
  private struct Entry {
    let order: Int
    weak var object: Object?
  }

  private var entries: [ObjectIdentifier: Entry] = [:]
  private var added = 0
  /// How many entries there may be before released ones are dropped.
  private var pruneAt = 16

  /// Adds `object`, after every object added before it.
  mutating func add(_ object: Object) {
    if entries.count >= pruneAt {
      entries = entries.filter { $0.value.object != nil }
      pruneAt = max(16, entries.count * 2)
    }
    added += 1
    entries[ObjectIdentifier(object)] = Entry(order: added, object: object)
  }

  /// Removes `object`.
  mutating func remove(_ object: Object) {
    entries[ObjectIdentifier(object)] = nil
  }

  /// The objects still alive, in the order they were added.
  var objects: [Object] {
    entries.values.sorted { $0.order < $1.order }.compactMap(\.object)
  }

  /// Calls `body` with each object still alive, in no particular order.
  func forEach(_ body: (Object) -> Void) {
    for entry in entries.values { entry.object.map(body) }
  }
}
