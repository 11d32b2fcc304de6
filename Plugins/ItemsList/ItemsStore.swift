import Foundation
import ItemsCatalog
import ViperKit

/// The items the ItemsList plugin owns: fixtures compiled in, and what the
/// person changed kept in the plugin's own storage (`item.ID.enabled`,
/// `item.ID.deleted`), which only this plugin's process reads.
///
/// Before the items service, both items plugins kept those changes in the
/// app-wide settings (`items.ID.enabled`, `items.ID.deleted`); the first use
/// of a store carries them over into the storage, then removes them from
/// the settings, so nothing saved under the old keys is lost.
@MainActor
final class ItemsStore {
  private let storage: (any KeyValueStore)?
  private let settings: (any SettingsStore)?
  /// Changes, when there is no storage to keep them in.
  private var unsaved: [String: String] = [:]
  private var carriedOver = false

  /// A store keeping changes in `storage` (in memory when nil), carrying
  /// over what `settings` holds under the old keys.
  init(storage: (any KeyValueStore)?, settings: (any SettingsStore)?) {
    self.storage = storage
    self.settings = settings
  }

  /// Every item not deleted, in creation order.
  func allItems() async throws(ItemsFailure) -> [Item] {
    try await carryOverOldSettings()
    return ItemsStore.fixtures.filter { !flag("deleted", of: $0.id, default: false) }.map { item in
      var item = item
      item.enabled = flag("enabled", of: item.id, default: item.enabled)
      return item
    }
  }

  /// The item with `id`.
  func item(id: Int) async throws(ItemsFailure) -> Item {
    let items = try await allItems()
    guard let item = items.first(where: { $0.id == id }) else {
      let known = items.map { String($0.id) }.joined(separator: ", ")
      throw ItemsFailure(.noItem, "There is no item \(id). Items: \(known.isEmpty ? "none" : known).")
    }
    return item
  }

  /// Deletes the items `filter` lets through; answers how many.
  func delete(_ filter: ItemsFilter) async throws(ItemsFailure) -> Int {
    let items = try await allItems().filter(filter.admits)
    for item in items { try await save("deleted", of: item.id, true) }
    return items.count
  }

  /// Enables or disables an item; answers it as it is now.
  func set(_ enabling: ItemEnabling) async throws(ItemsFailure) -> Item {
    var item = try await item(id: enabling.itemID)
    try await save("enabled", of: item.id, enabling.enabled)
    item.enabled = enabling.enabled
    return item
  }

  private func key(_ name: String, of id: Int) -> String { "item.\(id).\(name)" }

  private func flag(_ name: String, of id: Int, default value: Bool) -> Bool {
    let key = key(name, of: id)
    guard let saved = storage.map({ $0.value(forKey: key) }) ?? unsaved[key] else { return value }
    return saved == "true"
  }

  private func save(_ name: String, of id: Int, _ value: Bool) async throws(ItemsFailure) {
    let key = key(name, of: id)
    guard let storage else {
      unsaved[key] = String(value)
      return
    }
    do {
      try await storage.save(String(value), forKey: key)
    } catch {
      throw ItemsFailure(.notSaved, "The item could not be saved: \(error)")
    }
  }

  /// Moves `items.ID.enabled` and `items.ID.deleted` from the settings into
  /// the storage, each removed from the settings only once it is saved.
  private func carryOverOldSettings() async throws(ItemsFailure) {
    guard !carriedOver else { return }
    if let settings {
      for item in ItemsStore.fixtures {
        for name in ["enabled", "deleted"] {
          let old = "items.\(item.id).\(name)"
          guard case .bool(let value)? = settings.value(forKey: old) else { continue }
          try await save(name, of: item.id, value)
          do {
            try await settings.save(nil, forKey: old)
          } catch {
            throw ItemsFailure(.notSaved, "The old setting \(old) could not be removed: \(error)")
          }
        }
      }
    }
    carriedOver = true
  }

  private static let fixtures: [Item] = [
    Item(id: 1, name: "Buy milk", enabled: true, date: day(2026, 1, 3)),
    Item(id: 2, name: "Write the contract", enabled: true, date: day(2026, 2, 14)),
    Item(id: 3, name: "Water the plants", enabled: false, date: day(2026, 3, 1)),
    Item(id: 4, name: "Book the dentist", enabled: false, date: day(2026, 4, 22)),
  ]

  private static func day(_ year: Int, _ month: Int, _ day: Int) -> Date {
    DateComponents(calendar: Calendar(identifier: .gregorian), timeZone: .gmt, year: year, month: month, day: day).date!
  }
}

/// Provides ``ItemsService`` from the plugin's ``ItemsStore``.
@MainActor
final class ItemsProvider: ServiceProvider {
  static let services: [Services.Name] = [.storage, .settings]
  private let store: ItemsStore

  init(services: Services) {
    store = ItemsStore(storage: services.storage, settings: services.settings)
  }

  func answer(_ answers: inout ServiceAnswers<ItemsService>) {
    answers.on(\.list) { [store] filter in try await store.allItems().filter(filter.admits) }
    answers.on(\.item) { [store] id in try await store.item(id: id) }
    answers.on(\.setEnabled) { [store] enabling in try await store.set(enabling) }
    answers.on(\.delete) { [store] filter in try await store.delete(filter) }
  }
}
