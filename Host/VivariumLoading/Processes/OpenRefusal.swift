import ViperKit

/// A factory that is an ``OpenGuard`` did not let its module open: what it
/// decided instead.
package struct OpenRefusal: Error, Sendable {
  /// The factory's decision: ``OpenDecision/refuse(reason:)`` or
  /// ``OpenDecision/redirect(urn:reason:)``.
  package let decision: OpenDecision
}

extension OpenDecision {
  /// Why an ``OpenGuard`` kept its module from opening, for the person;
  /// empty for ``OpenDecision/open``.
  package var reason: String {
    switch self {
    case .open: ""
    case .refuse(let reason), .redirect(_, let reason): reason
    @unknown default: "its plugin said \(self)"
    }
  }
}
