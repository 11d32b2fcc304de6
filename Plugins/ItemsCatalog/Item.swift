import Foundation
import ViperKit

/// An item, the entity both items modules work on (after VIPER-S).
public struct Item: ViperEntity, Codable, Equatable {
  /// Stable identifier, used in `items:detail:{itemID}`.
  public let id: Int
  /// What the item is called.
  public let name: String
  /// Whether the item is enabled.
  public var enabled: Bool
  /// When the item was created.
  public let date: Date

  /// Creates an item.
  public init(id: Int, name: String, enabled: Bool, date: Date) {
    self.id = id
    self.name = name
    self.enabled = enabled
    self.date = date
  }
}

/// Formats item dates the same way in every items module: `3 Jan 2026`, in
/// UTC, whatever the machine's locale.
public enum ItemDateFormat {
  /// The display form of `date`.
  public static func display(_ date: Date) -> String {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = .gmt
    calendar.locale = Locale(identifier: "en_US_POSIX")
    let parts = calendar.dateComponents([.day, .month, .year], from: date)
    let month = calendar.shortMonthSymbols[(parts.month ?? 1) - 1]
    return "\(parts.day ?? 1) \(month) \(parts.year ?? 1970)"
  }
}

/// The message `items:detail` emits to the module that opened it when the
/// person enables or disables the item (`itemChanged` in the contracts).
public struct ItemChanged: ModuleMessage, Equatable {
  /// The item's ``Item/id``.
  public var itemID: Int
  /// Whether the item is now enabled.
  public var enabled: Bool

  /// Creates the message.
  public init(itemID: Int, enabled: Bool) {
    self.itemID = itemID
    self.enabled = enabled
  }
}
