import ViperKit

/// A view event the current screen cannot take, with what it does offer.
package struct ViewEventError: Error, Sendable, Equatable, CustomStringConvertible {
  /// What is wrong and what the person can do instead.
  package let message: String
  init(_ message: String) { self.message = message }
  /// The message.
  package var description: String { message }
}
