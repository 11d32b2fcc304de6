import CVivariumSystem
import Dispatch
import Foundation
import Glibc
import ViperKit
import ViperKitHosting
import VivariumLoading
import VivariumSupport
import VivariumWire

/// The plugin process: `vivarium __plugin FILE`, started by ``PluginSupervisor``
/// with its socket as descriptor 3 and the plugin file as descriptor 4. It
/// loads the plugin, says `ready` with its contracts, then builds and runs the
/// plugin's modules as the host asks, on its own main actor, until the
/// socket closes. The host keeps navigation, the screen and the services;
/// everything a module does reaches the host as a ``PluginMessage``.
@MainActor
package final class PluginServer {

  private let connection: HostConnection
  var channel: WireChannel<PluginMessage> { connection.channel }
  private let factories: [any ModuleFactory]
  private var modules: [UInt32: PluginModule] = [:]
  /// The stores and clock the host gave this process copies of, kept current.
  let copies = StoreCopies()
  private var nextCall: UInt32 = 1
  /// The longest a call that holds the main actor waits for the host's
  /// answer (``ask(_:_:)``): what the host says, half its response limit.
  private var heldAnswerLimit = WireProtocol.answerLimit
  private var nextWork: UInt32 = 1
  private var nextSleep: UInt32 = 1
  private var sleepers: [UInt32: CheckedContinuation<Void, any Error>] = [:]
  /// Answers under way to the host's questions (``LeaveGuard``), by call:
  /// cancelled when the host stops waiting for them.
  private var leaveAnswersUnderWay: [UInt32: Task<Void, Never>] = [:]
  /// The host's calls to modules whose factory (an ``OpenGuard``) is still
  /// deciding whether they open, by module, in order.
  private var heldForGuard: [UInt32: [() -> Void]] = [:]

  /// The business services the plugin provides, made on first use.
  private lazy var providers = ProcessProviders(server: self, types: providerTypes)
  private let providerTypes: [any ServiceProvider.Type]
  /// The events its modules and providers subscribed to, and those the host delivers.
  private(set) lazy var events = ProcessEvents(server: self, subscribes: subscribes)
  private let subscribes: [String]

  init(
    connection: HostConnection, factories: [any ModuleFactory], providers: [any ServiceProvider.Type],
    subscribes: [String] = []
  ) {
    self.connection = connection
    self.factories = factories
    providerTypes = providers
    self.subscribes = subscribes
  }

  /// Whether `arguments` (without the executable) start a plugin process.
  package nonisolated static func isPluginProcess(_ arguments: [String]) -> Bool {
    arguments.first == PluginProcessLaunch.pluginCommand
  }

  /// The process's main, on the main thread before anything else has run
  /// (`arguments` without the executable): never returns; the process
  /// exits when the host closes the socket.
  package nonisolated static func childMain(_ arguments: [String]) -> Never {
    let parent = ProcessInfo.processInfo.environment[ChildChannel.parentVariable].flatMap { pid_t($0) } ?? getppid()
    if vivarium_die_with_parent(parent) != 0 { exit(1) }
    if arguments.count > 1 { ProcessConfinement.name(plugin: arguments[1]) }
    if let bytes = ProcessInfo.processInfo.environment[PluginProcessLaunch.memoryVariable].flatMap({ Int($0) }) {
      limitMemory(to: bytes)
    }
    guard arguments.count > 1 else { exit(2) }
    let environment = ProcessInfo.processInfo.environment
    let confined = environment[PluginProcessLaunch.unconfinedVariable] == nil
    if confined && environment[ProcessConfinement.sharedNetworkVariable] == nil { ProcessConfinement.isolateNetwork() }
    serve(path: arguments[1], confined: confined)
  }

  /// Caps the memory (bytes of data) this process may allocate.
  nonisolated static func limitMemory(to bytes: Int) {
    var limit = rlimit(rlim_cur: rlim_t(bytes), rlim_max: rlim_t(bytes))
    _ = setrlimit(__rlimit_resource_t(RLIMIT_DATA.rawValue), &limit)
  }

  /// Loads the plugin at `path` (open as descriptor 4), confining this
  /// process first when `confined` (``ProcessConfinement``), and serves it
  /// on descriptor 3 from the main thread (``HostConnection``) until the
  /// host closes it; a refused plugin is reported and the process exits.
  nonisolated static func serve(path: String, confined: Bool) -> Never {
    MainActor.assumeIsolated {
      PluginLinks.sweepsAbandonedTrees.store(false, ordering: .relaxed)
      let connection = HostConnection(
        channel: WireChannel<PluginMessage>(descriptor: PluginProcessLaunch.socketDescriptor))
      let channel = connection.channel
      let factories: [any ModuleFactory]
      var providers: [any ServiceProvider.Type] = []
      var subscribes: [String] = []
      var loader = PluginLoader()
      if confined { loader.beforeMapping = { ProcessConfinement.confine(for: $0) } }
      loader.beforeEntry = { channel.send(.mapped) }
      switch loader.loadInherited(ChildChannel.fileDescriptor, path: path) {
      case .loaded(let plugin):
        // Loaded by this process's own loader: every module is built here.
        factories = plugin.factoriesInThisProcess ?? []
        providers = plugin.providerTypes
        subscribes = plugin.topics.subscribes
        let ready = PluginMessage.ready(
          version: WireProtocol.version, name: plugin.name, sdkVersion: plugin.sdkVersion.description,
          contracts: factories.map(\.contract), pluginVersion: plugin.version, provides: plugin.provides,
          hosts: plugin.hosts, publishes: plugin.topics.publishes, subscribes: plugin.topics.subscribes)
        // Encoded once: with ten thousand contracts, that is most of a start.
        let encoded = try? ready.encoded()
        if let tooLarge = PluginLimits.rejection(
          path, count: factories.count, bytes: encoded?.count ?? Int.max,
          as: "the ready message of its plugin process")
        {
          channel.send(.refused(kind: tooLarge.kind.rawValue, reasons: tooLarge.reasons))
          exit(0)
        }
        channel.send(encoded: encoded ?? [])
      case .rejected(let rejection):
        channel.send(.refused(kind: rejection.kind.rawValue, reasons: rejection.reasons))
        exit(0)
      }
      let server = PluginServer(
        connection: connection, factories: factories, providers: providers, subscribes: subscribes)
      connection.run(receiving: server.receive)
    }
  }

  // MARK: What the host sends

  /// Takes a message from the host as soon as it is read, also while a
  /// module waits for the host's answer (``ask(_:_:)``): the copies change
  /// at once, in the order sent, before what follows them is carried out,
  /// and answers go to whoever waits for them; a call waits its turn.
  func receive(_ message: HostMessage) {
    switch message {
    case .storeCopy(let store, let entries): copies.replace(store, with: entries)
    case .storeChanged(let store, let key, let value):
      copies.change(store, key, to: value)
      if copies.isObserved(store, key) { inTurn { [copies] in copies.tell(store, key) } }
    case .clock(let now): copies.setClock(now)
    case .deliver(let topic, let payload): events.receive(topic, payload) { inTurn($0) }
    case .answerWithin(let seconds): heldAnswerLimit = .seconds(seconds)
    case .answer(let call, let answer): connection.deliver(call, answer)
    case .build(let call, let module, let factory, let urn, let arguments, let services, let restoring):
      inTurn { [self] in
        build(
          call: call, module: module, factory: factory, urn: urn, arguments: arguments, services: services,
          restoring: restoring)
      }
    case .lifecycle(let call, let id, let event):
      inTurn(for: id) { [self] in
        if let module = modules[id] {
          module.module.lifecycle(event)
          if event == .detach { release(id) }
        }
        channel.send(.done(call: call))
        sendState(of: id)
      }
    case .event(let call, let id, let event):
      inTurn(for: id) { [self] in
        modules[id]?.module.view.handle(event)
        channel.send(.done(call: call))
        sendState(of: id)
      }
    case .message(let call, let id, let message, let origin):
      inTurn(for: id) { [self] in
        modules[id]?.module.receiver?.receive(message, from: origin)
        channel.send(.done(call: call))
        sendState(of: id)
      }
    case .mayLeave(let call, let id):
      inTurn(for: id) { [self] in decideLeaving(call: call, module: id) }
    case .callProvider(let call, let request):
      inTurn { [self] in providers.carryOut(call, request) }
    case .cancel(let call):
      inTurn { [self] in cancel(call) }
    case .woke(let sleep, let cancelled):
      inTurn { [self] in
        let sleeper = sleepers.removeValue(forKey: sleep)
        if cancelled { sleeper?.resume(throwing: CancellationError()) } else { sleeper?.resume() }
      }
    }
  }

  /// Has `call`, a call of the host's (to module `module`, if it is one),
  /// carried out in its turn: a call to a module whose factory (an
  /// ``OpenGuard``) is still deciding whether it opens is carried out
  /// once it has, in order.
  private func inTurn(for module: UInt32? = nil, _ call: @escaping () -> Void) {
    connection.later { [self] in
      if let module, heldForGuard[module] != nil {
        heldForGuard[module]?.append(call)
      } else {
        call()
      }
    }
  }

  /// Answers the host's `mayLeave` call `call` with what module `id`'s
  /// presenter decides, when it is a ``LeaveGuard``; its other calls go on
  /// while it decides, and the host may cancel it.
  private func decideLeaving(call: UInt32, module id: UInt32) {
    guard let guarding = modules[id]?.module.presenter as? any LeaveGuard else {
      channel.send(.leaveDecision(call: call, .leave))
      return
    }
    leaveAnswersUnderWay[call] = Task { [channel] in
      let decision = await guarding.shouldLeave()
      // A cancelled question was answered when it was cancelled.
      guard self.leaveAnswersUnderWay.removeValue(forKey: call) != nil else { return }
      channel.send(.leaveDecision(call: call, decision))
    }
  }

  /// The host no longer waits for its call `call`: a provider's call is
  /// cancelled, and a question to a ``LeaveGuard`` is answered at once, so
  /// the process is not left owing an answer to a guard that ignores it.
  private func cancel(_ call: UInt32) {
    if providers.cancel(call) { return }
    guard let task = leaveAnswersUnderWay.removeValue(forKey: call) else { return }
    task.cancel()
    channel.send(.leaveDecision(call: call, .leave))
  }

  /// Tells the host the restoration state of module `id` if it changed
  /// since it was last sent: after each call to it, and when it draws. Only
  /// the module called is asked, so a call costs the same however many
  /// modules the process holds.
  func sendState(of id: UInt32) {
    guard let module = modules[id] else { return }
    // The state in the wire's codec first, much cheaper than JSON: when it
    // is what it was at the last JSON, nothing changed.
    let bytes = module.module.restoring.flatMap(Self.wireForm)
    if let bytes, bytes == module.stateBytes { return }
    modules[id]?.stateBytes = bytes
    let sent: (state: String?, failure: String?)
    do throws(Restoration.Failure) {
      sent = (try Restoration.state(of: module.module), nil)
    } catch {
      sent = (nil, error.message)
    }
    guard sent != module.sentState else { return }
    modules[id]?.sentState = sent
    channel.send(.restorationState(module: id, state: sent.state, failure: sent.failure))
  }

  /// `role`'s restoration state in the wire's codec (empty for none); nil
  /// when it does not encode, and JSON must say why.
  private static func wireForm(_ role: any StateRestoring) -> [UInt8]? {
    func encode<Role: StateRestoring>(_ role: Role) -> [UInt8]? {
      guard let state = role.restorationState else { return [] }
      return try? WireEncoder.encode(state)
    }
    return encode(role)
  }

  /// Builds module `id` with factory `index`, once the factory, if it is
  /// an ``OpenGuard``, lets it open: its decision is awaited while the
  /// process goes on (the host sends nothing more for the module before
  /// the answer).
  private func build(
    call: UInt32, module id: UInt32, factory index: Int, urn: String, arguments: [String: ArgumentValue],
    services: [Services.Name], restoring state: String?
  ) {
    guard factories.indices.contains(index) else {
      channel.send(.buildFailed(call: call, message: "the plugin has no factory \(index)"))
      return
    }
    let buildNow = { [self] in
      make(
        call: call, module: id, factory: index, urn: urn, arguments: arguments, services: services,
        restoring: state)
      sendState(of: id)
    }
    guard let guarding = factories[index] as? any OpenGuard else { return buildNow() }
    heldForGuard[id] = []
    Task {
      let decision = await guarding.shouldOpen(OpenRequest(urn: urn, arguments: arguments))
      let held = heldForGuard.removeValue(forKey: id) ?? []
      switch decision {
      case .open: buildNow()
      default: channel.send(.openRefused(call: call, decision))
      }
      // Calls the host made meanwhile (it stopped waiting for the build),
      // in order: to the module, or answered for one that was refused.
      for call in held { call() }
    }
  }

  private func make(
    call: UInt32, module id: UInt32, factory index: Int, urn: String, arguments: [String: ArgumentValue],
    services: [Services.Name], restoring state: String?
  ) {
    let link = ChannelLink(server: self, module: id)
    let work = ChannelWork(server: self, module: id)
    let context = ModuleContext(
      urn: urn, arguments: Arguments(arguments), router: link, canvas: link, messages: link, work: work,
      services: link.services(named: services, declared: Set(factories[index].contract.services)))
    do {
      let module = try factories[index].build(context)
      var restoreFailure: String?
      if let state {
        do throws(Restoration.Failure) {
          try Restoration.restore(state, to: module)
        } catch {
          restoreFailure = error.message
        }
      }
      // The host knows the state it gave: it is sent again only when it changes.
      modules[id] = PluginModule(
        module: module, link: link, work: work, sentState: (restoreFailure == nil ? state : nil, nil))
      channel.send(
        .built(
          call: call, roles: module.roles.map { WireRole(role: $0.role, typeName: $0.typeName) },
          receives: module.receiver != nil, guardsLeaving: module.presenter is any LeaveGuard,
          restoreFailure: restoreFailure))
    } catch {
      channel.send(.buildFailed(call: call, message: "\(error)"))
    }
  }

  /// Lets a detached module go: its work is cancelled, and once that work has
  /// ended, the host is told which role objects are still alive (a leak;
  /// none, usually).
  private func release(_ id: UInt32) {
    guard let module = modules.removeValue(forKey: id) else { return }
    module.work.cancelAll()
    let roles = module.module.roles
    module.work.whenIdle { [channel] in
      // On the next turn, when the call that detached it holds it no more.
      DispatchQueue.main.async {
        let alive = roles.filter(\.isAlive).map { WireRole(role: $0.role, typeName: $0.typeName) }
        channel.send(.leaked(module: id, roles: alive))
      }
    }
  }

  // MARK: Calls to the host

  /// Sends a service call and waits for the host's answer, blocking this
  /// main actor as a call into the host would in one process, up to half
  /// the host's response limit (``HostMessage/answerWithin(seconds:)``): a host
  /// that has not answered by then fails the call, which the module sees
  /// (`set` throws; a read finds nothing), rather than hold the module for
  /// ever. An answer that comes later is dropped.
  func ask(_ module: UInt32, _ service: HostServiceCall) -> WireAnswer {
    let call = nextCall
    nextCall &+= 1
    // What the call sent so far, and this, go now: the answer is awaited.
    guard channel.send(.callHostService(call: call, module: module, service)), channel.flush(keepHolding: true) else {
      exit(0)
    }
    guard let answer = connection.answer(to: call, within: heldAnswerLimit) else {
      return .failed("the host did not answer within \(heldAnswerLimit), half its response limit")
    }
    return answer
  }

  /// Asks the host for `service` for module `module` and suspends the
  /// caller, not the main actor, until the answer comes: the process's
  /// other work goes on. A host that has not answered within
  /// ``WireProtocol/answerLimit`` gets the call failed, so nothing waits
  /// for ever.
  func call(_ module: UInt32, _ service: HostServiceCall) async -> WireAnswer {
    await answer(within: WireProtocol.answerLimit) { .callHostService(call: $0, module: module, service) }
  }

  /// Calls the business service `request` names for module `module` (0:
  /// for one of the process's providers) through the host, and suspends
  /// the caller until the host answers, by the call's deadline: the host
  /// keeps it. Cancelling the caller cancels the call in the host, and
  /// in the provider.
  func callBusinessService(_ module: UInt32, _ request: ServiceRequest) async -> ServiceOutcome {
    // The host answers by the call's deadline, which it keeps: no timer here.
    let answer = await answer(within: nil, cancel: { .cancelServiceCall(call: $0) }) {
      .callBusinessService(call: $0, module: module, request)
    }
    switch answer {
    case .outcome(let outcome): return outcome
    case .failed(let reason): return .error(.unavailable, request, reason)
    default: return .error(.failed, request, "the host answered \(answer)")
    }
  }

  /// Sends `request` through the host's http service for module `module`
  /// and suspends the caller until the host answers, within its time
  /// limit; cancelling the caller cancels the request in the host.
  func sendHTTP(_ module: UInt32, _ request: HTTPRequest) async throws -> HTTPResponse {
    let answer = await answer(within: nil, cancel: { .cancelServiceCall(call: $0) }) {
      .sendHTTP(call: $0, module: module, request)
    }
    switch answer {
    case .httpResponse(let response): return response
    case .httpFailed(let error): throw error
    case .failed(let reason): throw HTTPError(.failed, url: request.url, reason: reason)
    default: throw HTTPError(.failed, url: request.url, reason: "the host answered \(answer)")
    }
  }

  /// Sends the call `make` makes of a new call number and suspends the
  /// caller, not the main actor, until the host answers it; a host that
  /// has not answered within `limit` (if any) gets the call failed, so
  /// nothing waits for ever. A cancelled caller sends what `cancel` makes,
  /// if anything, and still waits for the answer.
  private func answer(
    within limit: Duration?, cancel: (@Sendable (UInt32) -> PluginMessage)? = nil, _ make: (UInt32) -> PluginMessage
  ) async -> WireAnswer {
    let call = nextCall
    nextCall &+= 1
    let timer = limit.map { limit in
      Task { [connection] in
        try await Task.sleep(for: limit)
        connection.deliver(call, .failed("the host did not answer within \(limit)"))
      }
    }
    defer { timer?.cancel() }
    return await withTaskCancellationHandler {
      await withCheckedContinuation { continuation in
        connection.expect(call, continuation)
        guard channel.send(make(call)), channel.flush(keepHolding: true) else { exit(0) }
      }
    } onCancel: {
      guard let cancel else { return }
      Task { @MainActor in _ = self.channel.send(cancel(call)) }
    }
  }

  /// Sends a service call that wants no answer.
  func tell(_ module: UInt32, _ service: HostServiceCall) {
    channel.send(.callHostService(call: 0, module: module, service))
  }

  func newWorkID() -> UInt32 {
    defer { nextWork &+= 1 }
    return nextWork
  }

  /// Sleeps on the host's clock, within work `work` (0 outside any).
  func sleep(_ seconds: Double, work: UInt32, waiting: Bool) async throws {
    try Task.checkCancellation()
    let id = nextSleep
    nextSleep &+= 1
    try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
        sleepers[id] = continuation
        channel.send(.sleep(work: work, sleep: id, seconds: seconds, waiting: waiting))
      }
    } onCancel: {
      Task { @MainActor in
        guard let sleeper = self.sleepers.removeValue(forKey: id) else { return }
        self.channel.send(.cancelSleep(sleep: id))
        sleeper.resume(throwing: CancellationError())
      }
    }
  }
}

/// A module the plugin process built, with what its context sends through.
@MainActor
struct PluginModule {
  let module: Module
  let link: ChannelLink
  let work: ChannelWork
  /// The restoration state last sent to the host, or why it could not be read.
  var sentState: (state: String?, failure: String?)
  /// The state's wire form when it was last read as JSON (``sentState``).
  var stateBytes: [UInt8]?
}

/// The stores the host gave the process copies of (``WireStore``), and its
/// clock: written as the host's messages are read, read by modules, both on
/// the main thread (``HostConnection``).
@MainActor
final class StoreCopies {
  private var stores: [WireStore: [String: ArgumentValue]] = [:]
  /// The host's clock as last sent (``HostMessage/clock(now:)``): nil before
  /// it is; `.some(nil)` for real time.
  private var clock: Double??

  /// Takes `entries` as everything `store` holds.
  func replace(_ store: WireStore, with entries: [String: ArgumentValue]) {
    stores[store] = entries
  }

  /// Sets or removes `key` of `store`, if the process holds a copy of it.
  func change(_ store: WireStore, _ key: String, to value: ArgumentValue?) {
    stores[store]?[key] = value
  }

  /// The modules observing keys of a store (``ViperKit/SettingsStore/observe(_:by:_:)``).
  private var observers = OwnedEntries<ObservedKey, @MainActor (ArgumentValue?) -> Void>()

  /// A key of a store.
  private struct ObservedKey: Hashable {
    let store: WireStore
    let key: String
  }

  /// Has `changed` called with `key`'s value in `store` at each change the
  /// host sends, while `owner` lives; replaces what `owner` observed of it.
  func observe(
    _ store: WireStore, _ key: String, by owner: AnyObject, _ changed: @escaping @MainActor (ArgumentValue?) -> Void
  ) {
    observers.add(changed, for: owner, key: ObservedKey(store: store, key: key))
  }

  /// Whether a module observes `key` of `store`.
  func isObserved(_ store: WireStore, _ key: String) -> Bool {
    observers.contains(key: ObservedKey(store: store, key: key))
  }

  /// Tells the modules observing `key` of `store` its value now.
  func tell(_ store: WireStore, _ key: String) {
    let value = stores[store]?[key]
    for changed in observers.values(for: ObservedKey(store: store, key: key)) { changed(value) }
  }

  /// `read` applied to the copy of `store`; nil when the process holds none.
  func read<Result>(_ store: WireStore, _ read: ([String: ArgumentValue]) -> Result) -> Result? {
    stores[store].map(read)
  }

  /// Takes `now` as the host's clock (nil: real time).
  func setClock(_ now: Double?) {
    clock = .some(now)
  }

  /// Now on the host's clock, in seconds since 1970, without asking the
  /// host; nil when the host gave no copy of its clock.
  func now() -> Double? {
    switch clock {
    case .none: nil
    case .some(.some(let virtual)): virtual
    case .some(.none): ModuleClock.systemNow()
    }
  }
}
