import Foundation
import ViperKit

/// The items data source shared by the items plugins: fixtures compiled in,
/// and what the person changed kept in the app-wide settings
/// (`items.ID.enabled`, `items.ID.deleted`).
///
/// The changes live in the host, not in a module or a plugin image: every
/// data manager over the same settings sees them, whichever plugin or process
/// it is in, so an item changed in the detail is changed in the list and when
/// the detail is opened again, and after a restart.
@MainActor
public final class ItemsDataManager {
  private let settings: (any SettingsStore)?
  /// Changes, when there is no settings store to keep them in.
  private var unsaved: [String: ArgumentValue] = [:]

  /// A data manager keeping changes in `settings` (in memory when nil).
  public init(settings: (any SettingsStore)?) {
    self.settings = settings
  }

  /// Every item not deleted, in creation order.
  public func allItems() -> [Item] {
    ItemsDataManager.fixtures.filter { !flag("deleted", of: $0.id, default: false) }.map { item in
      var item = item
      item.enabled = flag("enabled", of: item.id, default: item.enabled)
      return item
    }
  }

  /// The item with `id`, if there is one.
  public func item(id: Int) -> Item? { allItems().first { $0.id == id } }

  /// Removes every item and returns how many there were; throws when the
  /// settings cannot be saved.
  public func deleteAll() throws -> Int {
    let items = allItems()
    for item in items { try set("deleted", of: item.id, true) }
    return items.count
  }

  /// Flips the enabled flag of item `id`; returns the updated item. Throws
  /// when the settings cannot be saved.
  public func toggle(id: Int) throws -> Item? {
    guard var item = item(id: id) else { return nil }
    item.enabled.toggle()
    try set("enabled", of: id, item.enabled)
    return item
  }

  private func key(_ name: String, of id: Int) -> String { "items.\(id).\(name)" }

  private func flag(_ name: String, of id: Int, default value: Bool) -> Bool {
    let key = key(name, of: id)
    guard case .bool(let saved)? = settings.map({ $0.value(forKey: key) }) ?? unsaved[key] else { return value }
    return saved
  }

  private func set(_ name: String, of id: Int, _ value: Bool) throws {
    let key = key(name, of: id)
    if let settings { try settings.set(.bool(value), forKey: key) } else { unsaved[key] = .bool(value) }
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
