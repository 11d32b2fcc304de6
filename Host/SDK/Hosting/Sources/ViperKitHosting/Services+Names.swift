import ViperKit

/// One object that can stand in for every service: a stand-in that asks a
/// host, or one that reports its use.
public typealias AnyService = KeyValueStore & SettingsStore & ModuleLogger & Notifier & WallClock & HTTPClient

/// The one place where a service's name (``Services/Name``) meets its field
/// of ``Services``: hosts, harnesses and plugin processes build, list and
/// fill services through these, so adding a service means adding it here.
extension Services {
  /// The services named in `names`, each made by its closure only when it is
  /// named.
  public init(
    named names: Set<String>, storage: () -> (any KeyValueStore)?, settings: () -> (any SettingsStore)?,
    log: () -> (any ModuleLogger)?, notifications: () -> (any Notifier)?, clock: () -> (any WallClock)?,
    http: () -> (any HTTPClient)?
  ) {
    self.init(
      storage: names.contains(Name.storage) ? storage() : nil,
      settings: names.contains(Name.settings) ? settings() : nil,
      log: names.contains(Name.log) ? log() : nil,
      notifications: names.contains(Name.notifications) ? notifications() : nil,
      clock: names.contains(Name.clock) ? clock() : nil,
      http: names.contains(Name.http) ? http() : nil)
  }

  /// The services named in `names`, each one `make` gives for its name.
  public init(named names: Set<String>, each make: (String) -> any AnyService) {
    self.init(
      named: names, storage: { make(Name.storage) }, settings: { make(Name.settings) }, log: { make(Name.log) },
      notifications: { make(Name.notifications) }, clock: { make(Name.clock) }, http: { make(Name.http) })
  }

  /// The names of the services it holds, in the order of the fields.
  public var names: [String] {
    let held: [(String, Any?)] = [
      (Name.storage, storage), (Name.settings, settings), (Name.log, log), (Name.notifications, notifications),
      (Name.clock, clock), (Name.http, http),
    ]
    return held.filter { $0.1 != nil }.map(\.0)
  }

  /// These services, with `other`'s in place of each one missing.
  public func filling(_ other: Services) -> Services {
    Services(
      storage: storage ?? other.storage, settings: settings ?? other.settings, log: log ?? other.log,
      notifications: notifications ?? other.notifications, clock: clock ?? other.clock, http: http ?? other.http,
      businessServices: businessServices ?? other.businessServices)
  }

  /// These services, with `calls` carrying calls to business services.
  public func adding(_ calls: any ServiceCalling) -> Services {
    Services(
      storage: storage, settings: settings, log: log, notifications: notifications, clock: clock, http: http,
      businessServices: calls)
  }
}
