import ViperKit
import ViperKitHosting

/// In-memory services for tests: storage and settings in dictionaries, the
/// log and notifications captured, the clock virtual (it moves only with
/// ``ModuleHarness/advance(by:)``). Records which services the module used.
@MainActor
public final class FakeServices {
  /// Storage values by key.
  public var stored: [String: String] = [:]
  /// Settings by key, as set; a typed setting of a contract the fake
  /// handed services for reads as its default while it is not here. A
  /// change here is told to the modules that observe the key, as the
  /// person's change in the settings screen is.
  public var settings: [String: ArgumentValue] = [:] {
    didSet {
      let changed = Set(oldValue.keys).union(settings.keys).filter { oldValue[$0] != settings[$0] }
      settingObservers.removeAll { $0.owner.object == nil }
      for observer in settingObservers where changed.contains(observer.key) {
        observer.changed(setting(observer.key))
      }
    }
  }
  /// The events the modules published through this fake, each its topic
  /// and payload, in order (ViperKit 3.1); each also went to the fake's
  /// subscribers.
  public private(set) var publishedEvents: [(topic: String, payload: ServiceValue)] = []
  /// The modules subscribed to events (``ViperKit/EventBus``), by topic.
  private var eventSubscribers: [(topic: String, owner: WeakOwner, handler: @MainActor (ServiceValue) throws -> Void)] =
    []

  /// Hands `payload` on `Topic` to every module subscribed to it through
  /// this fake, as the host hands another plugin's event; throws when a
  /// subscriber cannot read it.
  public func deliver<Topic: EventTopic>(_ topic: Topic.Type, _ payload: Topic.Payload) throws {
    try deliver(topic: Topic.name, ServiceValue(encoding: payload))
  }

  fileprivate func deliver(topic: String, _ payload: ServiceValue) throws {
    eventSubscribers.removeAll { $0.owner.object == nil }
    for subscriber in eventSubscribers where subscriber.topic == topic { try subscriber.handler(payload) }
  }

  /// The typed settings of the contracts the fake handed services for, by key.
  private var settingTypes: [String: SettingType] = [:]
  /// The modules observing settings (``SettingsStore/observe(_:by:_:)``).
  private var settingObservers: [(owner: WeakOwner, key: String, changed: @MainActor (ArgumentValue?) -> Void)] = []
  /// Log lines, `level: message`.
  public private(set) var logLines: [String] = []
  /// Notices raised, `tone: text`.
  public private(set) var notices: [String] = []
  /// Alerts raised, `title: message`.
  public private(set) var alerts: [String] = []
  /// The virtual clock the module gets.
  public let clock: ModuleClock
  /// The services the module touched.
  public internal(set) var used: Set<Services.Name> = []
  /// The services the module touched without its contract listing them (it
  /// got an ``UndeclaredService`` for each), in the order it did.
  public private(set) var undeclared: [Services.Name] = []
  /// The responses of the `http` service, by URL (ViperKit 2.7): a request
  /// to a URL not here fails as ``HTTPError/Kind/notRecorded``.
  public var httpResponses: [String: HTTPResponse] = [:]
  /// The requests sent through the `http` service, in order.
  public internal(set) var httpRequests: [HTTPRequest] = []
  /// Business service calls made, `service.operation`, in order (ViperKit 2.7).
  public internal(set) var serviceCalls: [String] = []
  /// Names of the business services called without being listed in the
  /// caller's `requires` (each call refused as the host refuses it), in the
  /// order first called.
  public internal(set) var unrequired: [String] = []
  /// The fake providers of business services, by service.
  var providers: [String: (version: SemanticVersion, answer: @MainActor (ServiceRequest) async -> ServiceOutcome)] = [:]

  /// Fake services whose virtual clock starts at `now` (default
  /// 2026-01-01T00:00:00Z).
  public init(now: Double = 1_767_225_600) {
    clock = ModuleClock(.virtual(start: now))
  }

  /// The services `contract` declares, as the host would hand them out to
  /// the module `urn`: an ``UndeclaredService`` in place of each other one,
  /// recorded in ``undeclared`` when used.
  public func services(for contract: Contract, urn: String? = nil) -> Services {
    services(for: contract, urn: urn ?? contract.urn, isProvider: false)
  }

  /// ``services(for:urn:)`` for the module `urn`, or for the provider `urn`
  /// when `isProvider`.
  func services(for contract: Contract, urn: String, isProvider: Bool) -> Services {
    for declaration in contract.settings {
      if let type = declaration.type { settingTypes[declaration.key] = type }
    }
    var listed = Services()
    for name in Set(contract.services) {
      switch name {
      case .storage: listed.storage = Entries(self, .storage, \.stored)
      case .settings: listed.settings = Entries(self, .settings, \.settings)
      case .log: listed.log = Log(self)
      case .notifications: listed.notifications = Notices(self)
      case .clock: listed.clock = UsedClock(self)
      case .http: listed.http = FakeHTTP(self)
      @unknown default: break  // One of a newer ViperKit: it stays a stand-in.
      }
    }
    var filled = UndeclaredService.filling(
      listed, listing: contract.services, for: urn, isProvider: isProvider, now: { [clock] in clock.now() }
    ) { [weak self] in self?.undeclared.append($0.service) }
    filled.events = FakeEvents(self)
    return filled.adding(FakeCalls(self, caller: urn, requires: contract.requires))
  }

  /// One of the fake's dictionaries, read and written as the service
  /// `service`, whose use it records: storage (`Entries<String>`, over
  /// ``stored``) and settings (`Entries<ArgumentValue>`, over ``settings``).
  @MainActor
  fileprivate final class Entries<Value> {
    let fake: FakeServices
    let service: Services.Name
    let values: ReferenceWritableKeyPath<FakeServices, [String: Value]>
    init(
      _ fake: FakeServices, _ service: Services.Name, _ values: ReferenceWritableKeyPath<FakeServices, [String: Value]>
    ) {
      self.fake = fake
      self.service = service
      self.values = values
    }
    func value(forKey key: String) -> Value? {
      fake.used.insert(service)
      return fake[keyPath: values][key]
    }
    func set(_ value: Value?, forKey key: String) throws {
      fake.used.insert(service)
      fake[keyPath: values][key] = value
    }
  }

  /// The setting `key` as a module reads it: as set, else its default.
  fileprivate func setting(_ key: String) -> ArgumentValue? {
    settings[key] ?? settingTypes[key]?.defaultValue
  }

  /// Has `changed` called with `key`'s value at each change, while `owner` lives.
  fileprivate func observeSetting(
    _ key: String, by owner: AnyObject, _ changed: @escaping @MainActor (ArgumentValue?) -> Void
  ) {
    settingObservers.removeAll { $0.owner.object == nil || ($0.owner.object === owner && $0.key == key) }
    settingObservers.append((WeakOwner(owner), key, changed))
  }

  fileprivate struct WeakOwner {
    weak var object: AnyObject?
    init(_ object: AnyObject) { self.object = object }
  }

  /// The fake's events: what a module publishes is recorded and handed to
  /// the fake's subscribers at once.
  private final class FakeEvents: EventBus {
    let fake: FakeServices
    init(_ fake: FakeServices) { self.fake = fake }
    func publish(topic: String, _ payload: ServiceValue) {
      fake.publishedEvents.append((topic, payload))
      try? fake.deliver(topic: topic, payload)
    }
    func subscribe(topic: String, by owner: AnyObject, _ handler: @escaping @MainActor (ServiceValue) throws -> Void) {
      fake.eventSubscribers.removeAll { $0.owner.object == nil || ($0.owner.object === owner && $0.topic == topic) }
      fake.eventSubscribers.append((topic, WeakOwner(owner), handler))
    }
  }

  private final class Log: ModuleLogger {
    let fake: FakeServices
    init(_ fake: FakeServices) { self.fake = fake }
    func log(_ level: LogLevel, _ message: String) {
      fake.used.insert(.log)
      fake.logLines.append("\(level.rawValue): \(message)")
    }
  }

  private final class Notices: Notifier {
    let fake: FakeServices
    init(_ fake: FakeServices) { self.fake = fake }
    func notice(_ text: String, tone: Tone) {
      fake.used.insert(.notifications)
      fake.notices.append("\(tone.rawValue): \(text)")
    }
    func alert(title: String, message: String) {
      fake.used.insert(.notifications)
      fake.alerts.append("\(title): \(message)")
    }
  }

  private final class UsedClock: WallClock {
    let fake: FakeServices
    init(_ fake: FakeServices) { self.fake = fake }
    func now() -> Double {
      fake.used.insert(.clock)
      return fake.clock.now()
    }
    func sleep(for seconds: Double) async throws {
      fake.used.insert(.clock)
      try await fake.clock.sleep(for: seconds)
    }
  }
}

/// The fake `http` service: answers from ``FakeServices/httpResponses``.
@MainActor
final class FakeHTTP: HTTPClient {
  let fake: FakeServices
  init(_ fake: FakeServices) { self.fake = fake }
  func send(_ request: HTTPRequest) async throws -> HTTPResponse {
    fake.used.insert(.http)
    fake.httpRequests.append(request)
    guard let response = fake.httpResponses[request.url] else {
      throw HTTPError(.notRecorded, url: request.url, reason: "no fake response: set httpResponses[\"\(request.url)\"]")
    }
    return response
  }
}

extension FakeServices.Entries: KeyValueStore where Value == String {
  func keys() -> [String] { fake[keyPath: values].keys.sorted() }
}

extension FakeServices.Entries: SettingsStore where Value == ArgumentValue {
  func value(forKey key: String) -> ArgumentValue? {
    fake.used.insert(service)
    return fake.setting(key)
  }

  func observe(_ key: String, by owner: AnyObject, _ changed: @escaping @MainActor (ArgumentValue?) -> Void) {
    fake.used.insert(service)
    fake.observeSetting(key, by: owner, changed)
  }
}
