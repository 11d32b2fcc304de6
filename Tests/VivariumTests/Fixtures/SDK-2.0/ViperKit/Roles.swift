/// The View role: draws what the presenter gives it and forwards what the
/// person does. It holds no state of its own.
///
/// Role objects live on the main actor: the host calls them there, and work a
/// module starts (``ModuleWork``) comes back there.
///
/// A conformer must:
/// - hold its presenter strongly (the presenter holds the view weakly);
/// - on ``handle(_:)``, tell the presenter and nothing else: no decisions, no
///   data access;
/// - when the presenter hands it a view model, turn it into a ``ViewNode``
///   tree and draw it with ``ModuleContext/canvas``, in full each time.
@MainActor
public protocol ViperView: AnyObject, Sendable {
  /// Called by the host at each stage of the module's life, before the
  /// presenter's ``ViperPresenter/lifecycle(_:)``. The default does nothing:
  /// implement it only if the view itself must react.
  func lifecycle(_ event: LifecycleEvent)
  /// Called by the host when the person acts on an element this view drew.
  func handle(_ event: ViewEvent)
}

extension ViperView {
  /// Does nothing: the presenter gets the event right after the view.
  public func lifecycle(_ event: LifecycleEvent) {}
}

/// The Presenter role: turns entities into view models and decides what
/// happens on each view event.
///
/// A conformer holds the view weakly and the interactor and router strongly;
/// it never touches services or storage itself.
@MainActor
public protocol ViperPresenter: AnyObject, Sendable {
  /// Called by the host at each stage of the module's life, right after the
  /// view's ``ViperView/lifecycle(_:)``: ask the interactor for data on
  /// ``LifecycleEvent/attach``. The default does nothing.
  func lifecycle(_ event: LifecycleEvent)
}

extension ViperPresenter {
  /// Does nothing.
  public func lifecycle(_ event: LifecycleEvent) {}
}

/// The Interactor role: owns the module's data and business logic, and is the
/// only role that touches services. It reports results to the presenter,
/// which it holds weakly. Work that takes time goes through ``ModuleWork``.
@MainActor
public protocol ViperInteractor: AnyObject, Sendable {}

/// The Router role: asks the host's ``AppRouter`` to navigate. It builds URNs
/// with ``URN`` from entities and never builds another module's objects itself.
@MainActor
public protocol ViperRouter: AnyObject, Sendable {}

/// Marks a business entity (the `Item` of an interactor). Entities never reach
/// the view: the presenter maps them to ``ViperViewModel`` values.
public protocol ViperEntity: Sendable {}

/// Marks a view model (the `ItemUI` of a view): already formatted for display,
/// with no business meaning left to interpret.
public protocol ViperViewModel: Equatable, Sendable {}
