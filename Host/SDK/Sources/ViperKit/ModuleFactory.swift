/// Builds one kind of module. A plugin returns its factories from
/// ``ViperPlugin/factories()``.
///
/// A conformer must:
/// - declare its ``contract-swift.type.property`` as a static value; it is
///   read before any module is built, from any thread, and decides which
///   URNs and arguments reach ``build(_:)``;
/// - in ``build(_:)``, create the module's role objects, wire them (view →
///   presenter strongly; presenter → interactor and router strongly; every
///   back reference weak) and return them as a ``Module``, without drawing
///   and without doing work that belongs in the first lifecycle event;
/// - throw ``ModuleBuildError`` rather than trap when the arguments, though
///   valid for the contract, name something that does not exist;
/// - keep no mutable state (a factory is a value the host shares).
///
/// ```swift
/// struct NotesFactory: ModuleFactory {
///   static let contract = Contract(urn: "notes:list", summary: "Your notes.")
///   func build(_ context: ModuleContext) throws -> Module { … }
/// }
/// ```
public protocol ModuleFactory: Sendable {
  /// The module's contract. Declare it as a `static let`.
  static var contract: Contract { get }
  /// Builds a new module from validated arguments and the host's context, on
  /// the main actor where its role objects live.
  @MainActor func build(_ context: ModuleContext) throws -> Module
}

extension ModuleFactory {
  /// The type's static ``contract-swift.type.property``, read from a
  /// factory value (`any ModuleFactory`). Not a requirement (ViperKit 3.0):
  /// a factory has one contract, its type's.
  public var contract: Contract { Self.contract }
}

/// Why a factory could not build a module from arguments the contract accepts.
public struct ModuleBuildError: Error, Hashable, Sendable, CustomStringConvertible {
  /// What is wrong and, if the person can do something, what to do.
  public var message: String

  /// Creates an error with a message for the person.
  public init(_ message: String) {
    self.message = message
  }

  /// The message.
  public var description: String { message }
}

/// What the host hands a factory to build a module.
@MainActor
public struct ModuleContext {
  /// The URN the module was opened with.
  public let urn: String
  /// The validated arguments: every required argument present and typed,
  /// defaults filled in.
  public let arguments: Arguments
  /// The host's navigation and composition, for the module's router.
  public let router: any AppRouter
  /// Where the module's view draws.
  public let canvas: any Canvas
  /// Outputs to the module's owner and inputs to its children.
  public let messages: any MessagePort
  /// The services the contract lists, for the module's interactor only.
  public let services: Services
  /// Work that takes time, cancelled when the module detaches.
  public let work: any ModuleWork

  /// Creates a context. Called by the host and test harnesses.
  public init(
    urn: String, arguments: Arguments, router: any AppRouter, canvas: any Canvas, messages: any MessagePort,
    work: any ModuleWork, services: Services = Services()
  ) {
    self.work = work
    self.urn = urn
    self.arguments = arguments
    self.router = router
    self.canvas = canvas
    self.messages = messages
    self.services = services
  }
}
