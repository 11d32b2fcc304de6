import ViperKit

/// The items business service: the interface the ItemsList plugin, which
/// owns the items, provides, and both items modules use (ItemsDetail from a
/// plugin of its own). Declared once here, in the package both depend on
/// (as a provider publishes its interface for consumers).
public enum ItemsService: ServiceInterface {
  /// `items`.
  public static let name = "items"
  /// The interface's version.
  public static let version: SemanticVersion = "1.0"
  /// The items the filter lets through, not deleted, in creation order.
  public static let list = ServiceOperation<ItemsFilter, [Item]>("list", failure: ItemsFailure.self)
  /// The item with an id; fails with ``ItemsFailure/Kind/noItem``.
  public static let item = ServiceOperation<Int, Item>("item", failure: ItemsFailure.self)
  /// Enables or disables an item and answers it as it is now.
  public static let setEnabled = ServiceOperation<ItemEnabling, Item>("setEnabled", failure: ItemsFailure.self)
  /// Deletes the items the filter lets through and answers how many.
  public static let delete = ServiceOperation<ItemsFilter, Int>("delete", failure: ItemsFailure.self)
}

/// Which items an operation works on.
public enum ItemsFilter: String, Codable, Sendable, CaseIterable {
  /// Every item.
  case all
  /// The enabled items.
  case enabled
  /// The disabled items.
  case disabled

  /// Whether the filter lets `item` through.
  public func admits(_ item: Item) -> Bool {
    switch self {
    case .all: true
    case .enabled: item.enabled
    case .disabled: !item.enabled
    }
  }
}

/// The request of ``ItemsService/setEnabled``.
public struct ItemEnabling: Codable, Sendable, Equatable {
  /// The item's ``Item/id``.
  public var itemID: Int
  /// Whether it is to be enabled.
  public var enabled: Bool

  /// The request to make item `itemID` enabled or not.
  public init(itemID: Int, enabled: Bool) {
    self.itemID = itemID
    self.enabled = enabled
  }
}

/// Why an items operation failed: the service's own failure, which a
/// consumer catches as this type.
public struct ItemsFailure: Error, Codable, Sendable, Equatable {
  /// What went wrong, stable.
  public enum Kind: String, Codable, Sendable {
    /// There is no item with the id asked for.
    case noItem
    /// The change could not be saved; nothing changed.
    case notSaved
  }

  /// What went wrong.
  public var kind: Kind
  /// Why, for people, as a sentence: `There is no item 9. Items: 1, 2, 3.`
  public var reason: String

  /// A failure.
  public init(_ kind: Kind, _ reason: String) {
    self.kind = kind
    self.reason = reason
  }
}

extension ItemsService {
  /// Why a call of this service failed, for people, as a sentence: the
  /// service's own reason, or the host's (no provider, a crash, a deadline).
  public static func reason(of error: any Error) -> String {
    switch error {
    case let failure as ItemsFailure: failure.reason
    case let error as ServiceCallError: "The items service failed (\(error.kind.rawValue)): \(error.reason)"
    default: "The items service failed: \(error)"
    }
  }
}
