/// The host services a module can ask for by listing their names in
/// ``Contract/services``. The host builds them once at start and hands them
/// to each module in ``ModuleContext/services``; a factory passes them to the
/// interactor only, the one role that touches services.
///
/// A module cannot depend on something it did not declare: in place of a
/// service the contract does not list, the host (and the test kit) hands out
/// a stand-in that does nothing (reads find nothing, writes and sleeps throw)
/// and reports its first use, naming the service to add to the contract; the
/// conformance check `services.declared` fails it. Every service lives on the
/// main actor, with the role objects. The fields are settable for whoever
/// assembles a container; a module's own, in its context, is a constant.
@MainActor
public struct Services {
  /// A host service, by the name a contract lists it under in
  /// ``Contract/services`` (and a provider in ``ServiceProvider/services``):
  /// `services: [.storage, .clock]`. The name is its raw value, in JSON and
  /// on the wire too. Each is one of the fields below.
  public enum Name: String, CaseIterable, Codable, Hashable, Sendable {
    /// ``Services/storage``.
    case storage
    /// ``Services/settings``.
    case settings
    /// ``Services/log``.
    case log
    /// ``Services/notifications``.
    case notifications
    /// ``Services/clock``.
    case clock
    /// ``Services/http`` (ViperKit 2.7).
    case http
  }

  /// Persistent key-value storage private to the module's plugin.
  public var storage: (any KeyValueStore)?
  /// App-wide settings shared by every plugin.
  public var settings: (any SettingsStore)?
  /// The host's log.
  public var log: (any ModuleLogger)?
  /// Notices and alerts the host draws for the person.
  public var notifications: (any Notifier)?
  /// The current time, sleeping and timers; virtual in tests and recorded
  /// sessions.
  public var clock: (any WallClock)?

  /// Requests over the network through the host, to the hosts the
  /// plugin declares (ViperKit 2.7).
  public var http: (any HTTPClient)?
  /// What carries calls to business services (ViperKit 2.7); nil where
  /// the module requires none.
  public var businessServices: (any ServiceCalling)?
  /// Events announced between plugins, on the topics the module's plugin
  /// declares (ViperKit 3.1): the host always hands one out.
  public var events: (any EventBus)?

  /// Creates a container; the host and test harnesses do.
  public init(
    storage: (any KeyValueStore)? = nil, settings: (any SettingsStore)? = nil, log: (any ModuleLogger)? = nil,
    notifications: (any Notifier)? = nil, clock: (any WallClock)? = nil, http: (any HTTPClient)? = nil,
    businessServices: (any ServiceCalling)? = nil
  ) {
    self.storage = storage
    self.settings = settings
    self.log = log
    self.notifications = notifications
    self.clock = clock
    self.http = http
    self.businessServices = businessServices
  }

  /// Creates a container with no business services: the initializer of
  /// ViperKit 2.0 to 2.6.
  @_disfavoredOverload
  public init(
    storage: (any KeyValueStore)? = nil, settings: (any SettingsStore)? = nil, log: (any ModuleLogger)? = nil,
    notifications: (any Notifier)? = nil, clock: (any WallClock)? = nil
  ) {
    self.init(
      storage: storage, settings: settings, log: log, notifications: notifications, clock: clock, http: nil,
      businessServices: nil)
  }

  /// A handle on the business service `service`, which the contract (or
  /// the provider's ``ServiceProvider/requires``) must list in `requires`
  /// (ViperKit 2.7): `let weather = services.service(WeatherService.self)`,
  /// then `try await weather.forecast(city)`. Calls to a service not listed
  /// fail with ``ServiceCallError/Kind/undeclared``; to an optional one
  /// with no provider, with ``ServiceCallError/Kind/unavailable``.
  public func service<Interface: ServiceInterface>(_ service: Interface.Type) -> ServiceHandle<Interface> {
    ServiceHandle(calls: businessServices)
  }
}

/// Persistent string values by key, private to one plugin. Conformers are the
/// host and test harnesses; writes are durable when ``set(_:forKey:)`` or
/// ``save(_:forKey:)`` returns.
@MainActor
public protocol KeyValueStore: AnyObject {
  /// The value stored under `key`, if any.
  func value(forKey key: String) -> String?
  /// Stores `value` under `key`, or removes the key when `value` is nil.
  /// Throws when the value could not be saved; what was saved before stays.
  /// In a plugin process this holds up the module's main actor until the
  /// host has saved it: prefer ``save(_:forKey:)`` from work.
  func set(_ value: String?, forKey key: String) throws
  /// Every key that holds a value, sorted.
  func keys() -> [String]
  /// Stores `value` under `key` (nil removes it) as ``set(_:forKey:)``
  /// does, suspending only the caller until it is saved: the module's other
  /// work, its events and its drawing go on meanwhile. Throws when the
  /// value could not be saved; what was saved before stays. A conformer
  /// that saves in the caller's own process need not implement it: the
  /// default calls ``set(_:forKey:)``. (ViperKit 2.7)
  func save(_ value: String?, forKey key: String) async throws
}

extension KeyValueStore {
  /// Calls ``set(_:forKey:)``: right for a store that saves in the caller's process.
  public func save(_ value: String?, forKey key: String) async throws {
    try set(value, forKey: key)
  }
}

/// App-wide typed settings, shared by every plugin. Conformers are the host
/// and test harnesses.
@MainActor
public protocol SettingsStore: AnyObject {
  /// The setting `key`, if set; a typed setting (``SettingDeclaration/type``)
  /// not set reads as its default.
  func value(forKey key: String) -> ArgumentValue?
  /// Sets or (with nil) clears `key`. Throws when it could not be saved.
  /// In a plugin process this holds up the module's main actor until the
  /// host has saved it: prefer ``save(_:forKey:)`` from work.
  func set(_ value: ArgumentValue?, forKey key: String) throws
  /// Sets or (with nil) clears `key` as ``set(_:forKey:)`` does, suspending
  /// only the caller until it is saved: the module's other work, its events
  /// and its drawing go on meanwhile. Throws when it could not be saved. A
  /// conformer that saves in the caller's own process need not implement
  /// it: the default calls ``set(_:forKey:)``. (ViperKit 2.7)
  func save(_ value: ArgumentValue?, forKey key: String) async throws
  /// Calls `changed` with the value of `key` each time it changes, for as
  /// long as `owner` lives: in any session, by any plugin, by the person in
  /// the settings screen or with `vivarium settings`. A module that shows a
  /// setting redraws from it; observe with the role that draws (its
  /// presenter) as `owner`, so the observation ends with the module.
  /// `changed` runs on the main actor in the module's turn, never inside
  /// the module's own ``set(_:forKey:)``. A typed setting reset reads as its
  /// default (``SettingType/defaultValue``). Observing `key` again by the
  /// same `owner` replaces the earlier `changed`. (ViperKit 3.1)
  func observe(_ key: String, by owner: AnyObject, _ changed: @escaping @MainActor (ArgumentValue?) -> Void)
}

extension SettingsStore {
  /// Calls ``set(_:forKey:)``: right for a store that saves in the caller's process.
  public func save(_ value: ArgumentValue?, forKey key: String) async throws {
    try set(value, forKey: key)
  }

  /// Never calls `changed`: right for a store whose values change only
  /// through its own ``set(_:forKey:)``, as a test's fixed settings do.
  public func observe(_ key: String, by owner: AnyObject, _ changed: @escaping @MainActor (ArgumentValue?) -> Void) {}
}

/// How much a log line matters; ``allCases`` lists the levels from the
/// least to the most severe.
public enum LogLevel: String, Codable, Hashable, Sendable, Comparable, CaseIterable {
  /// Detail for whoever debugs the module.
  case debug
  /// Something normal worth recording.
  case info
  /// Something unexpected that the module handled.
  case warning
  /// Something that failed.
  case error

  /// Orders by severity.
  public static func < (lhs: LogLevel, rhs: LogLevel) -> Bool {
    allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
  }
}

/// The host's log; each line is tagged with the module's URN. Conformers are
/// the host and test harnesses.
@MainActor
public protocol ModuleLogger: AnyObject {
  /// Records `message` at `level`.
  func log(_ level: LogLevel, _ message: String)
}

/// Messages for the person, drawn by the host above the current screen.
/// Conformers are the host and test harnesses.
@MainActor
public protocol Notifier: AnyObject {
  /// A one-line notice shown until the person's next action.
  func notice(_ text: String, tone: Tone)
  /// An alert box the person must acknowledge.
  func alert(title: String, message: String)
}

/// The current time, and waiting for time to pass. Conformers are the host
/// and test harnesses. ViperKit does not depend on Foundation: make a `Date`
/// with `Date(timeIntervalSince1970: clock.now())`.
///
/// In a recorded session (`VIVARIUM_NOW` set) and in the test kit the clock
/// is virtual: it stands still until the script says time passes (`wait 5s`),
/// so a module that refreshes every 30 seconds is tested without waiting.
/// Sleep with this clock, never with `Task.sleep`, for that to work.
@MainActor
public protocol WallClock: AnyObject {
  /// Now, in seconds since 1970-01-01 00:00:00 UTC.
  func now() -> Double
  /// Returns once `seconds` have passed on this clock. Throws
  /// `CancellationError` if the work it runs in is cancelled first (when the
  /// module detaches, say).
  func sleep(for seconds: Double) async throws
  /// Returns once `seconds` have passed, as ``sleep(for:)`` does, for a
  /// wait that is not work in flight: a timer between its ticks, a poll
  /// between its looks. The host shows no spinner while a module's work
  /// waits so. ``ModuleWork/every(_:on:_:_:)`` waits with it.
  ///
  /// Conformers need not implement it: by default it sleeps.
  func wait(for seconds: Double) async throws
}

extension WallClock {
  /// Sleeps for `seconds`: a clock that does not tell waiting from work in
  /// flight waits as it sleeps.
  public func wait(for seconds: Double) async throws {
    try await sleep(for: seconds)
  }
}
