/// A role that keeps what a person would lose if its module were built again
/// from its URN alone (a draft typed but not saved, the step of a form, a
/// position in a long list), and takes it back when the host builds the
/// module again: when the app starts where the last session ended, when the
/// module's plugin is restarted after a crash, and when a rebuilt plugin is
/// reloaded.
///
/// Adopt it in the role that owns the state: the interactor, or the presenter
/// of a module without one. ``Module`` finds it among the role objects, as it
/// finds the ``MessageReceiver``. A module without it is built again from its
/// URN and arguments.
///
/// A conformer must:
/// - return from ``restorationState`` only what the URN and the module's
///   storage do not already hold, kept small (the host saves it as JSON with
///   the screens shown, whenever they change), or nil for nothing to keep;
/// - in ``restore(_:)``, put the state back where the first
///   ``LifecycleEvent/attach`` reads it: the host calls it after
///   ``ModuleFactory/build(_:)`` and before attach, so it must not draw,
///   navigate or start work;
/// - decode what earlier versions of the plugin saved (add fields as
///   optionals): a state that does not decode is reported to the person, and
///   the module is built from its URN alone.
///
/// ```swift
/// extension NoteInteractor: StateRestoring {
///   struct Draft: Codable { var text: String }
///   var restorationState: Draft? { draft.isEmpty ? nil : Draft(text: draft) }
///   func restore(_ state: Draft) { draft = state.text }
/// }
/// ```
///
/// New in ViperKit 2.2.
@MainActor
public protocol StateRestoring: AnyObject {
  /// What is saved: a small `Codable` value.
  associatedtype RestorationState: Codable
  /// The state to keep now, or nil when there is nothing the URN does not say.
  /// Read by the host after each change of the screen, so it must be cheap
  /// and have no side effects.
  var restorationState: RestorationState? { get }
  /// Takes back a state this role (or an earlier build of it) returned from
  /// ``restorationState``, before the module is attached.
  func restore(_ state: RestorationState)
}
