import ViperKit
import ViperKitHosting

/// Why a URN could not be turned into a module, naming the URN, the argument
/// or the plugin concerned, and what to do.
public struct ResolveError: Error, Sendable, Equatable, CustomStringConvertible {
  /// Stable names of the reasons, for scripts and tests.
  public enum Kind: String, Sendable, Codable {
    case invalidURN = "invalid-urn"
    case notFound = "not-found"
    case conflict
    case missingArgument = "missing-argument"
    case unknownArgument = "unknown-argument"
    case wrongType = "wrong-type"
    case duplicateArgument = "duplicate-argument"
    case buildFailed = "build-failed"
    case drewNothing = "drew-nothing"
    case guarded
    /// A module embedded in a module of its own URN (``HostRuntime/checkNesting(_:in:)``).
    case cycle = "embedding-cycle"
    /// A module nested deeper than ``HostRuntime/nestingLimit``.
    case tooDeep = "too-deep"
  }

  /// Which problem it is.
  public let kind: Kind
  /// The sentence for the person.
  public let message: String
  /// For ``Kind/guarded``: the guard that refused the module.
  public let refusedBy: RouteGuard?

  init(_ kind: Kind, _ message: String, refusedBy: RouteGuard? = nil) {
    self.kind = kind
    self.message = message
    self.refusedBy = refusedBy
  }

  /// The message.
  public var description: String { message }
}
