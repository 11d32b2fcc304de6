/// A built module: its view, which the host keeps alive while the module is
/// shown, and weak references to all its role objects.
///
/// The host holds the view and nothing else; the view's graph (view →
/// presenter → interactor and router) must keep every role alive. After the
/// host lets go of a module, ``liveRoles`` lists any role still alive: a leak.
public struct Module {
  /// The module's view; the host sends it lifecycle and view events.
  public let view: any ViperView
  /// Weak references to the view, presenter, interactor and router.
  public let roles: [RoleReference]
  /// Where the host delivers inputs, children's outputs and results: usually
  /// the presenter. Held weakly. Nil for a module that takes no messages.
  public private(set) weak var receiver: (any MessageReceiver)?

  /// Wraps the role objects a factory built. Records the module in
  /// ``ModuleCensus``.
  public init(
    view: any ViperView, presenter: any ViperPresenter, interactor: (any ViperInteractor)? = nil,
    router: (any ViperRouter)? = nil, receiver: (any MessageReceiver)? = nil
  ) {
    self.view = view
    self.receiver = receiver
    var roles = [
      RoleReference(.view, view),
      RoleReference(.presenter, presenter),
    ]
    if let interactor { roles.append(RoleReference(.interactor, interactor)) }
    if let router { roles.append(RoleReference(.router, router)) }
    self.roles = roles
    ModuleCensus.record(roles)
  }

  /// The role objects of this module that are still alive.
  public var liveRoles: [RoleReference] { roles.filter(\.isAlive) }
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

/// A weak reference to one role object, for leak detection.
///
/// Safe to share between threads: the reference is only ever read, and Swift
/// weak references are read atomically.
public final class RoleReference: @unchecked Sendable {
  /// Which role the object plays.
  public let role: Role
  /// The object's type name, for reports.
  public let typeName: String
  private weak var object: AnyObject?

  /// Refers weakly to `object`.
  public init(_ role: Role, _ object: AnyObject) {
    self.role = role
    // What `String(describing:)` prints for a type, without first asking the
    // runtime whether a metatype conforms to the printing protocols (a tenth
    // of building a module in the host).
    self.typeName = _typeName(type(of: object), qualified: false)
    self.object = object
  }

  /// Whether the object is still alive.
  public var isAlive: Bool { object != nil }
}
