/// One thing a module asks of the host through its router or message port:
/// navigation, composition or a message. Every request a module can make is
/// a case here, declared once: the host, the test harness and the channel to
/// a plugin process all take this value, and ``HostLink`` turns each method
/// of ``AppRouter`` and ``MessagePort`` into one.
///
/// Switch over it with an `@unknown default`: a later minor release of the
/// SDK may add requests.
public enum HostRequest: Hashable, Sendable, Codable {
  /// ``AppRouter/push(_:)-(String)``: the module at the URN on top of the
  /// asking module's stack.
  case push(String)
  /// ``AppRouter/present(_:)-(String)``: the module at the URN, modally.
  case present(String)
  /// ``AppRouter/replace(_:)-(String)``: the module at the URN in place of
  /// the asking module's screen.
  case replace(String)
  /// ``AppRouter/pop()``.
  case pop
  /// ``AppRouter/popToRoot()``.
  case popToRoot
  /// ``AppRouter/dismiss()``.
  case dismiss
  /// ``AppRouter/embed(_:in:)-(String,_)``: the module at the URN as a child
  /// in the slot.
  case embed(String, slot: String)
  /// ``AppRouter/removeChildren(in:)``.
  case removeChildren(slot: String)
  /// ``AppRouter/showChild(at:in:)``.
  case showChild(Int, slot: String)
  /// ``MessagePort/emit(_:)-(Message)``: an output to the module's owner.
  case emit(Message)
  /// ``MessagePort/send(_:toSlot:)-(Message,_)``: an input to the children
  /// in the slot.
  case send(Message, slot: String)
}

/// What a module's router and message port send through, as one value per
/// request. A conformer implements ``request(_:)`` alone: every method of
/// ``AppRouter`` and ``MessagePort`` comes from it, so a request added to
/// ``HostRequest`` needs no new method here. Hosts and test harnesses
/// conform; a plugin never needs to.
@MainActor
public protocol HostLink: AppRouter, MessagePort {
  /// Carries out `request` for the asking module, or queues it to be
  /// carried out after the current call returns, in order; a request that
  /// cannot be carried out is reported to the person, not thrown.
  func request(_ request: HostRequest)
}

extension HostLink {
  /// Sends ``HostRequest/push(_:)``.
  public func push(_ urn: String) { request(.push(urn)) }
  /// Sends ``HostRequest/present(_:)``.
  public func present(_ urn: String) { request(.present(urn)) }
  /// Sends ``HostRequest/replace(_:)``.
  public func replace(_ urn: String) { request(.replace(urn)) }
  /// Sends ``HostRequest/pop``.
  public func pop() { request(.pop) }
  /// Sends ``HostRequest/popToRoot``.
  public func popToRoot() { request(.popToRoot) }
  /// Sends ``HostRequest/dismiss``.
  public func dismiss() { request(.dismiss) }
  /// Sends ``HostRequest/embed(_:slot:)``.
  public func embed(_ urn: String, in slot: String) { request(.embed(urn, slot: slot)) }
  /// Sends ``HostRequest/removeChildren(slot:)``.
  public func removeChildren(in slot: String) { request(.removeChildren(slot: slot)) }
  /// Sends ``HostRequest/showChild(_:slot:)``.
  public func showChild(at index: Int, in slot: String) { request(.showChild(index, slot: slot)) }
  /// Sends ``HostRequest/emit(_:)``.
  public func emit(_ message: Message) { request(.emit(message)) }
  /// Sends ``HostRequest/send(_:slot:)``.
  public func send(_ message: Message, toSlot slot: String) { request(.send(message, slot: slot)) }
}
