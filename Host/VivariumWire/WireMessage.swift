import ViperKit

/// The protocol between the host and a plugin process (docs/what-runs-where.md,
/// "Processes"): value messages, each sent as one length-prefixed frame
/// (``WireFrame``) over a socket pair. The host calls (`build`, `lifecycle`,
/// `event`, `message`) carry a call number the plugin answers with `done`,
/// `built` or `buildFailed`; the plugin's service calls carry a call number
/// the host answers with `answer`. Everything else is one-way.
///
/// A change to a case, its fields or their order is a new ``WireProtocol/version``.
package enum WireMessage: Codable, Equatable, Sendable {
  // MARK: Plugin to host, once at start

  /// The dynamic loader is done with the plugin file: its entry point is
  /// called next. A process that crashes before saying so crashed inside
  /// the dynamic loader.
  case mapped
  /// The plugin loaded: its name, SDK version and contracts, in factory
  /// order, and its own version and the business services it provides.
  case ready(
    version: Int, name: String, sdkVersion: String, contracts: [Contract], pluginVersion: SemanticVersion,
    provides: [ServiceProvision], hosts: [String])
  /// The plugin file was refused while loading (the reason as the probe gives it).
  case refused(kind: String, reasons: [String])

  // MARK: Host to plugin

  /// Build module `module` with factory `factory` (an index into the ready
  /// contracts) from validated arguments, with the services named, and give
  /// it back `restoring`, its restoration state (JSON), if any.
  case build(
    call: UInt32, module: UInt32, factory: Int, urn: String, arguments: [String: ArgumentValue],
    services: [String], restoring: String?)
  /// Deliver a lifecycle event; after `.detach` the plugin lets the module go.
  case lifecycle(call: UInt32, module: UInt32, LifecycleEvent)
  /// Deliver a person's action to the module's view.
  case event(call: UInt32, module: UInt32, ViewEvent)
  /// Deliver a message to the module's receiver.
  case message(call: UInt32, module: UInt32, Message, MessageOrigin)
  /// The answer to the plugin's service call `call`.
  case answer(call: UInt32, WireAnswer)
  /// Ask module `module`'s presenter whether it may be left
  /// (``ViperKit/LeaveGuard``); answered with `leaveDecision`.
  case mayLeave(call: UInt32, module: UInt32)
  /// The host no longer waits for the answer to its call `call` (past the
  /// response limit): an answer still under way there is cancelled.
  case cancel(call: UInt32)
  /// Carry out `request` with the plugin's provider of its service (made
  /// on first use); answered with `provided`, or cancelled with `cancel`.
  case provide(call: UInt32, ServiceRequest)
  /// The sleep `sleep` ended (or was cancelled by the host).
  case woke(sleep: UInt32, cancelled: Bool)
  /// Everything `store` holds, for the process to read from: sent before
  /// the first module that lists the store is built.
  case storeCopy(WireStore, [String: ArgumentValue])
  /// `key` of `store` changed (nil: removed), by whichever module or
  /// process: sent before the answer to the write that changed it.
  case storeChanged(WireStore, key: String, ArgumentValue?)
  /// The host's clock, for the process to read the time from: nil, the
  /// system's real time, which the process reads itself; a number, virtual
  /// time standing at it. Sent before the first module that lists the clock
  /// is built, then each time virtual time moves, before the sleeps it ends
  /// are woken.
  case clock(now: Double?)

  // MARK: Plugin to host

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
  /// The module drew.
  case draw(module: UInt32, ViewNode)
  /// The module asked its router or message port for something.
  case request(module: UInt32, HostRequest)
  /// The module's interactor called a service; `call` 0 wants no answer.
  case service(call: UInt32, module: UInt32, WireServiceCall)
  /// Module `module` (0: one of the process's providers) calls a business
  /// service; the host answers with `answer` (``WireAnswer/outcome(_:)``).
  case callService(call: UInt32, module: UInt32, ServiceRequest)
  /// Module `module` (0: one of the process's providers) sends `request`
  /// through the host's http service; answered with `answer`
  /// (``WireAnswer/httpResponse(_:)`` or ``WireAnswer/httpFailed(_:)``).
  case http(call: UInt32, module: UInt32, HTTPRequest)
  /// The caller of business service or http call `call` no longer waits: its work was cancelled.
  case cancelServiceCall(call: UInt32)
  /// How the `provide` call `call` ended.
  case provided(call: UInt32, ServiceOutcome)
  /// The module started work `work`.
  case workStarted(module: UInt32, work: UInt32, name: String)
  /// Work `work` ended.
  case workEnded(work: UInt32, WireWorkOutcome)
  /// Work `work` (0: none) sleeps `seconds` on the host's clock; `waiting`
  /// when it waits between ticks of a timer (``WallClock/wait(for:)``).
  case sleep(work: UInt32, sleep: UInt32, seconds: Double, waiting: Bool)
  /// The plugin cancelled sleep `sleep`.
  case cancelSleep(sleep: UInt32)
  /// The module's restoration state changed (JSON, nil for none), or
  /// cannot be read (`failure`).
  case restorationState(module: UInt32, state: String?, failure: String?)
  /// A released module's role objects that are still alive once its work
  /// ended: a leak; empty when there is none.
  case leaked(module: UInt32, roles: [WireRole])
}

extension WireMessage {
  /// The module a host call is for, if it is a call to a module.
  package var calledModule: UInt32? {
    switch self {
    case .lifecycle(_, let module, _), .event(_, let module, _), .message(_, let module, _, _),
      .mayLeave(_, let module):
      module
    default: nil
    }
  }

}

/// A role object of a plugin module, for leak reports.
package struct WireRole: Codable, Equatable, Sendable {
  /// Its role.
  package let role: Role
  /// Its type name.
  package let typeName: String

  /// The role object `typeName` playing `role`.
  package init(role: Role, typeName: String) {
    self.role = role
    self.typeName = typeName
  }

  /// `presenter ItemsPresenter`.
  package var description: String { "\(role.rawValue) \(typeName)" }
}

/// A store a plugin process keeps a copy of (``WireMessage/storeCopy(_:_:)``):
/// its modules read it there, without asking the host.
package enum WireStore: UInt8, Codable, Equatable, Sendable, CaseIterable {
  /// The plugin's storage; its values are strings.
  case storage
  /// The app-wide settings.
  case settings

  /// The service it is (``Services/Name``).
  package var service: String {
    switch self {
    case .storage: Services.Name.storage
    case .settings: Services.Name.settings
    }
  }
}

/// A service call from an interactor.
package enum WireServiceCall: Codable, Equatable, Sendable {
  case storageValue(key: String)
  case storageSet(key: String, value: String?)
  case storageKeys
  case settingValue(key: String)
  case settingSet(key: String, value: ArgumentValue?)
  case log(LogLevel, String)
  case notice(String, Tone)
  case alert(title: String, message: String)
  case now
}

/// The host's answer to a service call.
package enum WireAnswer: Codable, Equatable, Sendable {
  /// Done, nothing to return.
  case none
  /// A stored string, or nil.
  case string(String?)
  /// A list of keys.
  case strings([String])
  /// A setting, or nil.
  case value(ArgumentValue?)
  /// The time.
  case number(Double)
  /// The call threw this message.
  case failed(String)
  /// How a business service call ended.
  case outcome(ServiceOutcome)
  /// The response to an http request.
  case httpResponse(HTTPResponse)
  /// Why an http request got no response.
  case httpFailed(HTTPError)
}

/// How work in a plugin ended.
package enum WireWorkOutcome: Codable, Equatable, Sendable {
  case finished
  case failed(String)
  case cancelled
}
