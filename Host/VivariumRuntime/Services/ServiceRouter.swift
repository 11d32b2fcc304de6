import ViperKit
import ViperKitHosting
import VivariumLoading
import VivariumSupport

/// Where business service calls go (docs/services.md): from a consumer (a
/// module, or a provider using another service) to the plugin the service
/// graph chose, in this process or in the provider's own. It checks that
/// the consumer declared the service and that the provider is in its
/// range, keeps each call's deadline on the host's clock, and logs every
/// call: caller, service, operation, time, outcome. It never waits on a
/// provider: each call suspends only its caller.
@MainActor
final class ServiceRouter {
  /// Weak: a module's work may still be calling when its host is gone
  /// (a test, a quit); each call holds the host while it is under way.
  private weak var host: SharedHost?
  /// The providers made in this process, by plugin and service.
  private var local: [String: ProvidedService] = [:]
  /// The deadlines of the calls under way.
  let deadlines: ServiceDeadlines

  init(host: SharedHost) {
    self.host = host
    deadlines = ServiceDeadlines(clock: host.services.clock)
  }

  /// Each service's provider, as resolved: looked up once per catalog, not per call.
  private var providers: [String: (service: ServiceGraph.Service, plugin: LoadedPlugin?)] = [:]

  /// The catalog or the app's choice of providers changed (a reload):
  /// providers made and looked up from the old ones are dropped.
  func catalogChanged() {
    local.removeAll()
    providers.removeAll()
  }

  /// The service `name` as resolved, and its provider's plugin if it is loaded.
  private func provider(of name: String, in host: SharedHost) -> (
    service: ServiceGraph.Service, plugin: LoadedPlugin?
  )? {
    if let found = providers[name] { return found }
    guard let service = host.serviceGraph.services.first(where: { $0.name == name }) else { return nil }
    let found = (service, host.catalog.loaded.first { $0.name == service.provider })
    providers[name] = found
    return found
  }

  /// What carries the calls of `caller`, a user of the plugin `plugin`
  /// requiring `requires`; nil when it requires no business service.
  /// `named` (the module's URN) in the log.
  func calls(
    of caller: ServiceGraph.User, named name: String, in plugin: String, requiring requires: [ServiceRequirement]
  ) -> (any ServiceCalling)? {
    requires.isEmpty
      ? nil : ConsumerCalls(router: self, caller: caller, name: name, plugin: plugin, requires: requires)
  }

  /// Carries out `request` for `caller` and returns how it ended, by its deadline.
  func call(_ request: ServiceRequest, from caller: ConsumerCalls) async -> ServiceOutcome {
    guard let host else { return ConsumerCalls.hostStopped(request) }
    let start = ContinuousClock.now
    let (outcome, provider) = await route(request, from: caller, in: host)
    log(request, from: caller, provider: provider, outcome, took: ContinuousClock.now - start, in: host)
    return outcome
  }

  private func route(_ request: ServiceRequest, from caller: ConsumerCalls, in host: SharedHost) async -> (
    ServiceOutcome, String?
  ) {
    func error(_ kind: ServiceCallError.Kind, _ reason: String) -> ServiceOutcome {
      .error(kind, request, reason)
    }
    let requirement: ServiceRequirement
    switch ServiceRequirement.allowing(request, among: caller.requires, caller: caller.caller.description) {
    case .success(let allowed): requirement = allowed
    case .failure(let refusal): return (.error(refusal), nil)
    }
    guard let (service, loaded) = provider(of: request.service, in: host),
      requirement.versions.contains(service.version)
    else {
      let finding = host.serviceGraph.findings.first { $0.service == request.service && $0.isError }
      return (error(.unavailable, finding?.message ?? "no plugin provides '\(request.service)'"), nil)
    }
    guard let plugin = loaded else {
      return (error(.unavailable, "its provider, the plugin \(service.provider), is not loaded"), service.provider)
    }
    guard request.payload.depth <= ServiceValue.depthLimit else {
      return (error(.undecodable, "the request nests deeper than \(ServiceValue.depthLimit) levels"), nil)
    }
    let seconds = min(max(request.deadline.isNaN ? 0 : request.deadline, 0), Self.longestDeadline)
    let call = PendingServiceCall(request)
    let expiry = deadlines.add(in: seconds) {
      call.fail(
        .deadline,
        "its provider, the plugin \(plugin.name), did not answer within \(Self.seconds(seconds)) on the host's clock")
    }
    defer { deadlines.remove(expiry) }
    let outcome = await withTaskCancellationHandler {
      await call.outcome { start(call, with: plugin, in: host) }
    } onCancel: {
      Task { @MainActor in call.fail(.cancelled, "the call was cancelled") }
    }
    switch outcome {
    case .response(let value), .failure(let value):
      guard value.depth <= ServiceValue.depthLimit else {
        return (error(.undecodable, "the answer nests deeper than \(ServiceValue.depthLimit) levels"), plugin.name)
      }
    case .error: break
    @unknown default: return (error(.failed, "it answered in a way this host does not know"), plugin.name)
    }
    return (outcome, plugin.name)
  }

  /// The longest deadline a call may ask for: an hour.
  static let longestDeadline = 3600.0

  /// Sets `call` going with `plugin`'s provider: in the plugin's process, or
  /// made in this process on first use.
  private func start(_ call: PendingServiceCall, with plugin: LoadedPlugin, in host: SharedHost) {
    // A plugin known from a scan is its activation's once loaded.
    let ready = plugin.activation.map(\.plugin) ?? plugin
    guard let plugin = ready, plugin.process?.isRunning != false else {
      // Loaded, or started again, first: the caller waits, nobody else.
      let task = Task { @MainActor in
        guard let plugin = await self.loaded(plugin, for: call) else { return }
        self.start(call, with: plugin, in: host)
      }
      call.onFinish = { task.cancel() }
      return
    }
    if let desk = plugin.process?.serviceDesk {
      if !desk.hasProviderServices { desk.prepareProviders(providerServices(of: plugin, in: host)) }
      return desk.callProvider(call)
    }
    let request = call.request
    let key = plugin.path + "\u{0}" + request.service
    let provided: ProvidedService
    if let made = local[key] {
      provided = made
    } else {
      guard let type = plugin.providerTypes.first(where: { $0.provision.service == request.service }) else {
        return call.fail(
          .unavailable, "its provider, the plugin \(plugin.name), has no implementation of it in its providers")
      }
      provided = ProvidedService(type, services: providerServices(of: plugin, in: host))
      local[key] = provided
    }
    // Its own task, so that a provider that ignores cancellation holds up
    // no one past the deadline; started at once, here, so that a provider
    // that answers before its first `await` answers with no hop at all.
    let task = Task.immediate { @MainActor in call.finish(await provided.outcome(of: request)) }
    if !call.isFinished { call.onFinish = { task.cancel() } }
  }

  /// `plugin` loaded, and its process running; nil, with `call` failed, when it cannot be.
  private func loaded(_ plugin: LoadedPlugin, for call: PendingServiceCall) async -> LoadedPlugin? {
    var plugin = plugin
    if let activation = plugin.activation {
      do throws(Rejection) {
        plugin = try await activation.load()
      } catch {
        call.fail(
          .unavailable,
          "its provider, the plugin \(plugin.name), could not be loaded: \(error.reasons.joined(separator: "; "))")
        return nil
      }
    }
    if let desk = plugin.process?.serviceDesk, await !desk.startAgain(for: call) { return nil }
    return call.isFinished ? nil : plugin
  }

  /// The services of `plugin`'s providers, granted per plugin as the
  /// plugin's process holds them, in one process as in its own: the host
  /// services they declared and calls to the business services they require.
  private func providerServices(of plugin: LoadedPlugin, in host: SharedHost) -> Services {
    let provisions = plugin.provides
    let requires = provisions.flatMap(\.requires)
    let name = provisions.map(\.service).joined(separator: ", ")
    let contract = Contract(
      urn: "provider:\(name)", summary: "the provider of \(name)",
      services: Services.Name.allCases.filter(Set(provisions.flatMap(\.services)).contains), requires: requires)
    // The catalog's identity: a plugin whose name another shares gets no storage here either.
    let identity =
      host.catalog.routes.first { $0.pluginPath == plugin.path }?.identity
      ?? PluginIdentity(plugin)
    let services = host.services.services(
      for: contract, plugin: identity, urn: "\(plugin.name) (\(name))", isProvider: true)
    guard let calls = calls(of: .service(name), named: "\(plugin.name) (\(name))", in: plugin.name, requiring: requires)
    else { return services }
    return services.adding(calls)
  }

  private func log(
    _ request: ServiceRequest, from caller: ConsumerCalls, provider: String?, _ outcome: ServiceOutcome, took: Duration,
    in host: SharedHost
  ) {
    let ended: String
    let level: LogLevel
    switch outcome {
    case .response:
      (ended, level) = ("answered", .debug)
    case .failure:
      (ended, level) = ("failed with the operation's error", .info)
    case .error(let error):
      (ended, level) =
        error.kind == .cancelled ? ("cancelled", .debug) : ("\(error.kind.rawValue): \(error.reason)", .warning)
    @unknown default:
      (ended, level) = ("ended in a way this host does not know", .warning)
    }
    let by = provider.map { " by \($0)" } ?? ""
    host.services.logLine(
      level, module: caller.name,
      "service call \(request.service).\(request.operation)\(by) \(ended) in \(took.shownInMilliseconds)",
      by: caller.plugin)
  }

  private static func seconds(_ value: Double) -> String {
    value == value.rounded() ? "\(Int(value)) s" : "\(value) s"
  }

}

/// The business service calls of one consumer: a module, or the providers
/// of one plugin. What a consumer does not require is refused.
@MainActor
final class ConsumerCalls: ServiceCalling {
  /// Weak: the module's work may outlive the host that carried it.
  private weak var router: ServiceRouter?
  /// Who calls, for messages.
  let caller: ServiceGraph.User
  /// Who calls, for the log: a module's URN.
  let name: String
  /// The plugin it belongs to.
  let plugin: String
  /// The services it may call, with the versions it accepts.
  let requires: [ServiceRequirement]

  init(router: ServiceRouter, caller: ServiceGraph.User, name: String, plugin: String, requires: [ServiceRequirement]) {
    self.router = router
    self.caller = caller
    self.name = name
    self.plugin = plugin
    self.requires = requires
  }

  func call(_ request: ServiceRequest) async -> ServiceOutcome {
    guard let router else { return Self.hostStopped(request) }
    return await router.call(request, from: self)
  }

  /// How a call ends that comes after its host runtime is gone.
  static func hostStopped(_ request: ServiceRequest) -> ServiceOutcome {
    .error(.unavailable, request, "the host that carried this caller's calls has stopped")
  }
}

/// The deadlines of the calls under way, on the host's clock: one timer
/// for all of them, waking for the earliest, and left to fire when the call
/// it was set for ends first (re-armed for the next then), so a call that
/// is answered in time costs no timer of its own.
@MainActor
final class ServiceDeadlines {
  private let clock: ModuleClock
  private var entries: [Int: (due: Double, expire: () -> Void)] = [:]
  private var nextID = 0
  /// When the timer under way wakes, and the task that waits for it.
  private var armedFor: Double?
  private var timer: Task<Void, Never>?
  /// How many holds are under way (``hold()``), and since when.
  private var holds = 0
  private var heldSince = 0.0

  private let start = ContinuousClock.now

  init(clock: ModuleClock) {
    self.clock = clock
  }

  /// Now in seconds: virtual time, or on a real clock the monotonic time
  /// since this was made, so that a step of the system's clock moves no deadline.
  private func now() -> Double {
    guard case .real = clock.mode else { return clock.now() }
    let (seconds, attoseconds) = (ContinuousClock.now - start).components
    return Double(seconds) + Double(attoseconds) / 1e18
  }

  /// Calls `expire` once `seconds` have passed on the clock, unless
  /// ``remove(_:)`` is called first with the returned id.
  func add(in seconds: Double, _ expire: @escaping () -> Void) -> Int {
    nextID += 1
    let due = now() + seconds
    entries[nextID] = (due, expire)
    if holds == 0, armedFor.map({ due < $0 }) ?? true { arm(for: due) }
    return nextID
  }

  /// Forgets deadline `id`.
  func remove(_ id: Int) { entries[id] = nil }

  /// Stops every deadline until the matching ``release()``: the host is
  /// waiting for the person (a permission asked), not for a provider.
  func hold() {
    holds += 1
    guard holds == 1 else { return }
    heldSince = now()
    timer?.cancel()
    timer = nil
    armedFor = nil
  }

  /// Ends a ``hold()``; when the last ends, every deadline moves on by as
  /// long as it was held.
  func release() {
    guard holds > 0 else { return }
    holds -= 1
    guard holds == 0 else { return }
    let held = now() - heldSince
    for id in entries.keys { entries[id]?.due += held }
    if let next = entries.values.map(\.due).min() { arm(for: next) }
  }

  /// Sets the one timer for `due`, cancelling the one it replaces.
  private func arm(for due: Double) {
    armedFor = due
    timer?.cancel()
    let wait = max(0, due - now())
    timer = Task { @MainActor [clock] in
      guard (try? await clock.sleepOutsideWork(for: wait)) != nil else { return }
      self.fire()
    }
  }

  private func fire() {
    armedFor = nil
    timer = nil
    guard holds == 0 else { return }
    let now = now()
    for (id, entry) in entries.filter({ $0.value.due <= now }).sorted(by: { $0.key < $1.key }) {
      entries[id] = nil
      entry.expire()
    }
    if let next = entries.values.map(\.due).min() { arm(for: next) }
  }
}
