import ViperKit
import VivariumSupport
import VivariumWire

/// The events of a plugin process (ViperKit 3.1): what its modules and
/// providers subscribed to, and the events the host delivers, each handed
/// to the subscribers of its topic in a turn of its own.
///
/// A subscriber that falls behind never holds up the host nor grows the
/// process without bound: past ``queueLimit`` events not yet handed out,
/// an event is dropped, and the host told (once until the queue empties).
@MainActor
final class ProcessEvents {
  /// The most events waiting to be handed out.
  static let queueLimit = 256

  private unowned let server: PluginServer
  /// The topics the plugin declares it subscribes to.
  private let subscribes: Set<String>
  /// The subscribers of each topic, by owner, each with its module.
  private var subscribers = OwnedEntries<String, (module: UInt32, handler: @MainActor (ServiceValue) throws -> Void)>()
  /// Events received and not handed out yet.
  private(set) var waiting = 0
  /// Events dropped since the queue last emptied.
  private var dropped = 0

  init(server: PluginServer, subscribes: [String]) {
    self.server = server
    self.subscribes = Set(subscribes)
  }

  /// Module `module`'s bus (0: the providers').
  func bus(for module: UInt32) -> any EventBus { Bus(events: self, module: module) }

  /// Takes an event the host delivered: handed out in a turn of its own,
  /// or dropped past ``queueLimit``.
  func receive(_ topic: String, _ payload: ServiceValue, later: (@escaping () -> Void) -> Void) {
    guard waiting < Self.queueLimit else {
      dropped += 1
      if dropped == 1 {
        server.channel.send(.eventProblem(module: 0, topic: topic, .dropped(queueLimit: Self.queueLimit)))
      }
      return
    }
    waiting += 1
    later { [self] in
      waiting -= 1
      if waiting == 0 { dropped = 0 }
      handOut(topic, payload)
    }
  }

  private func handOut(_ topic: String, _ payload: ServiceValue) {
    for subscriber in subscribers.values(for: topic) {
      do {
        try subscriber.handler(payload)
      } catch {
        server.channel.send(.eventProblem(module: subscriber.module, topic: topic, .unreadable("\(error)")))
      }
    }
  }

  private func subscribe(
    _ topic: String, by owner: AnyObject, module: UInt32, _ handler: @escaping @MainActor (ServiceValue) throws -> Void
  ) {
    guard subscribes.contains(topic) else {
      server.channel.send(.eventProblem(module: module, topic: topic, .undeclaredSubscription))
      return
    }
    subscribers.add((module, handler), for: owner, key: topic)
  }

  /// Sent to the host, which checks the topic is declared.
  private func publish(_ topic: String, _ payload: ServiceValue, module: UInt32) {
    server.channel.send(.publish(module: module, topic: topic, payload))
  }

  /// One module's view of the events.
  private final class Bus: EventBus {
    unowned let events: ProcessEvents
    let module: UInt32

    init(events: ProcessEvents, module: UInt32) {
      self.events = events
      self.module = module
    }

    func publish(topic: String, _ payload: ServiceValue) { events.publish(topic, payload, module: module) }

    func subscribe(topic: String, by owner: AnyObject, _ handler: @escaping @MainActor (ServiceValue) throws -> Void) {
      events.subscribe(topic, by: owner, module: module, handler)
    }
  }
}
