import Foundation
import ViperKit
import ViperKitHosting
import VivariumLoading
import VivariumSupport

/// Something a module asked for that could not be done, for the person.
package struct HostProblem: Sendable, Equatable, CustomStringConvertible {
  /// The URN of the module that asked.
  package let module: String
  /// What went wrong and what to do.
  package let message: String
  /// When a URN the module asked for could not be built or embedded: why
  /// (a stable name, for tests and scripts); nil for other problems.
  package var cause: ResolveError.Kind?

  /// `module: message`.
  package var description: String { "\(module): \(message)" }
}

/// One person's session on a ``SharedHost``: navigation layers of live
/// modules, each module a tree of embedded children, the queue of requests
/// modules make, the problems and notices for the person, and the work its
/// modules started. Any number live in one host; `vivarium run` has one.
///
/// Lifecycle order (docs/writing-a-plugin.md, "Navigation and composition"): a new module is attached, then the
/// one it covers disappears, then it appears. Appear goes parent first, then
/// visible children; disappear and detach go children first, then parent.
@MainActor
package final class HostRuntime {
  /// The host this session is open on.
  package let host: SharedHost
  /// Where modules come from: the host's.
  package var catalog: PluginCatalog { host.catalog }
  /// The services handed to modules: the host's.
  package var services: HostServices { host.services }
  /// Notices and alerts raised for the person of this session: by its
  /// modules, and by the host (``HostServices/announcements``).
  package let notifications = HostNotifications()
  /// How the person of this session is asked about a permission one of its
  /// modules uses that was never decided; nobody is asked until it is set.
  package let permissionAsker = PermissionAsker()
  /// Navigation layers: the main stack first, then one per modal presentation.
  package var layers: [[ModuleNode]] { navigation.layers }
  /// The layers, changed as navigation changes them.
  let navigation = NavigationLayers()
  /// Requests that failed since the last ``takeProblems()``, oldest first.
  package private(set) var problems: [HostProblem] = []

  /// Runs the work modules start; the session waits on it.
  package let work: WorkScheduler
  /// Called after every change the host carried out (and more often):
  /// where `vivarium run` saves what changed (``NavigationChangeTracker``).
  package var onNavigationChanged: (() -> Void)?
  /// Called when something changed on screen outside a call the host made
  /// (a module that drew from its work, work that ended, a change that
  /// waited for a plugin process): where a live session redraws.
  package var onScreenChanged: () -> Void = {}
  /// The command conflicts already said in a notice (``screenCommands()``),
  /// each said once a session.
  var saidCommandConflicts: Set<String> = []

  /// The requests modules made, carried out in turns (``drain()``).
  private let requests = RequestQueue()
  /// Whose turn it is to change the layers: one at a time, in order.
  let turn = NavigationTurn()
  /// Set by ``shutdown()``: no turn carries out requests any more.
  private(set) var isShutDown = false
  /// Calls into modules under way: what a module asks or draws during one
  /// is carried out, and drawn, by the caller; outside any (from its work)
  /// the session sees to it (``requestQueued()``, ``moduleDrew(_:)``).
  private var hostCalls = 0
  /// Whether a drain of what a module asked from its work is scheduled.
  private var drainScheduled = false
  /// Says the screen changed once for a burst of draws from modules' work.
  private let screenSignal = ScreenChangeSignal()
  private var nextID = 1
  /// The modules whose leaving the person confirmed (``mayLeave(_:again:)``).
  let leaving = LeaveConfirmations()
  /// The link a route guard refused, waiting for its setting.
  let guardedLink = GuardedLinkWait()
  /// The saved screens of the modules being attached, for their children.
  let restoring = RestorationInProgress()
  /// The screens marked changed for the ``NavigationChangeTracker``.
  let touchedScreens = TouchedScreens()
  /// The modules attached before they drew.
  let undrawn = UndrawnModules()
  /// The modules detached in this process, watched for leaks.
  let leakWatch = LeakWatch()
  /// Every leak found: the module and its roles still alive.
  package var leaks: [(module: String, roles: [String])] { leakWatch.leaks }
  /// How many live modules have each URN.
  let liveURNs = LiveURNs()
  /// Stops a module that keeps asking for more in response to its own requests.
  static let requestLimit = 10_000

  /// A new session on `host` (``SharedHost/openSession()``).
  init(host: SharedHost) {
    self.host = host
    work = WorkScheduler(clock: host.services.clock)
    work.onReport = { [weak self] report in self?.workEnded(report) }
    work.onWorkEnded = { [weak self] in self?.pieceOfWorkEnded() }
    host.register(self)
  }

  /// The one session of a new host over `catalog` with `services`.
  package convenience init(catalog: PluginCatalog, services: HostServices) {
    self.init(host: SharedHost(catalog: catalog, services: services))
  }

  /// A module's work failed (a problem for the person) or was cancelled
  /// (logged).
  private func workEnded(_ report: WorkScheduler.Report) {
    switch report.outcome {
    case .failed:
      problems.append(HostProblem(module: report.module, message: report.description))
      services.logLine(.error, module: report.module, report.description, by: report.owner)
    case .cancelled:
      services.logLine(.info, module: report.module, report.description, by: report.owner)
    }
  }

  /// A piece of a module's work ended: the modules whose work is over are
  /// checked for leaks and for drawing nothing, and the screen may have
  /// changed (the spinner stops). What the work asked was queued and is
  /// carried out on its own (``requestQueued()``).
  private func pieceOfWorkEnded() {
    checkLeaks()
    for node in undrawn.blank() {
      record(
        HostProblem(
          module: node.urn,
          message:
            "its work ended and it has drawn nothing; its view must call context.canvas.draw(_:), a loading state first"
        ))
    }
    onNavigationChanged?()
    onScreenChanged()
  }

  /// A module queued a request (or the guard of a link waiting may now let
  /// it open): outside a host call (from its work), it is carried out once
  /// the code running reaches its next `await`, counted as work in flight
  /// meanwhile, and the screen is drawn again; during a call, the caller
  /// drains.
  func requestQueued() {
    guard hostCalls == 0, !drainScheduled else { return }
    drainScheduled = true
    work.perform { [weak self] in
      guard let self else { return }
      drainScheduled = false
      drain()
      onScreenChanged()
    }
  }

  /// `node`'s module drew: what changed is marked for saving and, outside a
  /// host call (from its work, a timer), the screen changed, said once for
  /// a burst of draws; during a call, the caller draws. `node` is nil for
  /// a module that draws before it has its node, while it is built.
  func moduleDrew(_ node: ModuleNode?) {
    if let node { touch(node) }
    guard hostCalls == 0 else { return }
    screenSignal.soon { [weak self] in
      self?.onNavigationChanged?()
      self?.onScreenChanged()
    }
  }

  /// Adds `problem` to ``problems``.
  func record(_ problem: HostProblem) {
    problems.append(problem)
  }

  /// Lets `seconds` pass: a virtual clock moves, and the work each step
  /// wakes settles (within `settleLimit` real seconds) before time moves on;
  /// on a real clock, this really waits.
  package func letTimePass(_ seconds: Double, settleLimit: Double) async {
    let clock = services.clock
    if case .real = clock.mode {
      try? await Task.sleep(nanoseconds: UInt64(seconds * 1e9))
    } else {
      await clock.advance(by: seconds) { _ = await work.settle(limit: settleLimit) }
    }
  }

  /// Waits until what the host asked of modules in plugin processes has
  /// been answered and carried out, or they stopped answering, within
  /// `limit` real seconds; their work may still run.
  package func settleCalls(limit: Double) async { _ = await work.settle(limit: limit, work: false) }

  /// Waits until the modules' work has ended or sleeps on the clock, and
  /// what the host asked of plugin processes has been carried out, within
  /// `limit` real seconds. Returns the work still in flight then
  /// (`URN: 'work'`), empty when all of it settled.
  package func settleWork(limit: Double) async -> [String] {
    await work.settle(limit: limit) ? [] : work.inFlight
  }

  /// The module on top: what the person sees and acts on.
  package var top: ModuleNode? { layers.last?.last }

  /// Every live module, screens in layer order, each followed by its children.
  package var nodes: [ModuleNode] {
    func walk(_ node: ModuleNode) -> [ModuleNode] { [node] + node.allChildren.flatMap(walk) }
    return layers.flatMap { $0.flatMap(walk) }
  }

  /// Returns and forgets the problems recorded so far.
  package func takeProblems() -> [HostProblem] {
    defer { problems.removeAll() }
    return problems
  }

  // MARK: Building

  /// The services of the module `urn` with `contract`, of `plugin`: the
  /// host services it lists, and calls to the business services it requires.
  private func moduleServices(contract: Contract, plugin: PluginIdentity, urn: String) -> Services {
    let listed = services.services(
      for: contract, plugin: plugin, urn: urn, telling: notifications, asking: permissionAsker)
    guard
      let calls = host.serviceRouter.calls(
        of: .module(contract.urn), named: urn, in: plugin.name, requiring: contract.requires)
    else { return listed }
    return listed.adding(calls)
  }

  /// Resolves and builds a module; it is not attached yet. With `state`
  /// (``restorationState(of:)`` of an earlier build), the module takes it
  /// back before it is attached; if it cannot, the module stays as built
  /// and ``ModuleNode/restoreFailure`` says why.
  func build(_ urn: String, arguments: [(name: String, value: String)] = [], restoring state: String? = nil)
    async throws(ResolveError) -> ModuleNode
  {
    let catalogVersion = host.catalogVersion
    let resolved = try host.resolve(urn, arguments: arguments, invocation: services.invocation)
    if let refusing = resolved.route.contract.guards.first(where: { !RouteGuard.holds(services.setting($0.setting)) }) {
      throw ResolveError(
        .guarded, "\(resolved.urn) is guarded: \(refusing.reason) (it needs the setting '\(refusing.setting)')",
        refusedBy: refusing)
    }
    let contract = resolved.route.contract
    if !contract.requires.isEmpty,
      let refusal = host.serviceGraph.refusal(
        ofModule: contract.urn, in: resolved.route.identity.name, requiring: contract.requires)
    {
      throw ResolveError(.serviceUnavailable, "\(resolved.urn) cannot be built: \(refusal)")
    }
    let link = NodeLink(runtime: self)
    let canvas = NodeCanvas(runtime: self)
    let scope = work.scope(for: resolved.urn, owner: resolved.route.identity.name)
    let context = ModuleContext(
      urn: resolved.urn, arguments: resolved.arguments, router: link, canvas: canvas, messages: link, work: scope,
      services: moduleServices(
        contract: resolved.route.contract, plugin: resolved.route.identity, urn: resolved.urn)
    )
    let module: Module
    var restoreFailure: String?
    let plugin = PathName.lastComponent(resolved.route.pluginPath)
    var source = resolved.route.source
    do throws(Rejection) {
      // A plugin known from a scan is loaded now, for its first module.
      if case .activation(let activation, let index, _) = source {
        suspendTurn()
        source = try await activation.source(at: index)
      }
    } catch {
      throw ResolveError(
        .buildFailed, "\(resolved.urn) (\(plugin)) could not be built: \(error.reasons.joined(separator: "; "))")
    }
    if case .factory(let guarding as any OpenGuard) = source {
      let request = OpenRequest(urn: resolved.urn, arguments: resolved.arguments.values)
      if let refusal = ResolveError.refusal(of: resolved.urn, await guarding.shouldOpen(request)) { throw refusal }
    }
    do {
      switch source {
      case .factory(let factory):
        module = try hostCall { try factory.build(context) }
        if let state {
          do throws(Restoration.Failure) {
            try Restoration.restore(state, to: module)
          } catch {
            restoreFailure = error.message
          }
        }
      case .process(let process, let index, _):
        // The process builds it while the host goes on; this turn waits.
        suspendTurn()
        let built = try await process.build(index, context, link: link, work: scope, restoring: state)
        (module, restoreFailure) = (built.module, built.restoreFailure)
      case .activation:
        // A loaded plugin's modules are in this process or in its own.
        throw ModuleBuildError(
          "its plugin did not load; run \(services.invocation.with(.commandLine).command("plugins", "--rescan")) and try again"
        )
      }
    } catch let refused as OpenRefusal {
      throw ResolveError.refusal(of: resolved.urn, refused.decision)
        ?? ResolveError(.refused, "\(resolved.urn) did not open, though its plugin said it may")
    } catch {
      throw ResolveError(.buildFailed, "\(resolved.urn) (\(plugin)) could not be built: \(error)")
    }
    let node = ModuleNode(id: nextID, resolved: resolved, module: module, canvas: canvas)
    nextID += 1
    canvas.bind(node)
    node.openedWith = (urn, arguments)
    node.catalogVersion = catalogVersion
    node.adapters = [link]
    node.work = scope
    node.restoreFailure = restoreFailure
    liveURNs.built(node.urn)
    link.bind(node)
    return node
  }

  /// Builds and attaches a module, or throws without changing anything.
  /// With `saved`, the module and the children it embeds while attaching
  /// take back their restoration states.
  func buildAttached(
    _ urn: String, arguments: [(name: String, value: String)] = [], restoring saved: NavigationState.Screen? = nil
  ) async throws(ResolveError) -> ModuleNode {
    let node = try await build(urn, arguments: arguments, restoring: saved?.state)
    if let saved { restoring.restore(node, from: saved) }
    await attach(node)
    // A module whose work is under way may draw when it finishes; until
    // then the screen says it is loading (``pieceOfWorkEnded()`` reports
    // one that never draws).
    guard node.tree != nil || node.work?.isBusy == true else {
      detach(node)
      throw ResolveError(
        .drewNothing,
        "\(node.urn) drew nothing when attached; its view must call context.canvas.draw(_:) once the presenter has a view model"
      )
    }
    return node
  }

  // MARK: Lifecycle

  private func send(_ event: LifecycleEvent, to node: ModuleNode) {
    touch(node)
    node.lifecycle.append(event)
    hostCall { node.module?.lifecycle(event) }
  }

  /// Runs `body`, a call into a module: what the module asks during it is
  /// carried out by the caller's ``drain()``, and what it draws drawn by
  /// the caller.
  func hostCall<T>(_ body: () throws -> T) rethrows -> T {
    hostCalls += 1
    defer { hostCalls -= 1 }
    return try body()
  }

  /// Attaches `node`, and carries out what it asked on attach (children it
  /// embeds) unless a drain under way will: a module in a plugin process is
  /// waited for by this turn, not by the host.
  func attach(_ node: ModuleNode) async {
    if let remote = node.remote {
      touch(node)
      node.lifecycle.append(.attach)
      suspendTurn()
      await remote.attach()
    } else {
      send(.attach, to: node)
    }
    if node.tree == nil { undrawn.watch(node) }
    await carryOutRequests()
  }

  func appear(_ node: ModuleNode) {
    guard !node.isDetached, !node.isAppeared else { return }
    send(.appear, to: node)
    for child in node.visibleChildren { appear(child) }
    drain()
  }

  func disappear(_ node: ModuleNode) {
    guard node.isAppeared else { return }
    for child in node.visibleChildren.reversed() { disappear(child) }
    send(.disappear, to: node)
    drain()
  }

  /// Detaches `node` and its children (children first) and releases them.
  func detach(_ node: ModuleNode) {
    guard !node.isDetached else { return }
    disappear(node)
    for child in node.allChildren.reversed() { detach(child) }
    for index in node.slots.indices { node.slots[index].children.removeAll() }
    send(.detach, to: node)
    node.work?.cancelAll()
    let remote = node.remote != nil
    node.module = nil
    liveURNs.detached(node.urn)
    node.adapters.removeAll()
    // A module in a plugin process is checked there (RemoteModule).
    if !remote { watchForLeaks(node) }
    drain()
  }

  /// Detaches every module, top layer first.
  package func shutdown() {
    isShutDown = true
    // Quitting is no change of where the person is.
    onNavigationChanged = nil
    touchedScreens.stopTracking()
    detachAll()
    services.permissions.flushRefusals()
    host.unregister(self)
  }

  /// Detaches every module, top layer first.
  func detachAll() {
    for layer in layers.reversed() {
      for node in layer.reversed() { detach(node) }
    }
    navigation.close(from: 0)
  }

  // MARK: Requests

  /// What the runtime carries out after the call that asked for it: a
  /// module's request through its router or message port, or the host's
  /// own about a module.
  enum Request {
    /// A module's request.
    case module(ModuleNode, HostRequest)
    /// The module's plugin process ended (``PluginFailure/summary``).
    case failed(ModuleNode, String)
    /// The person asked to restart the module's plugin.
    case restartPlugin(ModuleNode)
    /// The person asked, on a module of it, to turn on the plugin named, turned off.
    case turnOn(ModuleNode, plugin: String)
  }

  /// Queues `request`, made by a module (or by the host about one).
  func enqueue(_ request: Request) {
    requests.append(request)
  }

  /// Runs `step` once the requests under way (those of an attach: children
  /// embedding theirs) have been carried out: at once outside a drain.
  func afterRequests(_ step: @escaping () -> Void) {
    requests.afterRequests(step)
  }

  /// Has the queued requests carried out, the one way they are: in a turn
  /// of their own when none is under way (at once, when no module in a
  /// plugin process has to be built), else by the turn under way, which
  /// carries them out before it ends (``carryOutRequests()``).
  func drain() {
    guard !turn.isHeld, !isShutDown else { return }
    // Nothing to carry out (a draw, most often): what changed is saved.
    guard !requests.isEmpty || guardedLink.isWaiting else {
      restoring.forget()
      onNavigationChanged?()
      return
    }
    Task.immediate { await self.inTurn {} }
  }

  /// Runs `body` in a turn of its own (``NavigationTurn``), waiting for the
  /// turns before it, then carries out the requests it caused. Counted as
  /// in flight meanwhile, so a session waits for it.
  func inTurn<T, Failure: Error>(_ body: () async throws(Failure) -> T) async throws(Failure) -> T {
    let release = work.beginCall(module: "host", "changing the screen")
    var waited = await turn.acquire()
    defer {
      turn.release()
      release()
    }
    let result: Result<T, Failure>
    do throws(Failure) {
      result = .success(try await body())
    } catch {
      result = .failure(error)
    }
    await carryOutRequests()
    waited = waited || turn.takeSuspended()
    // Done after the call that asked for it returned: the screen is drawn again.
    if waited { onScreenChanged() }
    return try result.get()
  }

  /// The turn under way is about to wait for a plugin process: what it
  /// changed so far is saved now, as the screen may be drawn meanwhile.
  func suspendTurn() {
    turn.suspends()
    onNavigationChanged?()
  }

  /// Carries out the queued requests in order, including those they cause,
  /// in the turn under way: at its end, and after an attach (the children
  /// a module embeds while attaching). A request whose module was detached
  /// before it ran (a parent that replaced itself, then asked to embed a
  /// child) is dropped and reported. A drain under way carries out what is
  /// queued meanwhile.
  private func carryOutRequests() async {
    guard !requests.isCarryingOut else { return }
    repeat {
      let carriedOut = await requests.carryOut(limit: HostRuntime.requestLimit) { request in
        guard turn.isHeld else { preconditionFailure("requests are carried out only in a turn") }
        if request.node.isDetached {
          report(request.node, "\(request.summary) was dropped: the module was detached before its request ran")
        } else {
          await perform(request)
        }
      }
      restoring.forget()
      onNavigationChanged?()
      if !carriedOut {
        record(
          HostProblem(
            module: "host",
            message:
              "modules made over \(HostRuntime.requestLimit) requests in a row, each causing the next; the rest were dropped"
          ))
      }
      // A link a guard refused opens once its setting is set (signing in);
      // what its modules ask is carried out in this turn too.
      await resumeGuardedLink()
    } while !requests.isEmpty && !isShutDown
  }

  /// Whether the module's contract declares asking to open `urn` with
  /// `kind`: the contract is what the host enforces, so a request it does
  /// not declare is reported and refused, not carried out. Plugins built
  /// before contracts declared navigation (ViperKit 2.4) are let through.
  private func declares(_ kind: NavigationTarget.Kind, _ urn: String, from node: ModuleNode) -> Bool {
    guard node.resolved.route.declaresNavigation,
      let problem = NavigationCheck.problem(kind, urn, from: node.contract)
    else { return true }
    report(node, problem + "; the host did not carry it out")
    return false
  }

  func report(_ node: ModuleNode, _ message: String, cause: ResolveError.Kind? = nil) {
    record(HostProblem(module: node.urn, message: message, cause: cause))
    services.logLine(.warning, module: node.urn, message, by: node.pluginName)
  }

  private func perform(_ request: Request) async {
    switch request {
    case .module(let node, let request): await perform(request, from: node)
    case .failed(let node, let failure): moduleFailed(node, failure)
    case .restartPlugin(let node): await restartPlugin(of: node)
    case .turnOn(_, let name):
      // Its modules are rebuilt in every session's turn, this one's after this.
      Task.immediate { [host] in host.tell(await host.turnOn(name)) }
    }
  }

  /// Carries out what module `node` asked: each request's one handling.
  func perform(_ request: HostRequest, from node: ModuleNode) async {
    switch request {
    case .push(let urn):
      guard declares(.push, urn, from: node) else { return }
      await push(urn, from: node)
    case .present(let urn):
      guard declares(.present, urn, from: node) else { return }
      await present(urn, from: node)
    case .replace(let urn):
      guard declares(.replace, urn, from: node) else { return }
      await replace(with: urn, from: node)
    case .pop: await pop(from: node)
    case .popToRoot: await popToRoot(from: node)
    case .dismiss: await dismiss(from: node)
    case .embed(let urn, let slot): await embed(urn, in: slot, of: node)
    case .removeChildren(let slot): removeChildren(in: slot, of: node)
    case .showChild(let index, let slot): showChild(at: index, in: slot, of: node)
    case .emit(let message): emit(message, from: node)
    case .send(let message, let slot): send(message, toSlot: slot, of: node)
    @unknown default: report(node, "\(request) is a request this host does not know")
    }
  }
}

extension HostRuntime.Request {
  /// The module that made the request.
  var node: ModuleNode {
    switch self {
    case .module(let node, _), .failed(let node, _), .restartPlugin(let node), .turnOn(let node, _): node
    }
  }

  /// What was asked, for a report: `embed 'x' in slot 'y'`.
  var summary: String {
    switch self {
    case .module(_, let request): request.summary
    case .failed: "report its plugin's failure"
    case .restartPlugin: "restart its plugin"
    case .turnOn(_, let name): "turn \(name) on"
    }
  }
}

extension HostRequest {
  /// What was asked, for a report: `embed 'x' in slot 'y'`.
  var summary: String {
    switch self {
    case .push(let urn): "push '\(urn)'"
    case .present(let urn): "present '\(urn)'"
    case .replace(let urn): "replace with '\(urn)'"
    case .pop: "pop"
    case .popToRoot: "pop to root"
    case .dismiss: "dismiss"
    case .embed(let urn, let slot): "embed '\(urn)' in slot '\(slot)'"
    case .removeChildren(let slot): "empty slot '\(slot)'"
    case .showChild(let index, let slot): "show child \(index) of slot '\(slot)'"
    case .emit(let message): "emit '\(message.name)'"
    case .send(let message, let slot): "send '\(message.name)' to slot '\(slot)'"
    @unknown default: "\(self)"
    }
  }
}
