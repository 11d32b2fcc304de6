/// Where a view draws. The host gives each module its own canvas in
/// ``ModuleContext``; conformers are the host and test harnesses.
public protocol Canvas: AnyObject {
  /// Replaces the module's screen with `tree`. A view calls this whenever the
  /// presenter gives it something new; the last tree drawn is the screen.
  func draw(_ tree: ViewNode)
}

/// The host's navigation, given to each module in ``ModuleContext``. A
/// module's router calls it with URNs; conformers are the host and test
/// harnesses. A request that cannot be carried out is reported to the person
/// by the host, not thrown back into the module.
public protocol AppRouter: AnyObject {
  /// Shows the module at `urn` on top of the current navigation stack.
  func push(_ urn: String)
  /// Shows the module at `urn` modally, above the current screen.
  func present(_ urn: String)
  /// Removes the module that asks from the top of its navigation stack.
  func pop()
  /// Closes the modal presentation the asking module belongs to.
  func dismiss()
}
