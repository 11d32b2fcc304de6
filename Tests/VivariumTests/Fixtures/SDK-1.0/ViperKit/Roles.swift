/// The View role: draws what the presenter gives it and forwards what the
/// person does. It holds no state of its own.
///
/// A conformer must:
/// - hold its presenter strongly (the presenter holds the view weakly);
/// - on ``lifecycle(_:)`` and ``handle(_:)``, tell the presenter and nothing
///   else: no decisions, no data access;
/// - when the presenter hands it a view model, turn it into a ``ViewNode``
///   tree and draw it with ``ModuleContext/canvas``, in full each time.
public protocol ViperView: AnyObject {
  /// Called by the host at each stage of the module's life.
  func lifecycle(_ event: LifecycleEvent)
  /// Called by the host when the person acts on an element this view drew.
  func handle(_ event: ViewEvent)
}

/// The Presenter role: turns entities into view models and decides what
/// happens on each view event.
///
/// A conformer holds the view weakly and the interactor and router strongly;
/// it never touches services or storage itself.
public protocol ViperPresenter: AnyObject {}

/// The Interactor role: owns the module's data and business logic, and is the
/// only role that touches services. It reports results to the presenter,
/// which it holds weakly.
public protocol ViperInteractor: AnyObject {}

/// The Router role: asks the host's ``AppRouter`` to navigate. It builds URNs
/// from entities and never builds another module's objects itself.
public protocol ViperRouter: AnyObject {}

/// Marks a business entity (the `Item` of an interactor). Entities never reach
/// the view: the presenter maps them to ``ViperViewModel`` values.
public protocol ViperEntity: Sendable {}

/// Marks a view model (the `ItemUI` of a view): already formatted for display,
/// with no business meaning left to interpret.
public protocol ViperViewModel: Equatable, Sendable {}
