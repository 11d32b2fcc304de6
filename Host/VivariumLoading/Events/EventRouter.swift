import ViperKit
import VivariumSupport
import VivariumWire

/// Carries events between plugins (ViperKit 3.1): each event a module or
/// provider publishes, on a topic its plugin declares, goes to every
/// plugin that subscribes to the topic. A plugin in a process of its own
/// gets it there (``PluginSupervisor/deliver(topic:_:)``), where its
/// modules and providers that subscribed take it, in every session; a
/// plugin in the host's process (`--in-process`) through the handlers its
/// buses registered here.
///
/// The publisher never waits, and no subscriber holds up another: an event
/// goes to a process without waiting for it to be read, and a process that
/// leaves past ``PluginSupervisor/eventBacklogLimit`` bytes unread loses the
/// events sent past them, counted in ``counts`` and logged once until it
/// catches up. A process that is not running gets nothing: none of its
/// modules is live, and none is built, nor the process started, for an event.
@MainActor
package final class EventRouter {
  /// The plugins loaded, whose declarations are the topics' publishers and
  /// subscribers: the catalog's (set by the host).
  package var plugins: () -> [LoadedPlugin] = { [] }
  /// Told each thing that went wrong: the plugin's name, the module's URN
  /// (or the plugin's name, for its providers), and what to say.
  package var report: (_ plugin: String, _ module: String, _ problem: String) -> Void = { _, _, _ in }
  /// How many events each topic saw published, delivered to a plugin and dropped.
  package private(set) var counts: [String: Counts] = [:]

  /// One topic's events.
  package struct Counts: Equatable, Sendable {
    /// Published on it.
    package var published = 0
    /// Sent to a subscribing plugin: one per plugin per event.
    package var delivered = 0
    /// Not sent to a subscribing plugin that did not keep up.
    package var dropped = 0
  }

  /// The handlers of plugins in the host's process, by topic, each under
  /// its plugin's file.
  private var local: [String: OwnedEntries<String, LocalSubscriber>] = [:]
  /// Plugin files whose process is losing events: said once until one is sent again.
  private var overflowing: Set<String> = []

  private struct LocalSubscriber {
    /// Looked at again when the event is handed out, a turn later.
    weak var owner: AnyObject?
    let handler: @MainActor (ServiceValue) throws -> Void
    let report: (String) -> Void
  }

  package init() {}

  /// The bus of the module (or provider) `module` of `plugin`, which tells
  /// `problem` what it does wrong.
  package func bus(for plugin: PluginIdentity, module: String) -> HostEventBus {
    HostEventBus(router: self, plugin: plugin, module: module)
  }

  /// The topics the plugin at `path` declares.
  func topics(ofPluginAt path: String) -> PluginTopics {
    plugins().first { $0.path == path }?.topics ?? PluginTopics()
  }

  /// Announces `payload` on `topic`, published by `bus`.
  func publish(_ topic: String, _ payload: ServiceValue, by bus: HostEventBus) {
    guard topics(ofPluginAt: bus.plugin.path).publishes.contains(topic) else {
      return bus.refuse(topic, publishing: true)
    }
    counts[topic, default: Counts()].published += 1
    for plugin in plugins() where plugin.topics.subscribes.contains(topic) {
      // A plugin known from a scan runs in the process its activation
      // started, once one of its modules was built: `runningProcess`.
      if let process = plugin.runningProcess {
        switch process.deliver(topic: topic, payload) {
        case .sent:
          counts[topic, default: Counts()].delivered += 1
          overflowing.remove(plugin.path)
        case .noProcess: break
        case .overflow:
          counts[topic, default: Counts()].dropped += 1
          if overflowing.insert(plugin.path).inserted {
            report(
              plugin.name, plugin.name,
              "dropped events on '\(topic)' for \(plugin.name): its process has not read the \(PluginSupervisor.eventBacklogLimit >> 20) MiB sent to it before; it gets events again once it catches up"
            )
          }
        }
      } else if let subscribers = local[topic]?.values(for: plugin.path), !subscribers.isEmpty {
        counts[topic, default: Counts()].delivered += 1
        // In its own turn, not inside the publisher's call.
        Task { @MainActor in
          for subscriber in subscribers where subscriber.owner != nil {
            do { try subscriber.handler(payload) } catch {
              subscriber.report("an event on '\(topic)' could not be read by its subscriber: \(error)")
            }
          }
        }
      }
    }
  }

  /// Has `handler` take the events on `topic` while `owner` lives, for `bus`'s
  /// plugin in the host's process.
  func subscribe(
    _ topic: String, by owner: AnyObject, _ handler: @escaping @MainActor (ServiceValue) throws -> Void,
    bus: HostEventBus
  ) {
    guard topics(ofPluginAt: bus.plugin.path).subscribes.contains(topic) else {
      return bus.refuse(topic, publishing: false)
    }
    local[topic, default: OwnedEntries()].add(
      LocalSubscriber(owner: owner, handler: handler) { [weak bus] in bus?.problem($0) }, for: owner,
      key: bus.plugin.path)
  }

  /// Why a plugin may not publish on (or subscribe to) `topic`.
  static func undeclared(_ topic: String, plugin: String, publishing: Bool) -> String {
    let (verb, list) = publishing ? ("publishes on", "publishes") : ("subscribes to", "subscribes")
    return
      "\(plugin) \(verb) the topic '\(topic)' without declaring it: nothing was \(publishing ? "sent" : "subscribed"); add EventDeclaration(…) for it to the plugin's static var \(list)"
  }
}

/// One module's (or provider's) events, through the host's ``EventRouter``.
@MainActor
package final class HostEventBus: EventBus {
  private unowned let router: EventRouter
  /// The plugin whose module it serves.
  package let plugin: PluginIdentity
  /// The module's URN, or the plugin's name for its providers.
  package let module: String
  /// Told what the module does wrong, once per topic and use.
  package var problem: (String) -> Void = { _ in }
  private var refused: Set<String> = []

  init(router: EventRouter, plugin: PluginIdentity, module: String) {
    self.router = router
    self.plugin = plugin
    self.module = module
  }

  package func publish(topic: String, _ payload: ServiceValue) { router.publish(topic, payload, by: self) }

  package func subscribe(
    topic: String, by owner: AnyObject, _ handler: @escaping @MainActor (ServiceValue) throws -> Void
  ) {
    router.subscribe(topic, by: owner, handler, bus: self)
  }

  /// Says, once per topic, that the module used `topic` undeclared.
  func refuse(_ topic: String, publishing: Bool) {
    guard refused.insert((publishing ? "publish " : "subscribe ") + topic).inserted else { return }
    problem(EventRouter.undeclared(topic, plugin: plugin.name, publishing: publishing))
  }

  /// What a plugin process said went wrong with events for this module.
  package func take(_ problem: EventProblem, on topic: String) {
    switch problem {
    case .undeclaredSubscription: refuse(topic, publishing: false)
    case .unreadable(let reason): self.problem("an event on '\(topic)' could not be read by its subscriber: \(reason)")
    case .dropped(let limit):
      self.problem(
        "dropped events on '\(topic)': \(plugin.name)'s subscribers did not keep up with \(limit) events waiting")
    }
  }
}
