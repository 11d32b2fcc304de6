/// A message between a module and the modules around it: an output it emits
/// to its owner (the parent that embeds it, or the module that opened it), or
/// an input a parent sends to it. Declared by name and fields in the contract
/// (``Contract/outputs``, ``Contract/inputs``); the host refuses undeclared
/// ones, naming the module and the message.
public struct Message: Codable, Hashable, Sendable, CustomStringConvertible {
  /// The declared name, for example `picked`.
  public var name: String
  /// The payload, typed as the contract declares.
  public var fields: [String: ArgumentValue]

  /// Creates a message.
  public init(_ name: String, _ fields: [String: ArgumentValue] = [:]) {
    self.name = name
    self.fields = fields
  }

  /// `name(field: value, …)`.
  public var description: String {
    fields.isEmpty
      ? name
      : name + "(" + fields.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: ", ") + ")"
  }
}

/// Where a message a module receives comes from.
public enum MessageOrigin: Hashable, Sendable {
  /// From the parent that embeds the module: one of its declared inputs.
  case parent(urn: String)
  /// From a child embedded in `slot`: one of the child's declared outputs.
  case child(slot: String, urn: String)
  /// From a module this module pushed or presented: its result.
  case opened(urn: String)
}

/// Receives messages from the modules around a module: usually its presenter.
///
/// A conformer must only decide what to do (ask its interactor, redraw,
/// navigate), as for a view event; it must not trap on a message it does not
/// expect, since a newer parent may send more.
public protocol MessageReceiver: AnyObject {
  /// Called by the host, after the sender's contract was checked.
  func receive(_ message: Message, from origin: MessageOrigin)
}

/// The host's message delivery, given to each module in ``ModuleContext``.
/// Conformers are the host and test harnesses. A message that is not declared
/// in the contract is not delivered; the host reports it.
public protocol MessagePort: AnyObject {
  /// Sends `message`, one of this module's declared outputs, to its owner.
  func emit(_ message: Message)
  /// Sends `message` to every child in this module's `slot`; it must be one of
  /// their declared inputs.
  func send(_ message: Message, toSlot slot: String)
}
