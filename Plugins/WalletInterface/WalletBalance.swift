import ViperKit

/// The event the Wallet plugin announces whenever the balance changes,
/// declared once here, in the small package the publisher and its
/// subscribers depend on (each links its own copy; they share only the
/// topic's name and the payload's form).
public enum WalletBalance: EventTopic {
  /// `wallet.balance-changed`.
  public static let name = "wallet.balance-changed"

  /// The balance after the change.
  public struct Payload: Codable, Sendable, Equatable {
    /// The balance, in whole euros.
    public var balance: Int

    /// The balance `balance`.
    public init(balance: Int) {
      self.balance = balance
    }
  }
}
