import Foundation

/// The items data source shared by the items plugins: fixtures compiled in.
///
/// Each module's interactor owns one (sharing one per process is not done
/// yet: the host's tests load the plugins in one process and would see each
/// other's changes).
@MainActor
public final class ItemsDataManager {
  private var items: [Item]

  /// A data manager holding the fixture items.
  public init() {
    items = ItemsDataManager.fixtures
  }

  /// Every item, in creation order.
  public func allItems() -> [Item] { items }

  /// The item with `id`, if there is one.
  public func item(id: Int) -> Item? { items.first { $0.id == id } }

  /// Removes every item and returns how many there were.
  public func deleteAll() -> Int {
    defer { items.removeAll() }
    return items.count
  }

  /// Flips the enabled flag of item `id`; returns the updated item.
  public func toggle(id: Int) -> Item? {
    guard let index = items.firstIndex(where: { $0.id == id }) else { return nil }
    items[index].enabled.toggle()
    return items[index]
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
