import CVivariumSystem
import Foundation
import Glibc
import ViperKit
import ViperKitHosting
import VivariumSupport
import VivariumWire

/// One plugin file hosted in a process of its own (docs/what-runs-where.md,
/// "Processes"): the supervisor in the host. It starts the process, hands it the
/// calls of the host's modules and waits for their answers up to
/// ``PluginProcessOptions/responseLimit``, carries out what the process's
/// modules ask, and notices when the process ends. A plugin that crashes,
/// hangs or misbehaves on the channel ends only this process: its modules
/// show what happened in their place (``PluginFailure``), and ``restart()``
/// starts a new process for the same file.
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

  /// How the current process is doing.
  package private(set) var state: State = .running
  /// What belongs to the current process alone: replaced whole at each start.
  private var current = Generation(number: 0, channel: nil, inbox: nil, pid: 0, isStarting: false)
  /// Counts starts: modules of an earlier process are failed for good.
  var generation: Int { current.number }
  /// The current process's id (0 before the first start), to watch it from outside.
  package var pid: pid_t { current.pid }

  private(set) var modules: [UInt32: RemoteModule] = [:]
  private var works: [UInt32: RemoteWork] = [:]
  private var nextModule: UInt32 = 1
  var nextCall: UInt32 = 1
  /// How many times the process became not responding: one that answers
  /// late shows it, however busy the host was when the answer came.
  private(set) var timesNotResponding = 0
  /// How many of the process's service calls that wait for an answer the
  /// host has answered: reads served from the process's copies are not.
  private(set) var callsAnswered = 0

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
    var failure: Int32 = 0
    guard let started = await spawn(failure: &failure) else {
      return Rejection(
        path, .crashed, "the host could not start a process for it: \(String(cString: strerror(failure)))")
    }
    let rejection = await ready(started)
    if rejection == nil, let reason = stopWhenStarted {
      stop(because: reason)
      return Rejection(path, .crashed, "its process was stopped as it started: \(reason)")
    }
    return rejection
  }

  /// Starts a process; nil if it could not be started. Call ``ready(_:)`` next.
  /// `failure`: the errno of a start that failed, read before anything else runs.
  private func spawn(failure: inout Int32) async -> pid_t? {
    var pair: [Int32] = [0, 0]
    guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pair) == 0 else {
      failure = errno
      return nil
    }
    var errors: [Int32] = [0, 0]
    guard vivarium_pipe_cloexec(&errors) == 0 else {
      failure = errno
      pair.forEach { close($0) }
      return nil
    }
    var environment = ["SWIFT_BACKTRACE": "enable=no"]
    environment[PluginProcessLaunch.memoryVariable] = String(options.memoryLimit)
    if !options.confined { environment[PluginProcessLaunch.unconfinedVariable] = "1" }
    if !options.ownNetwork { environment[ProcessConfinement.sharedNetworkVariable] = "1" }
    // Numbered 10 and up, so that putting them at 1 to 4 in the child
    // cannot overwrite one another.
    let (errorsHigh, socketHigh, fileHigh) = (
      fcntl(errors[1], F_DUPFD_CLOEXEC, 10), fcntl(pair[1], F_DUPFD_CLOEXEC, 10),
      fcntl(file.descriptor, F_DUPFD_CLOEXEC, 10)
    )
    close(pair[1])
    close(errors[1])
    defer { [errorsHigh, socketHigh, fileHigh].filter { $0 >= 0 }.forEach { close($0) } }
    let mapping: [(Int32, Int32)] = [
      (errorsHigh, 1), (errorsHigh, 2), (socketHigh, PluginProcessLaunch.socketDescriptor),
      (fileHigh, ChildChannel.fileDescriptor),
    ]
    let zygote = options.forks ? PluginZygote.shared(options.executable, ownNetwork: options.ownsNetwork) : nil
    let forked = await zygote?.fork(
      path: path, memoryLimit: options.memoryLimit, confined: options.confined,
      descriptors: [fileHigh, socketHigh, errorsHigh])
    _ = fcntl(pair[0], F_SETFL, fcntl(pair[0], F_GETFL) | O_NONBLOCK)
    let channel = WireChannel<HostMessage>(descriptor: pair[0], sending: .buffers)
    let inbox = PluginInbox { [weak self] in Self.pumpSoon(self) }
    let stderr = errors[0]
    let reaper = forked == nil ? nil : zygote
    let arguments = [PluginProcessLaunch.pluginCommand, path]
    let (executable, variables) = (options.executable, environment)
    // Started (unless forked by the zygote) and read by one thread, which
    // lives as long as the process. The socket is closed with the channel,
    // when nothing can send on it.
    let spawned = ChildProcess.startWatched {
      if let forked { return .success(forked) }
      guard mapping.allSatisfy({ $0.0 >= 0 }) else {
        return .failure(ChildProcess.SpawnError("cannot duplicate its descriptors"))
      }
      return ChildProcess.spawn(executable, arguments, mapping, environment: variables)
    } watch: { pid in
      PluginReader.run(channel: channel, stderr: stderr, pid: pid, inbox: inbox, zygote: reaper)
    }
    guard case .success(let pid) = spawned else {
      failure = errno
      close(errors[0])
      return nil
    }
    current.outstanding.removeAll()
    current.cancelTimers()
    current = Generation(number: current.number + 1, channel: channel, inbox: inbox, pid: pid)
    state = .running
    return pid
  }

  /// Waits for the process `pid` to say ready while the host goes on: what
  /// arrives wakes this caller instead of being carried out. Nil when it did.
  func ready(_ pid: pid_t) async -> Rejection? {
    guard let inbox = current.inbox else { return Rejection(path, .crashed, "its process did not start") }
    let deadline = ContinuousClock.now + options.loadLimit
    let timer = Task { @MainActor [weak self] in
      try? await Task.sleep(until: deadline, clock: .continuous)
      guard !Task.isCancelled else { return }
      self?.starter?.resume()
      self?.starter = nil
    }
    defer { timer.cancel() }
    while true {
      if let outcome = takeStartup(from: inbox) { return started(outcome) }
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
  private func takeStartup(from inbox: PluginInbox) -> StartOutcome? {
    while let (item, _) = inbox.take() {
      switch item {
      case .message(.mapped):
        current.mapped = true
      case .message(.ready(let version, let name, let sdk, let contracts, let pluginVersion, let provides, let hosts)):
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
          plugin: fileName, status: status, stderr: stderr, stopReason: current.stopReason,
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
    guard case .ended = state else { return nil }
    return await start()
  }

  /// Ends the process for good when the host lets the plugin go.
  package func terminate() { stop(because: "the host let it go") }

  /// Kills the process; its modules show `reason` once it has ended.
  func stop(because reason: String) {
    if starting != nil { stopWhenStarted = reason }
    if case .ended = state { return }
    guard pid > 0 else { return }
    current.stopReason = reason
    kill(pid, SIGKILL)
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
  /// restoration state. The host's main actor is free while the process
  /// builds it: the build is a call like any other, and only the caller
  /// waits for its answer. A module whose process crashes or does not
  /// answer while building is returned all the same: it shows what
  /// happened in its place.
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

  /// Business service and http calls the process's modules and providers
  /// made, under way in the host (``serveBusiness(_:_:_:)``).
  let businessCalls = CallTasks()
  /// Calls the host made to the process's providers, awaiting their answers (``callProvider(_:)``).
  var provisions: [UInt32: PendingServiceCall] = [:]
  /// The services of the process's providers, once the host made them
  /// (``prepareProviders(_:)``): calls of theirs come as module 0.
  var providerServices: Services?
  /// Replaced by a new build: let go once the calls its providers are
  /// running have ended (``retire()``).
  var retiring = false

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
    return await withCheckedContinuation { awaiting[id] = $0 }
  }

  /// The callers suspended in ``call(_:in:_:)``, by call.
  private var awaiting: [UInt32: CheckedContinuation<CallOutcome, Never>] = [:]

  /// The build `call` failed or was refused: when it comes after the host
  /// stopped waiting for it, the module it already placed says so.
  private func buildEndedLate(_ call: UInt32, _ why: String) {
    guard let module = current.building.removeValue(forKey: call).flatMap({ modules[$0] }), awaiting[call] == nil else {
      return
    }
    module.couldNotBeBuilt(why)
  }

  /// Resumes the caller waiting for `call`, if one is.
  private func resume(_ call: UInt32, with outcome: CallOutcome) {
    awaiting.removeValue(forKey: call)?.resume(returning: outcome)
  }

  /// Resumes every caller waiting for an answer with `outcome`; the
  /// process, unless it ended, is told each call is no longer waited for.
  private func resumeAll(with outcome: CallOutcome) {
    let waiting = awaiting
    awaiting.removeAll()
    for call in waiting.keys.sorted() {
      if case .notResponding = outcome { send(.cancel(call: call)) }
      waiting[call]?.resume(returning: outcome)
    }
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
    guard let channel = current.channel else { return nil }
    let id = nextCall
    nextCall &+= 1
    guard channel.send(make(id)) else {
      stop(because: "it stopped reading its channel")
      return nil
    }
    watchOutgoing()
    // While it is not responding, nothing waits for the call: it is
    // answered in its turn.
    let release = state == .running ? work.beginCall(what) : {}
    if current.outstanding.append(.init(id: id, what: what, release: release, sent: .now)) { startDeadline() }
    return id
  }

  /// Makes sure the oldest outstanding call is marked overdue once the
  /// response limit passes without its answer. A call's time only ever
  /// starts later than the one before it, so a timer already set is due no
  /// later than this one: it is left as it is, and on waking sets itself
  /// again for what is outstanding then. A round trip sets no timer and
  /// cancels none.
  private func startDeadline() {
    guard current.deadline == nil, !current.outstanding.isEmpty else { return }
    let due = current.outstanding.oldestSince + options.responseLimit
    current.deadline = Task { @MainActor [weak self] in
      try? await Task.sleep(until: due, clock: .continuous)
      guard !Task.isCancelled, let self else { return }
      self.current.deadline = nil
      // An answer that arrived in time but waits for the host to get to it
      // is taken first: a busy host does not make a plugin late.
      self.pump()
      guard let oldest = self.current.outstanding.oldest, self.state == .running else { return }
      guard ContinuousClock.now >= self.current.outstanding.oldestSince + self.options.responseLimit else {
        return self.startDeadline()
      }
      self.becomeUnresponsive(oldest.what, call: oldest.id)
    }
  }

  /// Sends a message that wants no answer (an answer to the process's own
  /// call, a wake-up): also while it is not responding, so that it can.
  func send(_ message: HostMessage) {
    if case .ended = state { return }
    guard let channel = current.channel, channel.send(message) else {
      return stop(because: "it stopped reading its channel")
    }
    watchOutgoing()
  }

  /// When the channel holds bytes the process has not made room for, makes
  /// sure it is stopped if it has not within the response limit: the host
  /// never waits for it to read, and does not keep writing for it forever.
  private func watchOutgoing() {
    guard current.outgoingWatch == nil, let channel = current.channel, let since = channel.pendingSince else { return }
    current.outgoingWatch = Task { @MainActor [weak self] in
      try? await Task.sleep(until: since + (self?.options.responseLimit ?? .zero), clock: .continuous)
      guard let self, !Task.isCancelled else { return }
      self.current.outgoingWatch = nil
      guard self.current.channel === channel, let still = channel.pendingSince else { return }
      guard still == since else { return self.watchOutgoing() }
      self.stop(because: "it stopped reading its channel")
    }
  }

  private func becomeUnresponsive(_ what: String, call: UInt32) {
    current.overdue = call
    timesNotResponding += 1
    // Nothing waits for it any more: a session goes on, showing the choice.
    current.outstanding.releaseAll()
    resumeAll(with: .notResponding)
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
    guard let inbox = current.inbox else { return }
    for _ in 0..<Self.batch {
      guard let (item, arrival) = inbox.take() else { return }
      handle(item, arrival: arrival)
    }
    Self.pumpSoon(self)
  }

  /// Has `process` carry out what arrived on its next turn: straight onto
  /// the main queue, the main actor's, with no task to make per wake-up.
  private nonisolated static func pumpSoon(_ process: PluginSupervisor?) {
    DispatchQueue.main.async { [weak process] in MainActor.assumeIsolated { process?.pump() } }
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
        plugin: fileName, status: status, stderr: stderr, stopReason: current.stopReason,
        memoryLimit: options.memoryLimit)
      state = .ended(failure)
      current.channel = nil
      current.outstanding.removeAll()
      current.building.removeAll()
      current.cancelTimers()
      let failed = modules.values.sorted { $0.id < $1.id }
      modules.removeAll()
      for module in failed { module.processEnded(failure) }
      endWorks()
      resumeAll(with: .ended(failure))
      servicesEnded(failure)
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
      if call != 0, heldServiceCalls != nil {
        heldServiceCalls?.append((call, module, service))
      } else {
        serveHostService(call, module, service)
      }
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
    case .callBusinessService(let call, let module, let request): serveBusiness(call, module, request)
    case .sendHTTP(let call, let module, let request): serveHTTP(call, module, request)
    case .cancelServiceCall(let call): cancelBusinessCall(call)
    case .providerAnswered(let call, let outcome): providerAnswered(call, outcome)
    case .mapped, .ready, .refused:
      stop(because: "it sent '\(message.name)' again, after its start")
    }
  }

  /// Carries out the process's call `call` (0: it wants no answer) of
  /// `module` to a host service, and answers it.
  private func serveHostService(_ call: UInt32, _ module: UInt32, _ service: HostServiceCall) {
    let answer =
      module == 0
      ? providerServices.map { RemoteModule.serve(service, with: $0, for: "the providers of \(name)") }
        ?? .failed("the plugin's providers have no services yet")
      : modules[module]?.serve(service) ?? .failed("the module was detached")
    guard call != 0 else { return }
    callsAnswered += 1
    send(.answer(call: call, answer))
    // The process waited for the host: its time starts again.
    if current.outstanding.restart(at: .now) { startDeadline() }
  }

  /// For tests: while not nil, the process's service calls that want an
  /// answer are kept here unanswered, in order, as a host slow to answer
  /// them would; ``answerHeldServiceCalls()`` answers them.
  var heldServiceCalls: [(call: UInt32, module: UInt32, service: HostServiceCall)]?

  /// Answers the calls ``heldServiceCalls`` kept, in order, and holds no more.
  func answerHeldServiceCalls() {
    let held = heldServiceCalls ?? []
    heldServiceCalls = nil
    for (call, module, service) in held { serveHostService(call, module, service) }
  }

  private func answered(_ call: UInt32, _ outcome: CallOutcome, arrival: ContinuousClock.Instant) {
    noteLateness(arrival)
    let wasOldest = current.outstanding.answered(call, at: arrival)
    if call == current.overdue {
      current.overdue = nil
      state = .running
      for module in modules.values { module.showState() }
    }
    if wasOldest { startDeadline() }
    resume(call, with: outcome)
  }

  /// Marks the process not responding if what arrived at `arrival` came
  /// after the oldest call's time was up, though the host had not got to
  /// saying so: a busy host does not hide a late plugin either.
  private func noteLateness(_ arrival: ContinuousClock.Instant) {
    guard state == .running, let oldest = current.outstanding.oldest,
      arrival > current.outstanding.oldestSince + options.responseLimit
    else { return }
    becomeUnresponsive(oldest.what, call: oldest.id)
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

/// How plugin processes run: set by `vivarium run` and `render`.
package struct PluginProcessOptions: Sendable {
  /// The host executable, re-run as `EXECUTABLE __plugin FILE`.
  package var executable: String
  /// How long a module may take to answer before it is shown as not responding.
  package var responseLimit: Duration
  /// How long a plugin may take to load in its process.
  package var loadLimit: Duration
  /// The most memory (bytes of data) a plugin process may allocate.
  package var memoryLimit: Int
  /// Whether plugin processes are forked from a zygote (``PluginZygote``)
  /// rather than each started from the executable.
  package var forks = true
  /// Whether each plugin process confines itself before it loads its
  /// plugin (docs/what-a-plugin-can-do.md); false only with `--no-sandbox`.
  package var confined = true
  /// Whether a confined plugin process gets an empty network namespace of
  /// its own, where the kernel offers user namespaces; false only in the
  /// benchmark, which times the namespace on its own.
  package var ownNetwork = true

  /// Whether plugin processes get an empty network namespace: confined ones do.
  var ownsNetwork: Bool { confined && ownNetwork }

  /// Starts the zygote plugin processes are forked from now, so that its
  /// own start overlaps the host's instead of delaying the first plugin.
  package func prepare() {
    if forks { _ = PluginZygote.shared(executable, ownNetwork: ownsNetwork) }
  }

  /// The defaults: 3 s to answer, 10 s to load, 1 GiB of memory.
  package init(
    executable: String, responseLimit: Duration = .seconds(3), loadLimit: Duration = .seconds(10),
    memoryLimit: Int = 1 << 30
  ) {
    self.executable = executable
    self.responseLimit = responseLimit
    self.loadLimit = loadLimit
    self.memoryLimit = memoryLimit
  }
}

extension PluginSupervisor {
  /// What belongs to one start of the plugin's process, replaced whole at
  /// each start: nothing of an earlier process's survives into the next.
  struct Generation {
    /// Counts starts: modules of an earlier process are failed for good.
    let number: Int
    /// The socket to the process; nil once it ended.
    var channel: WireChannel<HostMessage>?
    /// What the process sent, as the thread reading it put it there.
    let inbox: PluginInbox?
    /// The process's id.
    let pid: pid_t
    /// From the spawn until the start is decided: what arrives is the
    /// start's to take (``takeStartup(from:)``), never the pump's, even when
    /// a pump runs between the starter being woken and its taking it.
    var isStarting = true
    /// Whether the dynamic loader was done with the file.
    var mapped = false
    /// Why the host stopped the process, when it did.
    var stopReason: String?
    /// Calls sent and not answered yet (``post(_:in:_:)``).
    var outstanding = OutstandingCalls()
    /// The call that went unanswered, while not responding.
    var overdue: UInt32?
    /// The module each build call builds, to take its answer also when it
    /// comes after the response limit.
    var building: [UInt32: UInt32] = [:]
    /// The stores the process holds copies of.
    var copiedStores: Set<WireStore> = []
    /// Whether the process holds a copy of the host's clock.
    var clockCopied = false
    /// Marks the oldest outstanding call overdue once the response limit
    /// passes: one timer at a time, waking when the oldest call sent while
    /// it was set is due, never set again or cancelled per call.
    var deadline: Task<Void, Never>?
    /// Stops the process if bytes the channel holds for it stay unread
    /// past the response limit (``watchOutgoing()``).
    var outgoingWatch: Task<Void, Never>?

    /// Stops its timers: the process ended, or another started.
    func cancelTimers() {
      deadline?.cancel()
      outgoingWatch?.cancel()
    }
  }
}
