import ViperKit
import VivariumWire

/// Business services across the process boundary: the calls the process's
/// modules and providers make, which the host carries out and answers, and
/// the calls the host makes to the process's providers. The host never
/// waits on the process: each call suspends only its caller.
extension PluginProcess {
  /// Gives the process's providers `services` (their host services and a
  /// way to call other business services), and the process copies of the
  /// stores they declared: before the host's first call to one of them.
  package func prepareProviders(_ services: Services) {
    providerServices = services
    sendCopies(of: services)
  }

  /// Carries out `request` with the process's provider of its service (made
  /// there on first use) and returns how it ended. A process that ends
  /// first fails the call as unavailable, naming the plugin and why it
  /// ended; a cancelled caller cancels the call in the process too.
  package func provide(_ request: ServiceRequest) async -> ServiceOutcome {
    if case .ended = state, let rejection = await restart() {
      return unavailable(request, "it could not be started again: \(rejection.reasons.joined(separator: "; "))")
    }
    if case .ended(let failure) = state { return unavailable(request, failure.cause) }
    let call = nextCall
    nextCall &+= 1
    return await withTaskCancellationHandler {
      await withCheckedContinuation { continuation in
        guard !Task.isCancelled else {
          return continuation.resume(returning: .error(Self.cancelled(request)))
        }
        provisions[call] = (request, continuation)
        send(.provide(call: call, request))
      }
    } onCancel: {
      Task { @MainActor in
        guard let waiting = self.provisions.removeValue(forKey: call) else { return }
        self.send(.cancel(call: call))
        waiting.answer.resume(returning: .error(Self.cancelled(request)))
      }
    }
  }

  /// The answer to the host's call `call` to a provider; one that comes
  /// after the host stopped waiting is dropped.
  func provided(_ call: UInt32, _ outcome: ServiceOutcome) {
    provisions.removeValue(forKey: call)?.answer.resume(returning: outcome)
  }

  /// Carries out the business service call `call` of `module` (0: of the
  /// process's providers) through the services the host gave it, and
  /// answers it when it ends; the process goes on meanwhile.
  func serveBusiness(_ call: UInt32, _ module: UInt32, _ request: ServiceRequest) {
    let calls = module == 0 ? providerServices?.businessServices : modules[module]?.context.services.businessServices
    guard let calls else {
      let reason = module == 0 ? "the plugin provides no service that requires it" : "the module was detached"
      send(
        .answer(
          call: call,
          .outcome(
            .error(
              ServiceCallError(
                .undeclared, service: request.service, operation: request.operation, reason: reason)))))
      return
    }
    businessCallsUnderWay[call] = Task { @MainActor in
      let outcome = await calls.call(request)
      guard self.businessCallsUnderWay.removeValue(forKey: call) != nil else { return }
      self.send(.answer(call: call, .outcome(outcome)))
    }
  }

  /// The process no longer waits for its call `call`: it is cancelled, and
  /// answered as cancelled.
  func cancelBusinessCall(_ call: UInt32) {
    guard let task = businessCallsUnderWay[call] else { return }
    task.cancel()
  }

  /// The process ended: the host's calls to its providers fail as
  /// unavailable, and the calls its modules made are cancelled.
  func servicesEnded(_ failure: PluginFailure) {
    let waiting = provisions
    provisions.removeAll()
    for (_, (request, answer)) in waiting.sorted(by: { $0.key < $1.key }) {
      answer.resume(returning: unavailable(request, failure.cause))
    }
    for task in businessCallsUnderWay.values { task.cancel() }
    businessCallsUnderWay.removeAll()
  }

  private func unavailable(_ request: ServiceRequest, _ reason: String) -> ServiceOutcome {
    .error(
      ServiceCallError(
        .unavailable, service: request.service, operation: request.operation,
        reason: "its provider, the plugin \(name), is unavailable: \(reason)"))
  }

  package static func cancelled(_ request: ServiceRequest) -> ServiceCallError {
    ServiceCallError(
      .cancelled, service: request.service, operation: request.operation, reason: "the call was cancelled")
  }
}
