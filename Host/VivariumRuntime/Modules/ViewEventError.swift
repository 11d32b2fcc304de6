import ViperKit

/// A view event the current screen cannot take, with what it does offer.
public struct ViewEventError: Error, Sendable, Equatable, CustomStringConvertible {
  /// What is wrong and what the person can do instead.
  public let message: String
  init(_ message: String) { self.message = message }
  /// The message.
  public var description: String { message }
}
