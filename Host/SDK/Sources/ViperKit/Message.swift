/// A message between a module and the modules around it: an output it emits
/// to its owner (the parent that embeds it, or the module that opened it), or
/// an input a parent sends to it. Declared by name and fields in the contract
/// (``Contract/outputs``, ``Contract/inputs``); the host refuses undeclared
/// ones, naming the module and the message.
///
/// Modules send and receive ``ModuleMessage`` types; this is the form the
/// host checks against the contract.
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

  /// `value` as a message named `M.name`. A field of a type messages cannot
  /// carry (see ``ModuleMessage``) is sent as a string naming the type, which
  /// the host refuses against the contract, naming the field.
  public init<M: ModuleMessage>(_ value: M) {
    self.init(M.name, FieldsEncoder.fields(of: value))
  }

  /// `name(field: value, …)`.
  public var description: String {
    fields.isEmpty
      ? name
      : name + "(" + fields.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: ", ") + ")"
  }
}

/// A typed message: a `Codable` struct whose stored properties are its
/// fields, each a `String`, `Int`, `Bool` or `Double`. Declare it in the contract with
/// ``MessageSpec/init(_:_:)``, send it with ``MessagePort/emit(_:)-(M)`` and
/// read it with ``init(_:)``:
///
/// ```swift
/// struct ItemChanged: ModuleMessage {
///   var itemID: Int
///   var enabled: Bool
/// }
/// // contract: outputs: [MessageSpec(ItemChanged.self, "The item's state changed.")]
/// messages.emit(ItemChanged(itemID: 7, enabled: true))
/// // receiver: if let change = ItemChanged(message) { … }
/// ```
public protocol ModuleMessage: Codable, Sendable {
  /// The message's name in the contract. Defaults to the type's name with
  /// its first letter lower-cased (`ItemChanged` is `itemChanged`).
  static var name: String { get }
}

extension ModuleMessage {
  /// The type's name with its first letter lower-cased.
  public static var name: String {
    let typeName = _typeName(Self.self, qualified: false)
    return typeName.prefix(1).lowercased() + typeName.dropFirst()
  }

  /// The value `message` carries, when it is this type's message (same name,
  /// fields that decode); nil otherwise. The host has already checked the
  /// fields against the contract.
  public init?(_ message: Message) {
    guard message.name == Self.name, let value = try? Self(from: FieldsDecoder(fields: message.fields)) else {
      return nil
    }
    self = value
  }
}

/// The host's message to a module whose modal closed without sending it
/// any output: the person cancelled (Esc, Back, the modal's own `dismiss()`
/// or `pop()` of its first screen). It comes from
/// ``MessageOrigin/opened(urn:)`` naming the modal, after the modal has
/// gone, and no contract declares it. A modal that emitted an output to its
/// opener closes without it. Pushed screens never send it.
///
/// A conformer of ``MessageReceiver`` that must know when a modal it opened
/// goes away unanswered checks for it, with no string:
///
/// ```swift
/// case .opened:
///   if let picked = Picked(message) { … } else if Dismissed(message) != nil { … }
/// ```
///
/// One that need not know ignores it, as any message it does not expect.
/// Since ViperKit 2.5; hosts before it do not send it.
public struct Dismissed: ModuleMessage, Hashable {
  /// `dismissed`.
  public static let name = "dismissed"

  /// The message; it has no fields.
  public init() {}
}

/// Where a message a module receives comes from. Its `Codable` form is how
/// it crosses to a plugin process.
public enum MessageOrigin: Codable, Hashable, Sendable {
  /// From the parent that embeds the module: one of its declared inputs.
  case parent(urn: String)
  /// From a child embedded in `slot`: one of the child's declared outputs.
  case child(slot: String, urn: String)
  /// From a module this module pushed or presented: its result.
  case opened(urn: String)
}

/// Receives messages from the modules around a module: usually its
/// presenter. ``Module`` finds it among the role objects.
///
/// A conformer must only decide what to do (ask its interactor, redraw,
/// navigate), as for a view event; it must ignore a message it does not
/// expect, since a newer parent may send more.
@MainActor
public protocol MessageReceiver: AnyObject {
  /// Called by the host, after the sender's contract was checked. Read it
  /// with the ``ModuleMessage`` types the contract declares:
  /// `if let change = ItemChanged(message) { … }`.
  func receive(_ message: Message, from origin: MessageOrigin)
}

/// The host's message delivery, given to each module in ``ModuleContext``.
/// Conformers are the host and test harnesses. A message that is not declared
/// in the contract is not delivered; the host reports it.
@MainActor
public protocol MessagePort: AnyObject {
  /// Sends `message`, one of this module's declared outputs, to its owner.
  func emit(_ message: Message)
  /// Sends `message` to every child in this module's `slot`; it must be one of
  /// their declared inputs.
  func send(_ message: Message, toSlot slot: String)
}

extension MessagePort {
  /// Sends `value`, one of this module's declared outputs, to its owner.
  public func emit<M: ModuleMessage>(_ value: M) { emit(Message(value)) }

  /// Sends `value` to every child in `slot`; it must be one of their
  /// declared inputs.
  public func send<M: ModuleMessage>(_ value: M, toSlot slot: String) { send(Message(value), toSlot: slot) }
}
