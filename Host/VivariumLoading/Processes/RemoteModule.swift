import ViperKit
import ViperKitHosting
import VivariumWire

/// The host's side of a module built in a plugin process: it holds the
/// context the host made for the module (canvas, router, message port,
/// services, work), carries out there what the module sends, and forwards
/// the host's calls to the process. In the host, the module is a ``Module``
/// whose view and presenter are this module's stand-ins.
@MainActor
package final class RemoteModule {
  let id: UInt32
  package let process: PluginSupervisor
  let context: ModuleContext
  /// Why its process ended, once it has: the module is dead for good, and
  /// shows it until it is rebuilt.
  package private(set) var failure: PluginFailure?
  /// Its role objects in the plugin process.
  var roles: [WireRole] = []
  /// The last tree the module drew, shown again when it answers again.
  private var lastTree: ViewNode?
  /// The last tree its process sent: what the next ``ViewTreeDiff`` it
  /// sends applies to; nil before its first draw.
  private(set) var drawn: ViewNode?
  /// How many of its draws came as changes (``ViewTreeDiff``).
  private(set) var changesDrawn = 0
  /// Its restoration state as the process last sent it: kept after the
  /// process ends, to rebuild the module with.
  package var restorationState: String?
  /// Why the process could not read its restoration state, last time.
  package var restorationFailure: String?

  /// The host's work for the module, where calls into it count as in flight.
  private let work: WorkScope

  /// The host's side of the module's router and message port.
  private let link: any RemoteModuleLink

  init(id: UInt32, process: PluginSupervisor, context: ModuleContext, link: any RemoteModuleLink, work: WorkScope) {
    self.id = id
    self.process = process
    self.context = context
    self.link = link
    self.work = work
  }

  /// Whether the module takes messages (assumed until its process says).
  var receives = true
  /// Whether its presenter decides if it may be left (``LeaveGuard``).
  package internal(set) var guardsLeaving = false

  /// Asks the module whether it may be left: the caller waits, the host
  /// does not. A module that does not answer in time, or whose process
  /// ended, may be left.
  package func mayLeave() async -> LeaveDecision {
    guard guardsLeaving, failure == nil else { return .leave }
    let outcome = await process.call("whether it may be left", in: work) { .mayLeave(call: $0, module: id) }
    guard case .leaveDecision(let decision) = outcome else { return .leave }
    return decision
  }

  /// The module as the host holds it.
  var module: Module {
    let presenter = receives ? RemoteReceiver(self) : RemotePresenter(self)
    return Module(view: RemoteView(self, presenter: presenter), presenter: presenter)
  }

  var urn: String { context.urn }

  // MARK: From the process

  /// Keeps the restoration state the process sent, and has it saved.
  func keep(state: String?, failure: String?) {
    restorationState = state
    restorationFailure = failure
    link.stateChanged()
  }

  func draw(_ tree: ViewNode) {
    drawn = tree
    lastTree = tree
    if failure == nil, process.state == .running { context.canvas.draw(tree) }
  }

  /// Draws the tree `changes` make of the last one the process sent. Its
  /// process is stopped if there is none, or they do not apply to it: a
  /// process sending them is broken or hostile, and the module shows its
  /// last tree until the process has ended.
  func draw(_ changes: ViewTreeDiff) {
    guard !stoppedForDrawing else { return }
    let why: String
    if let drawn {
      do throws(ViewTreeDiff.Mismatch) {
        let tree = try ViewTreeDiff.apply(changes, to: drawn)
        changesDrawn += 1
        return draw(tree)
      } catch {
        why = "it sent changes to the view of \(urn) that do not apply to the view it drew last: \(error)"
      }
    } else {
      why = "it sent changes to the view of \(urn) before drawing it whole"
    }
    stoppedForDrawing = true
    process.stop(because: why)
  }

  /// Whether its process was stopped for what it drew: a process is stopped once.
  private var stoppedForDrawing = false

  /// Shows what the process's state means for this module: its own tree
  /// while it answers, the not-responding choice while it does not.
  func showState() {
    guard failure == nil else { return }
    switch process.state {
    case .running:
      if let lastTree { context.canvas.draw(lastTree) }
    case .notResponding(let what, let waiting):
      context.canvas.draw(
        PluginFailure.notRespondingTree(
          plugin: process.fileName, what: what, limit: process.options.responseLimit, waiting: waiting))
    case .ended: break
    }
  }

  /// Its build failed, or its factory refused it, after the host placed it
  /// (the build was past the response limit): it says so in its place.
  func couldNotBeBuilt(_ why: String) {
    lastTree = .stack(.vertical, [.heading("\(urn) could not be built"), .notice(.negative, why)])
    showState()
  }

  /// The process ended: the module shows why in its place, and its owner is told.
  func processEnded(_ failure: PluginFailure) {
    guard self.failure == nil else { return }
    self.failure = failure
    context.canvas.draw(failure.tree)
    // Turned off by the person: not a failure to report.
    if failure.turnedOff == nil { link.moduleFailed(failure.summary) }
  }

  /// What the module asked, carried out by the host's link.
  func perform(_ request: HostRequest) { link.request(request) }

  /// The module started `work` in its process: it runs in the host's work
  /// for the module, so it is shown, waited for and cancelled as any work.
  func start(_ work: RemoteWork, named name: String) {
    let clock = context.services.clock ?? process.clock
    context.work.start(name) { try await work.run(clock: clock) }
  }

  /// Role objects of the module outlived it in its process.
  func reportLeak(_ roles: [WireRole]) {
    link.reportLeak(roles.map(\.description))
  }

  // MARK: From the host

  /// Attaches the module: part of building it, so the caller (the
  /// runtime, before it shows the module) waits for the answer, and for
  /// what the module draws and asks on attach; the host does not.
  package func attach() async {
    guard failure == nil else { return }
    _ = await process.call(LifecycleEvent.attach.rawValue, in: work) {
      .lifecycle(call: $0, module: id, .attach)
    }
  }

  fileprivate func lifecycle(_ event: LifecycleEvent) {
    if event == .attach {
      // The runtime attaches a module in a plugin process with attach().
      return assertionFailure("attach a remote module with attach()")
    }
    if event == .detach, failure == nil { process.releasing(self) }
    if failure == nil {
      process.post(event.rawValue, in: work) { .lifecycle(call: $0, module: id, event) }
    }
    if event == .detach { process.released(self) }
  }

  fileprivate func handle(_ event: ViewEvent) {
    if failure != nil {
      if event == .tap(button: PluginFailure.restartButton) { link.restartPlugin() }
      if event == .tap(button: PluginFailure.enableButton), let off = failure?.turnedOff { link.turnOn(off.name) }
      return
    }
    if case .notResponding(let what, _) = process.state {
      switch event {
      case .tap(button: PluginFailure.waitButton): return process.keepWaiting()
      case .tap(button: PluginFailure.stopButton):
        return process.stop(because: "it did not answer \(what) and was stopped from the host")
      default: break  // Sent: the module acts on it in its turn, none is lost.
      }
    }
    process.post(Self.describe(event), in: work) { .event(call: $0, module: id, event) }
  }

  fileprivate func receive(_ message: Message, from origin: MessageOrigin) {
    guard failure == nil else { return }
    process.post("the message '\(message.name)'", in: work) {
      .message(call: $0, module: id, message, origin)
    }
  }

  /// `tap 'save'`, for the not-responding screen.
  private static func describe(_ event: ViewEvent) -> String {
    switch event {
    case .tap(let button): "a tap on '\(button)'"
    case .select(let list, let row): "selecting '\(row)' in '\(list)'"
    case .type(let field, _): "typing in '\(field)'"
    case .command(let id): "the command '\(id)'"
    @unknown default: "an event"
    }
  }
}

/// The view of a module in a plugin process, as the host holds it.
@MainActor
package final class RemoteView: ViperView {
  private let remote: RemoteModule
  /// Held strongly, as a view holds its presenter.
  private let presenter: RemotePresenter

  init(_ remote: RemoteModule, presenter: RemotePresenter) {
    self.remote = remote
    self.presenter = presenter
  }

  package func handle(_ event: ViewEvent) { remote.handle(event) }

  /// The host's side of the module.
  package var module: RemoteModule { remote }
}

/// The presenter of a module in a plugin process, as the host holds it:
/// lifecycle events go to the process.
@MainActor
class RemotePresenter: ViperPresenter {
  fileprivate let remote: RemoteModule

  init(_ remote: RemoteModule) {
    self.remote = remote
  }

  func lifecycle(_ event: LifecycleEvent) { remote.lifecycle(event) }
}

/// The presenter of a module in a plugin process that takes messages:
/// they go to the process.
@MainActor
final class RemoteReceiver: RemotePresenter, MessageReceiver {
  func receive(_ message: Message, from origin: MessageOrigin) { remote.receive(message, from: origin) }
}
