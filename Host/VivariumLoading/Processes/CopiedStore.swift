import ViperKit

/// A store a plugin process keeps a copy of, to read without asking the
/// host: its whole contents once, then every change.
@MainActor
package protocol CopiedStore: AnyObject {
  /// Everything it holds.
  var entries: [String: ArgumentValue] { get }
  /// Has `changed` called with each change, for as long as `owner` lives.
  func observe(by owner: AnyObject, _ changed: @escaping @MainActor (String, ArgumentValue?) -> Void)
}
