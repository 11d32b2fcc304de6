import ViperKit
import ViperKitHosting
import VivariumLoading

/// Why a URN could not be turned into a module, naming the URN, the argument
/// or the plugin concerned, and what to do.
package struct ResolveError: Error, Sendable, Equatable, CustomStringConvertible {
  /// Stable names of the reasons, for scripts and tests.
  package enum Kind: String, Sendable, Codable {
    case invalidURN = "invalid-urn"
    case notFound = "not-found"
    /// The plugin that offers it is turned off (`vivarium plugins enable` turns it on).
    case pluginOff = "plugin-off"
    case conflict
    case missingArgument = "missing-argument"
    case unknownArgument = "unknown-argument"
    case wrongType = "wrong-type"
    case duplicateArgument = "duplicate-argument"
    case buildFailed = "build-failed"
    case drewNothing = "drew-nothing"
    case guarded
    /// The target's plugin did not let it open (an ``OpenGuard``).
    case refused
    /// A module embedded in a module of its own URN (``HostRuntime/checkNesting(_:in:)``).
    case cycle = "embedding-cycle"
    /// A module nested deeper than ``HostRuntime/nestingLimit``.
    case tooDeep = "too-deep"
    /// A business service the module requires has no provider in range.
    case serviceUnavailable = "service-unavailable"
  }

  /// Which problem it is.
  package let kind: Kind
  /// The sentence for the person.
  package let message: String
  /// For ``Kind/guarded``: the guard that refused the module.
  package let refusedBy: RouteGuard?
  /// For ``Kind/refused``: where the plugin sends a person opening it, and why.
  package let redirect: Redirect?

  /// Where an ``OpenGuard`` sends a person instead, and why.
  package struct Redirect: Sendable, Equatable {
    /// The URN opened instead.
    package let urn: String
    /// Why, for the person.
    package let reason: String
  }

  /// For ``Kind/pluginOff``: the plugin turned off, by its declared name.
  package private(set) var turnedOff: String?

  init(_ kind: Kind, _ message: String, refusedBy: RouteGuard? = nil, redirect: Redirect? = nil) {
    self.kind = kind
    self.message = message
    self.refusedBy = refusedBy
    self.redirect = redirect
  }

  /// `urn` is offered by `plugin`, turned off; `message` says how to turn it on.
  static func pluginOff(_ plugin: String, _ message: String) -> ResolveError {
    var error = ResolveError(.pluginOff, message)
    error.turnedOff = plugin
    return error
  }

  /// Why `urn` did not open, as its ``OpenGuard`` decided; nil when it opens.
  static func refusal(of urn: String, _ decision: OpenDecision) -> ResolveError? {
    switch decision {
    case .open: nil
    case .redirect(let target, let reason):
      ResolveError(.refused, "\(urn) did not open: \(reason)", redirect: Redirect(urn: target, reason: reason))
    default: ResolveError(.refused, "\(urn) did not open: \(decision.reason)")
    }
  }

  /// The message.
  package var description: String { message }
}
