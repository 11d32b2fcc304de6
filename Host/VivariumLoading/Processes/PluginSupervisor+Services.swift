import ViperKit
import VivariumSupport
import VivariumWire

/// Business services across the process boundary: the calls the process's
/// modules and providers make, which the host carries out and answers, and
/// the calls the host makes to the process's providers. The host never
/// waits on the process: each call suspends only its caller.
extension PluginSupervisor {
  /// Gives the process's providers `services` (their host services and a
  /// way to call other business services), and the process copies of the
  /// stores they declared: before the host's first call to one of them.
  package func prepareProviders(_ services: Services) {
    guard providerServices == nil else { return }
    providerServices = services
    sendCopies(of: services)
  }

  /// Whether its providers were given their services (``prepareProviders(_:)``).
  package var hasProviderServices: Bool { providerServices != nil }

  /// Whether a call can be sent now, without starting the process again.
  package var isRunning: Bool {
    if case .ended = state { return false }
    return true
  }

  /// Starts the process again if it ended; false, with `call` failed as
  /// unavailable, when it cannot be.
  package func startAgain(for call: PendingServiceCall) async -> Bool {
    if retiring {
      fail(call, "it was replaced by a new build")
      return false
    }
    guard case .ended = state else { return true }
    guard let rejection = await restart() else { return true }
    fail(call, "it could not be started again: \(rejection.reasons.joined(separator: "; "))")
    return false
  }

  /// Has the process's provider of `call`'s service (made there on first
  /// use) carry it out; the call is answered when the process answers it,
  /// or with unavailable when the process ends first. Answered otherwise
  /// (its deadline, its caller cancelled), it is cancelled in the process.
  package func callProvider(_ call: PendingServiceCall) {
    if case .ended(let failure) = state { return fail(call, failure.cause) }
    if retiring { return fail(call, "it was replaced by a new build") }
    // A process started again gets its providers' copies anew.
    if let providerServices { sendCopies(of: providerServices) }
    let id = nextCall
    nextCall &+= 1
    provisions[id] = call
    call.onFinish = { [weak self] in
      guard let self, self.provisions.removeValue(forKey: id) != nil else { return }
      self.send(.cancel(call: id))
      self.endIfRetired()
    }
    send(.callProvider(call: id, call.request))
  }

  /// The answer to the host's call `call` to a provider; one that comes
  /// after the call was answered otherwise is dropped.
  func providerAnswered(_ call: UInt32, _ outcome: ServiceOutcome) {
    provisions.removeValue(forKey: call)?.finish(outcome)
    endIfRetired()
  }

  /// Lets the process go once its providers have answered the calls they
  /// are running (at once if none), for a process whose plugin was
  /// replaced by a new build: those calls are answered by the build that
  /// took them, and no new call comes here.
  package func retire() {
    retiring = true
    endIfRetired()
  }

  private func endIfRetired() {
    if retiring, provisions.isEmpty { terminate() }
  }

  /// Carries out the business service call `call` of `module` (0: of the
  /// process's providers) through the services the host gave it, and
  /// answers it when it ends; the process goes on meanwhile.
  func serveBusiness(_ call: UInt32, _ module: UInt32, _ request: ServiceRequest) {
    guard takesCall(call) else { return }
    let services = module == 0 ? providerServices : modules[module]?.context.services
    guard let calls = services?.businessServices else {
      let refusal: ServiceOutcome
      if services == nil {
        let reason = module == 0 ? "the plugin's providers were never called" : "the module was detached"
        refusal = .error(.undeclared, request, reason)
      } else {
        // A module that requires no business service: refused as the router refuses one it does not require.
        refusal = .error(.undeclared(request, by: modules[module]?.urn ?? "the module"))
      }
      send(.answer(call: call, .outcome(refusal)))
      return
    }
    answer(call) { .outcome(await calls.call(request)) }
  }

  /// Runs `work` for the process's call `call` as a task of its own,
  /// started here and now (so a call goes on to its provider with no hop),
  /// and answers the call with what it gives, unless the call was dropped meanwhile.
  private func answer(_ call: UInt32, with work: @escaping @MainActor () async -> WireAnswer) {
    businessCalls.start(call, work) { [weak self] answer in self?.send(.answer(call: call, answer)) }
  }

  /// Sends the http request `call` of `module` (0: of the process's
  /// providers) through the http service the host gave it, and answers it
  /// when it ends; the process goes on meanwhile.
  func serveHTTP(_ call: UInt32, _ module: UInt32, _ request: HTTPRequest) {
    guard takesCall(call) else { return }
    guard let http = module == 0 ? providerServices?.http : modules[module]?.context.services.http else {
      let reason = module == 0 ? "the plugin's providers do not list the service 'http'" : "the module was detached"
      send(.answer(call: call, .httpFailed(HTTPError(.failed, url: request.url, reason: reason))))
      return
    }
    answer(call) {
      do {
        return .httpResponse(try await http.send(request))
      } catch let error as HTTPError {
        return .httpFailed(error)
      } catch {
        return .httpFailed(HTTPError(.failed, url: request.url, reason: "\(error)"))
      }
    }
  }

  /// The most business service and http calls a process may have under way
  /// in the host; more are refused, so that a flood costs the host nothing.
  static let callsUnderWayLimit = 256

  /// Whether the host takes the call `call` now: not over the limit (a call
  /// over it is answered as refused), and not a call number under way
  /// already (a process that reuses one is stopped).
  private func takesCall(_ call: UInt32) -> Bool {
    guard !businessCalls.contains(call) else {
      stop(because: "it reused the call number \(call) of a call under way")
      return false
    }
    guard businessCalls.count < Self.callsUnderWayLimit else {
      send(.answer(call: call, .failed("it has \(Self.callsUnderWayLimit) calls under way; wait for their answers")))
      return false
    }
    return true
  }

  /// The process no longer waits for its call `call`: it is cancelled, and
  /// answered as cancelled.
  func cancelBusinessCall(_ call: UInt32) {
    businessCalls.cancel(call)
  }

  /// The process ended: the host's calls to its providers fail as
  /// unavailable, and the calls its modules made are cancelled.
  func servicesEnded(_ failure: PluginFailure) {
    let waiting = provisions.sorted { $0.key < $1.key }.map(\.value)
    provisions.removeAll()
    for call in waiting { fail(call, failure.cause) }
    businessCalls.dropAll()
  }

  private func fail(_ call: PendingServiceCall, _ reason: String) {
    call.fail(.unavailable, "its provider, the plugin \(name), is unavailable: \(reason)")
  }
}
