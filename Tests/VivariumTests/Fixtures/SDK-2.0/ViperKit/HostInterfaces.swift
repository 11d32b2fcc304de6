/// Where a view draws. The host gives each module its own canvas in
/// ``ModuleContext``; conformers are the host and test harnesses.
@MainActor
public protocol Canvas: AnyObject {
  /// Replaces the module's screen with `tree`. A view calls this whenever the
  /// presenter gives it something new, also after an `await`: the host
  /// redraws the screen at once. The last tree drawn is the screen.
  func draw(_ tree: ViewNode)
}

extension Canvas {
  /// Draws the elements `content` builds, one below the other:
  ///
  /// ```swift
  /// canvas.draw {
  ///   ViewNode.heading(screen.title)
  ///   if let error = screen.error { ViewNode.notice(.negative, error) }
  /// }
  /// ```
  public func draw(@ViewBuilder _ content: () -> [ViewNode]) {
    draw(.stack(.vertical, content()))
  }
}

/// The host's navigation and composition, given to each module in
/// ``ModuleContext``. A module's router calls it with URNs; conformers are the
/// host and test harnesses.
///
/// Requests are carried out after the call that made them returns, in order.
/// One that cannot be carried out (an unknown URN, a slot that does not accept
/// the module, a guard that refuses it) is reported to the person by the
/// host, not thrown back.
@MainActor
public protocol AppRouter: AnyObject {
  /// Shows the module at `urn` on top of the asking module's navigation stack.
  /// Outputs the new module emits come back to the asking module.
  func push(_ urn: String)
  /// Shows the module at `urn` modally, above everything. Its outputs (its
  /// result) come back to the asking module.
  func present(_ urn: String)
  /// Replaces the asking module's screen with the module at `urn`.
  func replace(_ urn: String)
  /// Removes the top module of the asking module's navigation stack.
  func pop()
  /// Removes every module above the first of the asking module's stack.
  func popToRoot()
  /// Closes the modal presentation the asking module belongs to.
  func dismiss()
  /// Builds the module at `urn` as a child in the asking module's `slot`. The
  /// slot must be declared in the contract and accept `urn`.
  func embed(_ urn: String, in slot: String)
  /// Detaches and releases every child in `slot`.
  func removeChildren(in slot: String)
  /// Shows the child at `index` (0-based, in embedding order) of a tabs slot.
  func showChild(at index: Int, in slot: String)
}

extension AppRouter {
  /// ``push(_:)-(String)`` with a built URN.
  public func push(_ urn: URN) { push(urn.text) }
  /// ``present(_:)-(String)`` with a built URN.
  public func present(_ urn: URN) { present(urn.text) }
  /// ``replace(_:)-(String)`` with a built URN.
  public func replace(_ urn: URN) { replace(urn.text) }
  /// ``embed(_:in:)-(String,_)`` with a built URN.
  public func embed(_ urn: URN, in slot: String) { embed(urn.text, in: slot) }
}
