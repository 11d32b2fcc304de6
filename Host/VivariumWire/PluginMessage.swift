import ViperKit

/// What a plugin process sends the host: that it loaded, the answers to
/// the host's calls (``HostMessage``), and everything its modules and
/// providers do, draw and ask. Its own calls (`callHostService`,
/// `callBusinessService`, `sendHTTP`) carry a call number the host answers
/// with ``HostMessage/answer(call:_:)``.
package enum PluginMessage: WireMessage {
  // MARK: Once, at start

  /// The dynamic loader is done with the plugin file: its entry point is
  /// called next. A process that crashes before saying so crashed inside
  /// the dynamic loader.
  case mapped
  /// The plugin loaded: its name, SDK version and contracts, in factory
  /// order, its own version, the business services it provides, the
  /// hosts it may reach and the topics of events it publishes and
  /// subscribes to.
  case ready(
    version: Int, name: String, sdkVersion: String, contracts: [Contract], pluginVersion: SemanticVersion,
    provides: [ServiceProvision], hosts: [String], publishes: [String] = [], subscribes: [String] = [])
  /// The plugin file was refused while loading (the reason as the probe gives it).
  case refused(kind: String, reasons: [String])

  // MARK: Answers to the host's calls

  /// The host call `call` returned.
  case done(call: UInt32)
  /// The build call `call` made the module, with these role objects;
  /// `receives` when one of them takes messages; `guardsLeaving` when its
  /// presenter is a ``ViperKit/LeaveGuard``; `restoreFailure` when it could
  /// not take back the state it was given.
  case built(call: UInt32, roles: [WireRole], receives: Bool, guardsLeaving: Bool, restoreFailure: String?)
  /// The build call `call` threw: the factory's message.
  case buildFailed(call: UInt32, message: String)
  /// The build call `call` was not carried out: the factory, an
  /// ``ViperKit/OpenGuard``, did not let the module open.
  case openRefused(call: UInt32, OpenDecision)
  /// The answer to `mayLeave` call `call`.
  case leaveDecision(call: UInt32, LeaveDecision)
  /// How the plugin's provider carried out the host's
  /// ``HostMessage/callProvider(call:_:)`` call `call`.
  case providerAnswered(call: UInt32, ServiceOutcome)

  // MARK: What modules do

  /// The module drew this tree: its first draw, or one that changed too
  /// much to send as ``drawChanges(module:_:)``.
  case draw(module: UInt32, ViewNode)
  /// The module drew again: what changed since the tree it drew last
  /// (``ViewTreeDiff``), which the host applies to the tree it has.
  case drawChanges(module: UInt32, ViewTreeDiff)
  /// The module asked its router or message port for something.
  case request(module: UInt32, HostRequest)
  /// The module's restoration state changed (JSON, nil for none), or
  /// cannot be read (`failure`).
  case restorationState(module: UInt32, state: String?, failure: String?)
  /// The module started work `work`.
  case workStarted(module: UInt32, work: UInt32, name: String)
  /// Work `work` ended.
  case workEnded(work: UInt32, WireWorkOutcome)
  /// Work `work` (0: none) sleeps `seconds` on the host's clock; `waiting`
  /// when it waits between ticks of a timer (``WallClock/wait(for:)``).
  case sleep(work: UInt32, sleep: UInt32, seconds: Double, waiting: Bool)
  /// The plugin cancelled sleep `sleep`.
  case cancelSleep(sleep: UInt32)
  /// A released module's role objects that are still alive once its work
  /// ended: a leak; empty when there is none.
  case leaked(module: UInt32, roles: [WireRole])

  // MARK: Calls to the host

  /// Module `module` (0: one of the process's providers) calls one of the
  /// host's services (storage, settings, log, notifications, clock); `call`
  /// 0 wants no answer.
  case callHostService(call: UInt32, module: UInt32, HostServiceCall)
  /// Module `module` (0: one of the process's providers) calls a business
  /// service, whichever plugin provides it; the host routes it and answers
  /// with ``WireAnswer/outcome(_:)``.
  case callBusinessService(call: UInt32, module: UInt32, ServiceRequest)
  /// Module `module` (0: one of the process's providers) sends `request`
  /// through the host's http service; answered with
  /// ``WireAnswer/httpResponse(_:)`` or ``WireAnswer/httpFailed(_:)``.
  case sendHTTP(call: UInt32, module: UInt32, HTTPRequest)
  /// The caller of `callBusinessService` or `sendHTTP` call `call` no
  /// longer waits: its work was cancelled.
  case cancelServiceCall(call: UInt32)
  /// Module `module` (0: one of the process's providers) announces an
  /// event on `topic` (ViperKit 3.1); the host delivers it to every live
  /// subscriber. Nothing is answered.
  case publish(module: UInt32, topic: String, ServiceValue)
  /// What went wrong with events on `topic` in the process, for module
  /// `module` (0: the process's providers, or none): the host logs it.
  case eventProblem(module: UInt32, topic: String, EventProblem)
}

/// What went wrong with events in a plugin process (``PluginMessage/eventProblem(module:topic:_:)``).
package enum EventProblem: Codable, Equatable, Sendable {
  /// A module subscribed to a topic its plugin does not declare in `subscribes`.
  case undeclaredSubscription
  /// A subscriber could not read an event's payload: why.
  case unreadable(String)
  /// Events were dropped: the process's subscribers did not keep up with
  /// the most it holds waiting.
  case dropped(queueLimit: Int)
}
