import Foundation
import Glibc
import ViperKit
import ViperKitHosting
import VivariumSupport
import VivariumWire

/// One plugin file hosted in a process of its own (docs/what-runs-where.md,
/// "Processes"): the host's side of that process. It starts the process,
/// hands it the calls of the host's modules and waits for their answers up
/// to ``PluginProcessOptions/responseLimit``, carries out what the
/// process's modules ask, and notices when the process ends. A plugin that
/// crashes, hangs or misbehaves on the channel ends only this process: its
/// modules show what happened in their place (``PluginFailure``), and
/// ``restart()`` starts a new process for the same file.
///
/// It composes the pieces that each own their state: the process's
/// connection (``PluginConnection``: its socket, its inbox, its reader),
/// held in a ``Generation`` replaced whole at each start; the calls the
/// host made and awaits, with their deadline (``OutstandingCalls``); and
/// the desk where what the process asks of the host's services is served
/// (``PluginServiceDesk``). What stays here is starting the process, the
/// process's modules and works, and carrying out what it sends.
@MainActor
package final class PluginSupervisor {
  /// Where the plugin is and how its processes run.
  package let path: String
  let options: PluginProcessOptions
  /// The plugin file, opened and checked once, handed to each process.
  private let file: PluginFile
  /// The plugin's declared name and contracts, from the first start.
  package private(set) var name = ""
  private(set) var contracts: [Contract] = []
  private(set) var sdkVersion = ViperKitVersion.current
  /// The plugin's own version and the business services it provides, from its start.
  private(set) var pluginVersion = SemanticVersion(0)
  private(set) var provides: [ServiceProvision] = []
  private(set) var hosts: [String] = []
  /// The topics of events it publishes and subscribes to, as it said when ready.
  private(set) var topics = PluginTopics()

  /// How the current process is doing.
  package private(set) var state: State = .running
  /// What belongs to the current process alone: replaced whole at each start.
  private var current = Generation(number: 0, connection: nil, isStarting: false)
  /// Counts starts: modules of an earlier process are failed for good.
  var generation: Int { current.number }
  /// How many times a process was started again after the first.
  package var restarts: Int { max(0, generation - 1) }
  /// The current process's id (0 before the first start), to watch it from outside.
  package var pid: pid_t { current.connection?.pid ?? 0 }

  /// The calls into the process not answered yet, and their deadline.
  private let calls: OutstandingCalls
  /// Where the process's calls to the host's services are served, and the
  /// host's calls to its providers carried.
  package private(set) lazy var serviceDesk = PluginServiceDesk(serving: self)

  private(set) var modules: [UInt32: RemoteModule] = [:]
  private var works: [UInt32: RemoteWork] = [:]
  private var nextModule: UInt32 = 1
  /// The number of the host's next call into the process, of any kind.
  private var nextCall: UInt32 = 1
  /// How many times the process became not responding: one that answers
  /// late shows it, however busy the host was when the answer came.
  private(set) var timesNotResponding = 0

  /// How a plugin process is doing.
  package enum State: Equatable, Sendable {
    /// It answers.
    case running
    /// It did not answer `what` within the time limit; `waiting` once the
    /// person chose to wait.
    case notResponding(what: String, waiting: Bool)
    /// It ended.
    case ended(PluginFailure)
  }

  init(file: PluginFile, options: PluginProcessOptions) {
    self.file = file
    self.path = file.path
    self.options = options
    calls = OutstandingCalls(responseLimit: options.responseLimit)
    calls.owner = self
  }

  /// The open plugin file.
  var fileDescriptor: Int32 { file.descriptor }
  /// Closes the plugin file, for a plugin that did not load.
  func closeFile() { file.close() }

  /// The plugin file's name, for messages.
  package var fileName: String { PathName.lastComponent(path) }

  // MARK: Starting

  /// Starts a process and waits (up to the load limit) for it to load the
  /// plugin and say ready; nil when it did, else why not. The host's main
  /// actor is free meanwhile: only the caller waits.
  /// A start under way is shared: whoever asks meanwhile (a second
  /// session's restart, a service call to a provider that crashed) waits
  /// for the same process, never starts another.
  func start() async -> Rejection? {
    if let starting { return await starting.value }
    let task = Task { @MainActor in await self.startOnce() }
    starting = task
    defer { if starting == task { starting = nil } }
    return await task.value
  }

  /// The start under way, if one is.
  private var starting: Task<Rejection?, Never>?
  /// Why the host let the plugin go while its process was starting: it is
  /// stopped as soon as it has started.
  private var stopWhenStarted: String?

  private func startOnce() async -> Rejection? {
    stopWhenStarted = nil
    let connection: PluginConnection
    do throws(PluginConnection.StartFailure) {
      connection = try await PluginConnection.start(
        path, file: file.descriptor, options: options, schedulePump: { [weak self] in Self.pumpSoon(self) },
        stalled: { [weak self] in self?.stop(because: "it stopped reading its channel") })
    } catch {
      return Rejection(path, .crashed, "the host could not start a process for it: \(error.reason)")
    }
    calls.reset()
    current.connection?.disconnect()
    current = Generation(number: current.number + 1, connection: connection)
    state = .running
    let rejection = await ready(connection)
    if rejection == nil, let reason = stopWhenStarted {
      stop(because: reason)
      return Rejection(path, .crashed, "its process was stopped as it started: \(reason)")
    }
    return rejection
  }

  /// Waits for the process on `connection` to say ready while the host
  /// goes on: what arrives wakes this caller instead of being carried out.
  /// Nil when it did.
  private func ready(_ connection: PluginConnection) async -> Rejection? {
    let deadline = ContinuousClock.now + options.loadLimit
    let timer = Task { @MainActor [weak self] in
      try? await Task.sleep(until: deadline, clock: .continuous)
      guard !Task.isCancelled else { return }
      self?.starter?.resume()
      self?.starter = nil
    }
    defer { timer.cancel() }
    while true {
      if let outcome = takeStartup(from: connection) { return started(outcome) }
      if ContinuousClock.now >= deadline { return loadTimedOut() }
      await withCheckedContinuation { starter = $0 }
    }
  }

  /// The caller of ``ready(_:)``, while it waits for what arrives.
  private var starter: CheckedContinuation<Void, Never>?

  /// How a start ended: nil rejection when the plugin is ready.
  private struct StartOutcome {
    let rejection: Rejection?
  }

  /// Takes what the starting process sent, until its start is decided (the
  /// outcome) or nothing more has arrived (nil).
  private func takeStartup(from connection: PluginConnection) -> StartOutcome? {
    while let (item, _) = connection.take() {
      switch item {
      case .message(.mapped):
        current.mapped = true
      case .message(
        .ready(
          let version, let name, let sdk, let contracts, let pluginVersion, let provides, let hosts, let publishes,
          let subscribes)):
        guard version == WireProtocol.version else {
          stop(because: "it speaks protocol \(version), the host \(WireProtocol.version)")
          return StartOutcome(
            rejection: Rejection(
              path, .incompatible,
              "its process speaks version \(version) of the plugin protocol, the host \(WireProtocol.version); use one vivarium for both"
            ))
        }
        if generation > 1, contracts != self.contracts || name != self.name {
          stop(because: "the plugin file changed")
          return StartOutcome(
            rejection: Rejection(path, .incompatible, "its modules changed since the host loaded it; restart vivarium"))
        }
        self.name = name
        self.contracts = contracts
        self.sdkVersion = Self.version(sdk) ?? .current
        self.pluginVersion = pluginVersion
        self.provides = provides
        self.hosts = hosts
        self.topics = PluginTopics(publishes: publishes, subscribes: subscribes)
        return StartOutcome(rejection: nil)
      case .message(.refused(let kind, let reasons)):
        stop(because: "it refused the plugin")
        return StartOutcome(rejection: Rejection(path, Rejection.Kind(rawValue: kind) ?? .crashed, reasons))
      case .message(let other):
        stop(because: "it sent '\(other.name)' before saying it was ready")
      case .broken(let reason):
        current.stopReason = reason
      case .ended(let status, let stderr):
        let failure = PluginFailure(
          plugin: fileName, status: status, stderr: stderr, stopReason: current.stopReason, turnedOff: turnedOff,
          memoryLimit: options.memoryLimit)
        state = .ended(failure)
        if !current.mapped, current.stopReason == nil, status & 0x7F != 0 {
          return StartOutcome(rejection: PluginProbe.crashedInsideLoader(path, signal: status & 0x7F, stderr: stderr))
        }
        return StartOutcome(
          rejection: Rejection(
            path, .crashed, "it failed while loading in its own process: \(failure.cause)\(failure.saying)"))
      }
    }
    return nil
  }

  /// The start was decided: what arrives from now on is pumped (a pump is
  /// due, as the last one woke the starter instead).
  private func started(_ outcome: StartOutcome) -> Rejection? {
    current.isStarting = false
    if outcome.rejection == nil {
      // A module holding the process's main actor for an answer waits half
      // as long as the host waits for the process: the call it holds up is
      // still answered in time.
      send(.answerWithin(seconds: options.responseLimit / .seconds(2)))
    }
    Task { @MainActor in self.pump() }
    return outcome.rejection
  }

  /// The process did not say ready within the load limit: it is killed.
  private func loadTimedOut() -> Rejection {
    current.isStarting = false
    stop(because: "it did not finish loading within \(options.loadLimit)")
    return Rejection(
      path, .timedOut,
      "loading did not finish within \(options.loadLimit) (the entry point or factories() hangs); its process was killed. Make both return at once"
    )
  }

  /// `2.1.0` as a version.
  private static func version(_ text: String) -> ViperKitVersion? {
    let parts = text.split(separator: ".").compactMap { Int($0) }
    guard parts.count == 3 else { return nil }
    return ViperKitVersion(major: parts[0], minor: parts[1], patch: parts[2])
  }

  /// Starts a new process for the plugin after this one ended; nil when it
  /// is running again, else why not.
  package func restart() async -> Rejection? {
    if let starting { return await starting.value }
    if turnedOff != nil { return .disabled(path, name: name, offers: contracts.map(\.urn)) }
    guard case .ended = state else { return nil }
    return await start()
  }

  /// Ends the process for good when the host lets the plugin go.
  package func terminate() { stop(because: "the host let it go") }

  /// Ends the process because the person asked (the plugins screen): its
  /// modules show it ended, and a restart starts it again.
  package func end() { stop(because: "it was ended from the plugins screen") }

  /// Set once the person turned the plugin off (``turnOff(enableCommand:)``).
  package private(set) var turnedOff: PluginFailure.TurnedOff?

  /// Ends the process for good because the person turned the plugin off:
  /// its modules say so in their place, naming `enableCommand` that turns
  /// it on (``PluginFailure/turnedOff``), and it is not restarted; turning
  /// it on loads a new one.
  package func turnOff(enableCommand: String) {
    turnedOff = PluginFailure.TurnedOff(name: name, enableCommand: enableCommand)
    stop(because: "it was turned off")
  }

  /// Kills the process; its modules show `reason` once it has ended.
  func stop(because reason: String) {
    if starting != nil { stopWhenStarted = reason }
    if case .ended = state { return }
    guard pid > 0 else { return }
    current.stopReason = reason
    kill(pid, SIGKILL)
  }

  /// Whether a call can be sent now, without starting the process again.
  package var isRunning: Bool {
    if case .ended = state { return false }
    return true
  }

  // MARK: Calls

  /// The result of a call into the plugin process.
  enum CallOutcome {
    case done
    /// Built; the module took its roles from the answer (``handle(_:arrival:)``).
    case built(restoreFailure: String?)
    case buildFailed(String)
    case openRefused(OpenDecision)
    case leaveDecision(LeaveDecision)
    case notResponding
    case ended(PluginFailure)
  }

  /// The host's clock, which the process's sleeps use.
  private(set) var clock: (any WallClock)?

  /// Builds a module with factory `factory` in the process, starting a new
  /// process first if the last one ended, and gives it back `saved`, its
  /// restoration state. The module's calls to the host's services are
  /// served with `context.services` (``PluginServiceDesk``). The host's
  /// main actor is free while the process builds it: the build is a call
  /// like any other, and only the caller waits for its answer. A module
  /// whose process crashes or does not answer while building is returned
  /// all the same: it shows what happened in its place.
  package func build(
    _ factory: Int, _ context: ModuleContext, link: any RemoteModuleLink, work: WorkScope, restoring saved: String?
  ) async throws -> (module: Module, restoreFailure: String?) {
    if case .ended = state, let rejection = await restart() {
      throw ModuleBuildError("its plugin could not be started again: \(rejection.reasons.joined(separator: "; "))")
    }
    // The host's clock, never a stand-in for a module that did not list it.
    if !(context.services.clock is UndeclaredService) { clock = clock ?? context.services.clock }
    sendCopies(of: context.services)
    let module = RemoteModule(id: nextModule, process: self, context: context, link: link, work: work)
    nextModule &+= 1
    modules[module.id] = module
    let outcome = await call("building it", in: work) {
      current.building[$0] = module.id
      return .build(
        call: $0, module: module.id, factory: factory, urn: context.urn, arguments: context.arguments.values,
        services: context.services.names, restoring: saved)
    }
    var restoreFailure: String?
    switch outcome {
    case .built(let failure):
      restoreFailure = failure
      module.restorationState = failure == nil ? saved : nil
    case .buildFailed(let message):
      modules[module.id] = nil
      throw ModuleBuildError(message)
    case .openRefused(let decision):
      modules[module.id] = nil
      throw OpenRefusal(decision: decision)
    case .notResponding: module.showState()
    case .done, .ended, .leaveDecision: break
    }
    return (module.module, restoreFailure)
  }

  /// The module `id` of the process, unless it was detached or never built.
  func module(_ id: UInt32) -> RemoteModule? { modules[id] }

  /// How many modules of the plugin live in its process, in every session.
  package var liveModules: Int { modules.count }

  /// Gives the process a copy of each store in `services` it has none of
  /// yet, and keeps it current: its modules read there without waiting on
  /// the host, and a write still comes here, the copies changing before
  /// the write is acknowledged. A store that cannot be copied (one a
  /// module uses without declaring it) is asked at each read.
  func sendCopies(of services: Services) {
    let stores: [(WireStore, Any?)] = [(.storage, services.storage), (.settings, services.settings)]
    for case (let store, let copied as any CopiedStore) in stores where !current.copiedStores.contains(store) {
      current.copiedStores.insert(store)
      send(.storeCopy(store, copied.entries))
      copied.observe(by: self) { [weak self] key, value in self?.send(.storeChanged(store, key: key, value)) }
    }
    if !current.clockCopied, let clock = services.clock as? ModuleClock {
      current.clockCopied = true
      if case .real = clock.mode { return send(.clock(now: nil)) }
      send(.clock(now: clock.now()))
      clock.observe(by: self) { [weak self] now in self?.send(.clock(now: now)) }
    }
  }

  /// A new number for a call of the host's into the process.
  func newCall() -> UInt32 {
    defer { nextCall &+= 1 }
    return nextCall
  }

  /// Sends `make(call)` and suspends the caller, not the host, until its
  /// answer: the build or attach of a module, which the runtime needs done
  /// before it shows the module. Everything the process sends meanwhile is
  /// carried out in its turn, as always, so nothing runs inside a wait.
  /// `what` names the call for the person (`building it`); it counts as in
  /// flight in `work`, and runs against the response limit as every call
  /// does: past it, or when the process is not responding already, the
  /// caller goes on with ``CallOutcome/notResponding`` and the answer, if
  /// it comes, is carried out when it does.
  func call(_ what: String, in work: WorkScope, _ make: (UInt32) -> HostMessage) async -> CallOutcome {
    if case .ended(let failure) = state { return .ended(failure) }
    guard let id = post(what, in: work, make) else { return .notResponding }
    guard state == .running else { return .notResponding }
    return await calls.wait(for: id)
  }

  /// Sends the call `make(call)` and returns at once: its answer is carried
  /// out when it comes, as everything the process sends. `what` names it for
  /// the person (`a tap on 'save'`); it counts as in flight in `work`, the
  /// module's (a session waits for it, the spinner turns) until it is answered, the
  /// process ends, or it stops answering (``PluginProcessOptions/responseLimit``
  /// after the calls before it were answered). A process that is not
  /// responding is sent the call all the same, and answers it in its turn,
  /// but nothing waits for it.
  @discardableResult
  func post(_ what: String, in work: WorkScope, _ make: (UInt32) -> HostMessage) -> UInt32? {
    if case .ended = state { return nil }
    guard let connection = current.connection, connection.isOpen else { return nil }
    let id = newCall()
    guard connection.send(make(id)) else {
      stop(because: "it stopped reading its channel")
      return nil
    }
    // While it is not responding, nothing waits for the call: it is
    // answered in its turn.
    let release = state == .running ? work.beginCall(what) : {}
    calls.add(.init(id: id, what: what, release: release, sent: .now))
    return id
  }

  /// Sends a message that wants no answer (an answer to the process's own
  /// call, a wake-up): also while it is not responding, so that it can.
  func send(_ message: HostMessage) {
    if case .ended = state { return }
    guard let connection = current.connection, connection.send(message) else {
      return stop(because: "it stopped reading its channel")
    }
  }

  /// What became of an event sent to the process (``deliver(topic:_:)``).
  package enum Delivery: Sendable {
    /// Sent.
    case sent
    /// Not sent: no process runs, so none of its modules is live.
    case noProcess
    /// Not sent: the process has not read what it was sent before, past
    /// ``eventBacklogLimit`` bytes.
    case overflow
  }

  /// The most bytes that may wait for the process to read them for an
  /// event to be sent to it: past them, events are dropped (and counted)
  /// rather than queued behind a subscriber that does not keep up.
  package static let eventBacklogLimit = 1 << 20

  /// Sends the process an event on `topic`, which its plugin subscribes to,
  /// without waiting for it to be read.
  package func deliver(topic: String, _ payload: ServiceValue) -> Delivery {
    if case .ended = state { return .noProcess }
    guard let connection = current.connection, connection.isOpen, !current.isStarting else { return .noProcess }
    guard connection.waitingBytes < Self.eventBacklogLimit else { return .overflow }
    send(.deliver(topic: topic, payload))
    return .sent
  }

  /// The host answered a call the process waited for: the time of the
  /// host's oldest call starts again now, as the wait was the host's.
  func hostAnswered() { calls.hostAnswered(at: .now) }

  /// The build `call` failed or was refused: when it comes after the host
  /// stopped waiting for it, the module it already placed says so.
  private func buildEndedLate(_ call: UInt32, _ why: String) {
    guard let module = current.building.removeValue(forKey: call).flatMap({ modules[$0] }), !calls.isAwaited(call)
    else { return }
    module.couldNotBeBuilt(why)
  }

  private func becomeUnresponsive(_ what: String, call: UInt32) {
    timesNotResponding += 1
    // Nothing waits for it any more: a session goes on, showing the choice.
    calls.markOverdue(call)
    calls.resumeAll(with: .notResponding) { send(.cancel(call: $0)) }
    state = .notResponding(what: what, waiting: false)
    for module in modules.values { module.showState() }
  }

  /// The person chose to keep waiting for a process that is not responding.
  func keepWaiting() {
    guard case .notResponding(let what, _) = state else { return }
    state = .notResponding(what: what, waiting: true)
    for module in modules.values { module.showState() }
  }

  // MARK: What the process sends

  /// Carries out what the process sent and is not carried out yet, a batch
  /// at a time: a process that sends without pause leaves the host time
  /// for the person between batches.
  func pump() {
    // A process starting: what arrived is the starter's to take, once it
    // runs again (it may have been woken already, and not have run yet).
    if current.isStarting {
      starter?.resume()
      starter = nil
      return
    }
    guard let connection = current.connection else { return }
    for _ in 0..<Self.batch {
      guard let (item, arrival) = connection.take() else { return }
      handle(item, arrival: arrival)
    }
    Self.pumpSoon(self)
  }

  /// Has `supervisor` carry out what arrived on its next turn: straight
  /// onto the main queue, the main actor's, with no task to make per wake-up.
  private nonisolated static func pumpSoon(_ supervisor: PluginSupervisor?) {
    DispatchQueue.main.async { [weak supervisor] in MainActor.assumeIsolated { supervisor?.pump() } }
  }

  /// How many messages one turn of ``pump()`` carries out.
  static let batch = 256

  private func handle(_ item: PluginInbox.Item, arrival: ContinuousClock.Instant) {
    switch item {
    case .message(let message): handle(message, arrival: arrival)
    case .broken(let reason): current.stopReason = reason
    case .ended(let status, let stderr):
      released.removeAll()
      let failure = PluginFailure(
        plugin: fileName, status: status, stderr: stderr, stopReason: current.stopReason, turnedOff: turnedOff,
        memoryLimit: options.memoryLimit)
      state = .ended(failure)
      current.connection?.disconnect()
      calls.processEnded()
      current.building.removeAll()
      let failed = modules.values.sorted { $0.id < $1.id }
      modules.removeAll()
      for module in failed { module.processEnded(failure) }
      endWorks()
      calls.resumeAll(with: .ended(failure))
      serviceDesk.processEnded(failure)
    }
  }

  private func handle(_ message: PluginMessage, arrival: ContinuousClock.Instant) {
    switch message {
    case .done(let call): answered(call, .done, arrival: arrival)
    case .built(let call, let roles, let receives, let guardsLeaving, let failure):
      if let module = current.building.removeValue(forKey: call).flatMap({ modules[$0] }) {
        module.roles = roles
        module.receives = receives
        module.guardsLeaving = guardsLeaving
      }
      answered(call, .built(restoreFailure: failure), arrival: arrival)
    case .buildFailed(let call, let text):
      buildEndedLate(call, text)
      answered(call, .buildFailed(text), arrival: arrival)
    case .openRefused(let call, let decision):
      buildEndedLate(call, decision.reason)
      answered(call, .openRefused(decision), arrival: arrival)
    case .leaveDecision(let call, let decision): answered(call, .leaveDecision(decision), arrival: arrival)
    case .draw(let module, let tree): modules[module]?.draw(tree)
    case .drawChanges(let module, let changes): modules[module]?.draw(changes)
    case .restorationState(let module, let state, let failure):
      modules[module]?.keep(state: state, failure: failure)
    case .request(let module, let request): modules[module]?.perform(request)
    case .callHostService(let call, let module, let service):
      noteLateness(arrival)
      serviceDesk.serveHostService(call, module, service)
    case .workStarted(let module, let id, let name):
      guard let module = modules[module] else { return }
      let work = RemoteWork(id: id, process: self)
      works[id] = work
      module.start(work, named: name)
    case .workEnded(let id, let outcome): works.removeValue(forKey: id)?.end(outcome)
    case .sleep(let id, let sleep, var seconds, let waiting):
      // Any number may come: up to about 31 years, as the host's clock can wait.
      seconds = seconds.isNaN ? 0 : min(max(seconds, 0), 1e9)
      if let work = works[id] {
        work.sleep(sleep, for: seconds, waiting: waiting)
      } else {
        RemoteWork.sleepOutsideWork(sleep, for: seconds, waiting: waiting, process: self)
      }
    case .cancelSleep(let sleep):
      for work in works.values { work.cancelSleep(sleep) }
    case .leaked(let module, let roles):
      if let module = released.removeValue(forKey: module), !roles.isEmpty { module.reportLeak(roles) }
    case .callBusinessService(let call, let module, let request): serviceDesk.serveBusiness(call, module, request)
    case .sendHTTP(let call, let module, let request): serviceDesk.serveHTTP(call, module, request)
    case .cancelServiceCall(let call): serviceDesk.cancel(call)
    case .providerAnswered(let call, let outcome): serviceDesk.providerAnswered(call, outcome)
    case .publish(let module, let topic, let payload): serviceDesk.publish(module, topic, payload)
    case .eventProblem(let module, let topic, let problem): serviceDesk.eventProblem(module, topic, problem)
    case .mapped, .ready, .refused:
      stop(because: "it sent '\(message.name)' again, after its start")
    }
  }

  private func answered(_ call: UInt32, _ outcome: CallOutcome, arrival: ContinuousClock.Instant) {
    noteLateness(arrival)
    guard calls.answered(call, outcome, at: arrival) else { return }
    state = .running
    for module in modules.values { module.showState() }
  }

  /// Marks the process not responding if what arrived at `arrival` came
  /// after the oldest call's time was up, though the host had not got to
  /// saying so: a busy host does not hide a late plugin either.
  private func noteLateness(_ arrival: ContinuousClock.Instant) {
    guard state == .running, let late = calls.late(at: arrival) else { return }
    becomeUnresponsive(late.what, call: late.id)
  }

  /// Modules detached, until the process says whether their roles outlived them.
  private var released: [UInt32: RemoteModule] = [:]

  /// Whether detached modules wait for the process to say if they leaked.
  package var isReleasing: Bool { !released.isEmpty }

  /// `module` is being detached: it is kept until its leak report comes.
  func releasing(_ module: RemoteModule) {
    if case .running = state { released[module.id] = module }
  }

  /// `module` was detached: what the process sends for it is dropped.
  func released(_ module: RemoteModule) {
    modules[module.id] = nil
  }

  private func endWorks() {
    let ended = works.values
    works.removeAll()
    for work in ended { work.end(.cancelled) }
  }
}

extension PluginSupervisor: OutstandingCallsOwner {
  func takeWhatArrived() { pump() }

  var isAnswering: Bool { state == .running }

  func overdue(_ call: OutstandingCalls.Call) { becomeUnresponsive(call.what, call: call.id) }
}

extension PluginSupervisor {
  /// What belongs to one start of the plugin's process, replaced whole at
  /// each start: nothing of an earlier process's survives into the next.
  struct Generation {
    /// Counts starts: modules of an earlier process are failed for good.
    let number: Int
    /// The process's socket, inbox and id; nil before the first start.
    let connection: PluginConnection?
    /// From the spawn until the start is decided: what arrives is the
    /// start's to take (``takeStartup(from:)``), never the pump's, even when
    /// a pump runs between the starter being woken and its taking it.
    var isStarting = true
    /// Whether the dynamic loader was done with the file.
    var mapped = false
    /// Why the host stopped the process, when it did.
    var stopReason: String?
    /// The module each build call builds, to take its answer also when it
    /// comes after the response limit.
    var building: [UInt32: UInt32] = [:]
    /// The stores the process holds copies of.
    var copiedStores: Set<WireStore> = []
    /// Whether the process holds a copy of the host's clock.
    var clockCopied = false
  }
}
