/// A kind of event plugins announce to each other (ViperKit 3.1): its topic
/// on the wire and the `Codable` payload it carries. Declare it once, in an
/// interface package that the publisher and the subscribers depend on, as
/// a business service's interface is:
///
/// ```swift
/// public enum BalanceChanged: EventTopic {
///   public static let name = "wallet.balance-changed"
///   public struct Payload: Codable, Sendable {
///     public var balance: Int
///   }
/// }
/// ```
///
/// A plugin lists the topics it publishes in ``ViperPlugin/publishes`` and
/// those it subscribes to in ``ViperPlugin/subscribes``; its modules and
/// providers publish and subscribe through ``Services/events``. Add fields
/// to a payload as optionals, so that an older subscriber still reads it.
public protocol EventTopic {
  /// What an event of the topic carries.
  associatedtype Payload: Codable & Sendable
  /// The topic's name on the wire, `area.what-happened`: the same in every
  /// plugin that declares it.
  static var name: String { get }
}

/// A topic a plugin publishes or subscribes to, by its name (ViperKit 3.1).
public struct EventDeclaration: Codable, Hashable, Sendable {
  /// The topic's name (``EventTopic/name``).
  public var topic: String

  /// Declares `topic`.
  public init<Topic: EventTopic>(_ topic: Topic.Type) {
    self.topic = Topic.name
  }

  /// Declares the topic named `topic`, for hosts that read declarations;
  /// plugins declare a topic by its type, ``init(_:)``.
  public init(topic: String) {
    self.topic = topic
  }
}

/// Announces events to the plugins that subscribe to their topic, and hands
/// a module or provider the events of the topics it subscribes to (ViperKit
/// 3.1). Conformers are the host and test harnesses; plugins use the typed
/// ``publish(_:_:)`` and ``subscribe(_:by:_:)``.
///
/// An event goes to every live subscriber, in every session, through the
/// host: a subscriber's module is never built, nor its process started, for
/// it. The publisher never waits: a subscriber that falls behind loses the
/// events past its queue, which the host counts and logs. A topic the
/// plugin does not declare is refused, and its use is logged and noticed.
@MainActor
public protocol EventBus: AnyObject {
  /// Announces `payload` on the topic named `topic`.
  func publish(topic: String, _ payload: ServiceValue)
  /// Has `handler` called with the payload of each event on the topic named
  /// `topic`, for as long as `owner` lives; an event whose payload
  /// `handler` cannot read (it throws) is logged. Subscribing again by the
  /// same `owner` replaces the earlier `handler`.
  func subscribe(topic: String, by owner: AnyObject, _ handler: @escaping @MainActor (ServiceValue) throws -> Void)
}

extension EventBus {
  /// Announces `payload` on `Topic`:
  /// `try services.events?.publish(BalanceChanged.self, .init(balance: 60))`.
  /// Throws only when the payload cannot be encoded.
  public func publish<Topic: EventTopic>(_ topic: Topic.Type, _ payload: Topic.Payload) throws {
    publish(topic: Topic.name, try ServiceValue(encoding: payload))
  }

  /// Has `handler` called with each event on `Topic` while `owner` lives:
  /// subscribe with the role that draws (its presenter), so that the
  /// subscription ends with the module.
  public func subscribe<Topic: EventTopic>(
    _ topic: Topic.Type, by owner: AnyObject, _ handler: @escaping @MainActor (Topic.Payload) -> Void
  ) {
    subscribe(topic: Topic.name, by: owner) { value in handler(try value.decode(as: Topic.Payload.self)) }
  }
}
