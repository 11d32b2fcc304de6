/// Entries that each belong to an owner held weakly, kept under a key in
/// the order they were added: one per owner and key (adding again replaces
/// the earlier one), and none whose owner is gone. Adding costs the same
/// however many entries there are, and reading a key's entries costs what
/// that key holds: an owner's earlier entry is found by its identity, and
/// the entries of owners gone are swept out of a key's list once it has
/// doubled since its last sweep (scanning every entry at each addition
/// made n subscriptions cost n²).
package struct OwnedEntries<Key: Hashable, Value> {
  private struct Entry {
    weak var owner: AnyObject?
    let value: Value
  }

  /// One key's entries, in the order added; nil where one was replaced.
  private struct List {
    var entries: [Entry?] = []
    var slots: [ObjectIdentifier: Int] = [:]
    var sweepAt = 16

    mutating func add(_ value: Value, for owner: AnyObject) {
      let slot = ObjectIdentifier(owner)
      if let index = slots[slot] { entries[index] = nil }
      slots[slot] = entries.count
      entries.append(Entry(owner: owner, value: value))
      if entries.count >= sweepAt { sweep() }
    }

    var live: [Value] { entries.compactMap { entry in entry.flatMap { $0.owner != nil ? $0.value : nil } } }

    mutating func sweep() {
      entries = entries.filter { $0?.owner != nil }
      slots = [:]
      for (index, entry) in entries.enumerated() {
        if let owner = entry?.owner { slots[ObjectIdentifier(owner)] = index }
      }
      sweepAt = max(16, entries.count * 2)
    }
  }

  private var lists: [Key: List] = [:]

  /// No entries.
  package init() {}

  /// Adds `value` for `owner` under `key`, last, in place of the entry
  /// `owner` had under `key`, if any.
  package mutating func add(_ value: Value, for owner: AnyObject, key: Key) {
    lists[key, default: List()].add(value, for: owner)
  }

  /// The values under `key` whose owner lives, in the order added.
  package func values(for key: Key) -> [Value] { lists[key]?.live ?? [] }

  /// Whether a live owner has an entry under `key`.
  package func contains(key: Key) -> Bool {
    lists[key]?.entries.contains { $0?.owner != nil } ?? false
  }

  /// How many entries are kept, those of owners gone not yet swept among
  /// them (for tests).
  package var kept: Int { lists.values.reduce(0) { $0 + $1.entries.count { $0 != nil } } }
}
