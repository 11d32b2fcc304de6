import Synchronization

/// A built module: its view, which the host keeps alive while the module is
/// shown, and weak references to all its role objects.
///
/// The host holds the view and nothing else; the view's graph (view →
/// presenter → interactor and router) must keep every role alive. After the
/// host lets go of a module, ``liveRoles`` lists any role still alive: a leak.
@MainActor
public struct Module {
  /// The module's view; the host sends it lifecycle and view events.
  public let view: any ViperView
  /// Weak references to the view, presenter, interactor and router.
  public let roles: [RoleReference]
  /// The presenter, held weakly; it gets lifecycle events after the view.
  public private(set) weak var presenter: (any ViperPresenter)?
  /// Where the host delivers inputs, children's outputs and results: the
  /// first of the presenter, the interactor and the view that conforms to
  /// ``MessageReceiver``. Held weakly. Nil for a module that takes no messages.
  public private(set) weak var receiver: (any MessageReceiver)?
  /// The role that keeps the module's restoration state: the first of the
  /// interactor, the presenter and the view that conforms to
  /// ``StateRestoring``. Held weakly. Nil for a module built from its URN alone.
  public private(set) weak var restoring: (any StateRestoring)?
  /// Where more than one role conforms to ``MessageReceiver`` or to
  /// ``StateRestoring``: only the first is ever called, so the others'
  /// code never runs. One sentence each, naming the roles; empty when each
  /// is played by one role (ViperKit 3.0). `vivarium check` fails such a module.
  public let ambiguities: [String]

  /// Wraps the role objects a factory built and records the module in
  /// ``ModuleCensus``. The receiver is found among them.
  public init(
    view: any ViperView, presenter: any ViperPresenter, interactor: (any ViperInteractor)? = nil,
    router: (any ViperRouter)? = nil
  ) {
    self.view = view
    self.presenter = presenter
    self.receiver =
      presenter as? any MessageReceiver ?? interactor as? any MessageReceiver ?? view as? any MessageReceiver
    self.restoring =
      interactor as? any StateRestoring ?? presenter as? any StateRestoring ?? view as? any StateRestoring
    self.ambiguities = Self.ambiguities(view: view, presenter: presenter, interactor: interactor)
    var roles = [
      RoleReference(.view, view),
      RoleReference(.presenter, presenter),
    ]
    if let interactor { roles.append(RoleReference(.interactor, interactor)) }
    if let router { roles.append(RoleReference(.router, router)) }
    self.roles = roles
    ModuleCensus.record(roles)
  }

  /// Delivers `event` to the view, then to the presenter. The host and test
  /// harnesses call this; modules do not.
  public func lifecycle(_ event: LifecycleEvent) {
    view.lifecycle(event)
    presenter?.lifecycle(event)
  }

  /// The role objects of this module that are still alive.
  public var liveRoles: [RoleReference] { roles.filter(\.isAlive) }

  /// The protocols more than one distinct role object conforms to, where
  /// the host calls only the first (``receiver``, ``restoring``).
  private static func ambiguities(
    view: any ViperView, presenter: any ViperPresenter, interactor: (any ViperInteractor)?
  ) -> [String] {
    var objects: [(role: String, object: any AnyObject & Sendable)] = []
    let candidates: [(String, (any AnyObject & Sendable)?)] = [
      ("presenter", presenter), ("interactor", interactor), ("view", view),
    ]
    for (role, object) in candidates {
      guard let object, !objects.contains(where: { $0.object === object }) else { continue }
      objects.append((role, object))
    }
    func conflict(_ kind: String, _ roles: [String]) -> String? {
      guard roles.count > 1 else { return nil }
      return
        "the \(roles.joined(separator: " and the ")) all conform to \(kind), but the host calls only the \(roles[0]): make one role conform"
    }
    let receivers = objects.filter { $0.object is any MessageReceiver }.map(\.role)
    // The restoring role is looked for interactor first.
    let restoring = objects.filter { $0.object is any StateRestoring }.map(\.role).sorted {
      ($0 == "interactor" ? 0 : 1) < ($1 == "interactor" ? 0 : 1)
    }
    return [conflict("MessageReceiver", receivers), conflict("StateRestoring", restoring)].compactMap { $0 }
  }
}

/// The VIPER roles a module's objects play.
public enum Role: String, Codable, Hashable, Sendable {
  /// ``ViperView``.
  case view
  /// ``ViperPresenter``.
  case presenter
  /// ``ViperInteractor``.
  case interactor
  /// ``ViperRouter``.
  case router
}

/// A weak reference to one role object, for leak detection, readable from
/// any thread.
public final class RoleReference: Sendable {
  /// Which role the object plays.
  public let role: Role
  /// The object's type name, for reports.
  public let typeName: String
  private let object: Mutex<WeakObject>

  private struct WeakObject {
    weak var object: (any AnyObject & Sendable)?
  }

  /// Refers weakly to `object`, a role object (isolated to the main actor,
  /// so safe to refer to from anywhere).
  public init(_ role: Role, _ object: any AnyObject & Sendable) {
    self.role = role
    // What `String(describing:)` prints for a type, without first asking the
    // runtime whether a metatype conforms to the printing protocols (a tenth
    // of building a module in the host).
    self.typeName = _typeName(type(of: object), qualified: false)
    self.object = Mutex(WeakObject(object: object))
  }

  /// Whether the object is still alive.
  public var isAlive: Bool { object.withLock { $0.object != nil } }
}
