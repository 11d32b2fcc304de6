import ViperKit
import VivariumSupport
import VivariumWire

/// Where one plugin process's calls to the host are served, and the host's
/// calls to its providers are carried: the desk of a ``PluginSupervisor``.
///
/// It serves the process's calls to host services (storage, settings, the
/// log, notices, the time), to business services and to http with the
/// ``Services`` the host gave the module that calls (its
/// ``ModuleContext/services``, given to
/// ``PluginSupervisor/build(_:_:link:work:restoring:)``) or, for the
/// process's providers, those given to ``prepareProviders(_:)``: whoever
/// builds a module or prepares the providers decides what serves them. It
/// carries the host's calls to the process's providers
/// (``callProvider(_:)``) and their answers back. The host never waits on
/// the process: each call suspends only its caller.
@MainActor
package final class PluginServiceDesk {
  /// The supervisor of the process served, which owns this desk.
  private unowned let supervisor: PluginSupervisor
  /// Business service, http and host service write calls the process's
  /// modules and providers made, under way in the host.
  private let callsUnderWay = CallTasks()
  /// Calls the host made to the process's providers, awaiting their answers (``callProvider(_:)``).
  private(set) var provisions: [UInt32: PendingServiceCall] = [:]
  /// The services of the process's providers, once the host made them
  /// (``prepareProviders(_:)``): calls of theirs come as module 0.
  private var providerServices: Services?
  /// Replaced by a new build: let go once the calls its providers are
  /// running have ended (``retire()``).
  private(set) var retiring = false
  /// How many of the process's host service calls that wait for an answer
  /// the host has answered: reads served from the process's copies are not.
  private(set) var callsAnswered = 0
  /// The host service, business service and http calls the process made
  /// in the last minute (reads it served from its own copies of its
  /// stores never reach the host, and are not counted).
  package private(set) var calls = CallCounts()

  /// What carries out one of the process's calls, giving its answer.
  private typealias Work = @MainActor () async -> WireAnswer

  init(serving supervisor: PluginSupervisor) {
    self.supervisor = supervisor
  }

  /// The most business service and http calls a process may have under
  /// way in the host, counting its host service writes under way; more
  /// are refused, so that a flood costs the host nothing. A write is never
  /// refused: the host's own stores answer it at once.
  static let callsUnderWayLimit = 256

  // MARK: Host services

  /// Carries out the process's call `call` (0: it wants no answer) of
  /// `module` (0: of its providers) to a host service, and answers it. A
  /// write the process waits for is saved with its store's `save`, which
  /// suspends only this call: the process's other calls and messages are
  /// carried out while a store saves, and the call is answered once it
  /// has (at once for the host's own stores, which save as they are
  /// called). Everything else is answered at once.
  func serveHostService(_ call: UInt32, _ module: UInt32, _ service: HostServiceCall) {
    calls.count(.hostService, at: CallCounts.now)
    guard let (services, user) = self.services(of: module) else {
      let reason = module == 0 ? "the plugin's providers have no services yet" : "the module was detached"
      return answerHostService(call, .failed(reason))
    }
    if call != 0, let write = Self.write(service, with: services) {
      guard takesCall(call, limited: false) else { return }
      return callsUnderWay.start(call, write) { [weak self] answer in self?.answerHostService(call, answer) }
    }
    answerHostService(call, Self.serve(service, with: services, for: user))
  }

  /// The services of `module` (0: the process's providers) and who uses
  /// them, for messages; nil when there are none (the module was
  /// detached, or the providers were never given theirs).
  private func services(of module: UInt32) -> (Services, String)? {
    guard module != 0 else { return providerServices.map { ($0, "the providers of \(supervisor.name)") } }
    return supervisor.module(module).map { ($0.context.services, $0.urn) }
  }

  /// Answers the process's host service call `call`, unless it wants no answer.
  private func answerHostService(_ call: UInt32, _ answer: WireAnswer) {
    guard call != 0 else { return }
    callsAnswered += 1
    supervisor.send(.answer(call: call, answer))
    // The process waited for the host: its time starts again.
    supervisor.hostAnswered()
  }

  /// `call` carried out with `services`, those of `user` (a module's URN,
  /// or the providers of a plugin).
  private static func serve(_ call: HostServiceCall, with services: Services, for user: String) -> WireAnswer {
    func attempt(_ body: () throws -> Void) -> WireAnswer {
      do {
        try body()
        return .none
      } catch {
        return .failed("\(error)")
      }
    }
    switch call {
    case .storageValue(let key):
      guard let storage = services.storage else { return missing(call, for: user) }
      return .string(storage.value(forKey: key))
    case .storageSet(let key, let value):
      guard let storage = services.storage else { return missing(call, for: user) }
      return attempt { try storage.set(value, forKey: key) }
    case .storageKeys:
      guard let storage = services.storage else { return missing(call, for: user) }
      return .strings(storage.keys())
    case .settingValue(let key):
      guard let settings = services.settings else { return missing(call, for: user) }
      return .value(settings.value(forKey: key))
    case .settingSet(let key, let value):
      guard let settings = services.settings else { return missing(call, for: user) }
      return attempt { try settings.set(value, forKey: key) }
    case .log(let level, let text):
      services.log?.log(level, text)
      return .none
    case .notice(let text, let tone):
      services.notifications?.notice(text, tone: tone)
      return .none
    case .alert(let title, let message):
      services.notifications?.alert(title: title, message: message)
      return .none
    case .now:
      return .number(services.clock?.now() ?? 0)
    }
  }

  /// The write `call` as work that saves it with `services`
  /// (``KeyValueStore/save(_:forKey:)``, ``SettingsStore/save(_:forKey:)``)
  /// and gives the answer; nil when `call` writes nothing, or `services`
  /// lack its store (``serve(_:with:for:)`` answers that).
  private static func write(_ call: HostServiceCall, with services: Services) -> Work? {
    func attempt(_ body: @escaping @MainActor () async throws -> Void) -> Work {
      {
        do {
          try await body()
          return .none
        } catch {
          return .failed("\(error)")
        }
      }
    }
    switch call {
    case .storageSet(let key, let value):
      guard let storage = services.storage else { return nil }
      return attempt { try await storage.save(value, forKey: key) }
    case .settingSet(let key, let value):
      guard let settings = services.settings else { return nil }
      return attempt { try await settings.save(value, forKey: key) }
    default:
      return nil
    }
  }

  /// The answer to a call of `user`'s to a host service it does not list.
  private static func missing(_ call: HostServiceCall, for user: String) -> WireAnswer {
    .failed("\(user) does not list the service '\(call.service.rawValue)' in its contract")
  }

  // MARK: Business services and http the process calls

  /// Carries out the business service call `call` of `module` (0: of the
  /// process's providers) through the services the host gave it, and
  /// answers it when it ends; the process goes on meanwhile.
  func serveBusiness(_ call: UInt32, _ module: UInt32, _ request: ServiceRequest) {
    calls.count(.businessService, at: CallCounts.now)
    guard takesCall(call) else { return }
    let services = module == 0 ? providerServices : supervisor.module(module)?.context.services
    guard let calls = services?.businessServices else {
      let refusal: ServiceOutcome
      if services == nil {
        let reason = module == 0 ? "the plugin's providers were never called" : "the module was detached"
        refusal = .error(.undeclared, request, reason)
      } else {
        // A module that requires no business service: refused as the router refuses one it does not require.
        refusal = .error(.undeclared(request, by: supervisor.module(module)?.urn ?? "the module"))
      }
      supervisor.send(.answer(call: call, .outcome(refusal)))
      return
    }
    answer(call) { .outcome(await calls.call(request)) }
  }

  /// Sends the http request `call` of `module` (0: of the process's
  /// providers) through the http service the host gave it, and answers it
  /// when it ends; the process goes on meanwhile.
  func serveHTTP(_ call: UInt32, _ module: UInt32, _ request: HTTPRequest) {
    calls.count(.http, at: CallCounts.now)
    guard takesCall(call) else { return }
    guard let http = module == 0 ? providerServices?.http : supervisor.module(module)?.context.services.http else {
      let reason = module == 0 ? "the plugin's providers do not list the service 'http'" : "the module was detached"
      supervisor.send(.answer(call: call, .httpFailed(HTTPError(.failed, url: request.url, reason: reason))))
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

  /// Runs `work` for the process's call `call` as a task of its own,
  /// started here and now (so a call goes on to its provider with no hop),
  /// and answers the call with what it gives, unless the call was dropped meanwhile.
  private func answer(_ call: UInt32, with work: @escaping Work) {
    callsUnderWay.start(call, work) { [weak self] answer in self?.supervisor.send(.answer(call: call, answer)) }
  }

  /// Whether the host takes the call `call` now: not a call number under
  /// way already (a process that reuses one is stopped), and, when
  /// `limited`, not over ``callsUnderWayLimit`` (a call over it is
  /// answered as refused).
  private func takesCall(_ call: UInt32, limited: Bool = true) -> Bool {
    guard !callsUnderWay.contains(call) else {
      supervisor.stop(because: "it reused the call number \(call) of a call under way")
      return false
    }
    guard !limited || callsUnderWay.count < Self.callsUnderWayLimit else {
      supervisor.send(
        .answer(call: call, .failed("it has \(Self.callsUnderWayLimit) calls under way; wait for their answers")))
      return false
    }
    return true
  }

  /// The process no longer waits for its call `call`: it is cancelled, and
  /// answered as cancelled.
  func cancel(_ call: UInt32) {
    callsUnderWay.cancel(call)
  }

  // MARK: Events the process publishes

  /// Announces the event module `module` (0: one of the process's
  /// providers) published on `topic`, through the event bus the host gave
  /// it; a module detached since publishes nothing.
  func publish(_ module: UInt32, _ topic: String, _ payload: ServiceValue) {
    calls.count(.hostService, at: CallCounts.now)
    let services = module == 0 ? providerServices : supervisor.module(module)?.context.services
    services?.events?.publish(topic: topic, payload)
  }

  /// Reports what the process said went wrong with events for module
  /// `module` (0: its providers) on `topic`, as its bus reports its own.
  func eventProblem(_ module: UInt32, _ topic: String, _ problem: EventProblem) {
    let services = module == 0 ? providerServices : supervisor.module(module)?.context.services
    (services?.events as? HostEventBus)?.take(problem, on: topic)
  }

  // MARK: The host's calls to the process's providers

  /// Gives the process's providers `services` (their host services and a
  /// way to call other business services), and the process copies of the
  /// stores they declared: before the host's first call to one of them.
  package func prepareProviders(_ services: Services) {
    guard providerServices == nil else { return }
    providerServices = services
    supervisor.sendCopies(of: services)
  }

  /// Whether its providers were given their services (``prepareProviders(_:)``).
  package var hasProviderServices: Bool { providerServices != nil }

  /// Starts the process again if it ended; false, with `call` failed as
  /// unavailable, when it cannot be.
  package func startAgain(for call: PendingServiceCall) async -> Bool {
    if retiring {
      fail(call, "it was replaced by a new build")
      return false
    }
    guard case .ended = supervisor.state else { return true }
    guard let rejection = await supervisor.restart() else { return true }
    fail(call, "it could not be started again: \(rejection.reasons.joined(separator: "; "))")
    return false
  }

  /// Has the process's provider of `call`'s service (made there on first
  /// use) carry it out; the call is answered when the process answers it,
  /// or with unavailable when the process ends first. Answered otherwise
  /// (its deadline, its caller cancelled), it is cancelled in the process.
  package func callProvider(_ call: PendingServiceCall) {
    if case .ended(let failure) = supervisor.state { return fail(call, failure.cause) }
    if retiring { return fail(call, "it was replaced by a new build") }
    // A process started again gets its providers' copies anew.
    if let providerServices { supervisor.sendCopies(of: providerServices) }
    let id = supervisor.newCall()
    provisions[id] = call
    call.onFinish = { [weak self] in
      guard let self, self.provisions.removeValue(forKey: id) != nil else { return }
      self.supervisor.send(.cancel(call: id))
      self.endIfRetired()
    }
    supervisor.send(.callProvider(call: id, call.request))
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
    if retiring, provisions.isEmpty { supervisor.terminate() }
  }

  // MARK: The end of a process

  /// The process ended: the host's calls to its providers fail as
  /// unavailable, and the calls its modules and providers made are
  /// dropped, never answered.
  func processEnded(_ failure: PluginFailure) {
    let waiting = provisions.sorted { $0.key < $1.key }.map(\.value)
    provisions.removeAll()
    for call in waiting { fail(call, failure.cause) }
    callsUnderWay.dropAll()
  }

  private func fail(_ call: PendingServiceCall, _ reason: String) {
    call.fail(.unavailable, "its provider, the plugin \(supervisor.name), is unavailable: \(reason)")
  }
}
