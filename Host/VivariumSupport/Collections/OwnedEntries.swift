/// Entries that each belong to an owner held weakly, in the order they
/// were added: one per owner and key (adding again replaces the earlier
/// one), and none whose owner is gone. Adding costs the same however many
/// entries there are: an owner's earlier entry is found by its identity,
/// and the entries of owners gone are swept out once the list has doubled
/// since the last sweep (scanning the list at each addition made n
/// subscriptions cost n²).
package struct OwnedEntries<Key: Hashable, Value> {
  private struct Entry {
    weak var owner: AnyObject?
    let key: Key
    let value: Value
  }

  private struct Slot: Hashable {
    let owner: ObjectIdentifier
    let key: Key
  }

  private var entries: [Entry?] = []
  private var slots: [Slot: Int] = [:]
  private var sweepAt = 16

  /// No entries.
  package init() {}

  /// Adds `value` for `owner` under `key`, last, in place of the entry
  /// `owner` had under `key`, if any.
  package mutating func add(_ value: Value, for owner: AnyObject, key: Key) {
    let slot = Slot(owner: ObjectIdentifier(owner), key: key)
    if let index = slots[slot] { entries[index] = nil }
    slots[slot] = entries.count
    entries.append(Entry(owner: owner, key: key, value: value))
    if entries.count >= sweepAt { sweep() }
  }

  /// The values under `key` whose owner lives, in the order added.
  package func values(for key: Key) -> [Value] {
    entries.compactMap { entry in entry.flatMap { $0.owner != nil && $0.key == key ? $0.value : nil } }
  }

  /// Whether a live owner has an entry under `key`.
  package func contains(key: Key) -> Bool {
    entries.contains { $0.map { $0.owner != nil && $0.key == key } ?? false }
  }

  /// How many entries are kept, those of owners gone not yet swept among
  /// them (for tests).
  package var kept: Int { entries.count { $0 != nil } }

  private mutating func sweep() {
    entries = entries.filter { $0?.owner != nil }
    slots = [:]
    for (index, entry) in entries.enumerated() {
      guard let entry, let owner = entry.owner else { continue }
      slots[Slot(owner: ObjectIdentifier(owner), key: entry.key)] = index
    }
    sweepAt = max(16, entries.count * 2)
  }
}
