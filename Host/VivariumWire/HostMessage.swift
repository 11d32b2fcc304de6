import ViperKit

/// What the host sends a plugin process: calls to its modules and
/// providers, answers to the process's own calls, and copies of the stores
/// and clock it reads. The calls (`build`, `lifecycle`, `event`, `message`,
/// `mayLeave`, `callProvider`) carry a call number the process answers with
/// a ``PluginMessage`` (`done`, `built`, `buildFailed`, `openRefused`,
/// `leaveDecision`, `providerAnswered`); everything else is one-way.
package enum HostMessage: WireMessage {
  // MARK: Calls to the process

  /// Build module `module` with factory `factory` (an index into the ready
  /// contracts) from validated arguments, with the services named, and give
  /// it back `restoring`, its restoration state (JSON), if any.
  case build(
    call: UInt32, module: UInt32, factory: Int, urn: String, arguments: [String: ArgumentValue],
    services: [Services.Name], restoring: String?)
  /// Deliver a lifecycle event; after `.detach` the plugin lets the module go.
  case lifecycle(call: UInt32, module: UInt32, LifecycleEvent)
  /// Deliver a person's action to the module's view.
  case event(call: UInt32, module: UInt32, ViewEvent)
  /// Deliver a message to the module's receiver.
  case message(call: UInt32, module: UInt32, Message, MessageOrigin)
  /// Ask module `module`'s presenter whether it may be left
  /// (``ViperKit/LeaveGuard``); answered with `leaveDecision`.
  case mayLeave(call: UInt32, module: UInt32)
  /// Have the plugin's provider of `request`'s business service (made on
  /// first use) carry out `request`, which a consumer somewhere made and
  /// the host routed here; answered with
  /// ``PluginMessage/providerAnswered(call:_:)``, or cancelled with `cancel`.
  case callProvider(call: UInt32, ServiceRequest)
  /// The host no longer waits for the answer to its call `call` (past the
  /// response limit, or its caller gave up): an answer still under way
  /// there is cancelled.
  case cancel(call: UInt32)

  // MARK: Answers to the process's calls

  /// The answer to the process's call `call` (a host service, a business
  /// service or an http request).
  case answer(call: UInt32, WireAnswer)
  /// The sleep `sleep` ended (or was cancelled by the host).
  case woke(sleep: UInt32, cancelled: Bool)

  // MARK: What the process reads without asking

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
  /// The longest, in seconds, a module of the process may hold its main
  /// actor waiting for the host to answer one of its calls (a write with
  /// `set`): half the host's response limit, so that the host's call the
  /// module holds up is still answered before the host takes the process
  /// for stuck. Sent once, first, after the process is ready.
  case answerWithin(seconds: Double)
  /// An event on `topic`, which the plugin subscribes to: for each of its
  /// modules and providers subscribed in the process (ViperKit 3.1).
  case deliver(topic: String, ServiceValue)
}
