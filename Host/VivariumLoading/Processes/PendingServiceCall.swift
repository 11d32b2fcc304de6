import ViperKit

/// One business service call under way in the host, answered once: by its
/// provider, its deadline, its caller's cancellation or its provider's end,
/// whichever comes first. What comes after is dropped, and ``onFinish``
/// lets the provider's side know it need not answer any more.
@MainActor
package final class PendingServiceCall {
  /// What was asked.
  package let request: ServiceRequest
  private var continuation: CheckedContinuation<ServiceOutcome, Never>?
  private var outcome: ServiceOutcome?
  /// Called once the call is answered, whoever answered it: cancels what
  /// the provider still does for it.
  package var onFinish: (() -> Void)?

  package init(_ request: ServiceRequest) {
    self.request = request
  }

  /// Whether it was answered.
  package var isFinished: Bool { outcome != nil }

  /// Answers the call with `outcome`, unless it was answered already.
  package func finish(_ outcome: ServiceOutcome) {
    guard self.outcome == nil else { return }
    self.outcome = outcome
    continuation?.resume(returning: outcome)
    continuation = nil
    let finished = onFinish
    onFinish = nil
    finished?()
  }

  /// Answers it as failed for `kind`, saying `reason`.
  package func fail(_ kind: ServiceCallError.Kind, _ reason: String) {
    finish(.error(kind, request, reason))
  }

  /// Runs `start`, which sets the call going, and waits for its answer:
  /// without suspending at all when `start` answered it (a provider in this
  /// process that answered before its first `await`).
  package func outcome(starting start: () -> Void) async -> ServiceOutcome {
    start()
    if let outcome { return outcome }
    return await withCheckedContinuation { continuation in
      self.continuation = continuation
    }
  }
}
