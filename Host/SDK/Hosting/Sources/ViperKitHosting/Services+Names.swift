import ViperKit

/// One object that can stand in for every host service: a stand-in that
/// asks a host, or one that reports its use. A new service's protocol goes
/// here, so that every stand-in must implement it.
public typealias AnyService = KeyValueStore & SettingsStore & ModuleLogger & Notifier & WallClock & HTTPClient

/// Services by name: hosts, harnesses and plugin processes fill, list and
/// complete a container through these, which go over every
/// ``ViperKit/Services/Name`` and reach its field through the one switch
/// below, so adding a service means adding its name and its field.
extension Services {
  /// The services named in `names`, each the one `make` gives for its name.
  public init(named names: some Sequence<Name>, each make: (Name) -> any AnyService) {
    self.init()
    for name in names { name.field?.set(&self, make(name)) }
  }

  /// The names of the services it holds, in the order of ``Name``'s cases.
  public var names: [Name] { Name.allCases.filter { $0.field?.isHeld(self) == true } }

  /// These services, with `other`'s in place of each one missing.
  public func filling(_ other: Services) -> Services {
    var filled = self
    for name in Name.allCases { name.field?.fill(&filled, other) }
    filled.businessServices = businessServices ?? other.businessServices
    return filled
  }

  /// These services, with `calls` carrying calls to business services.
  public func adding(_ calls: any ServiceCalling) -> Services {
    var added = self
    added.businessServices = calls
    return added
  }
}

extension Services.Name {
  /// Its field of ``Services``: the one place a name meets its field.
  @MainActor
  fileprivate var field: ServiceField? {
    switch self {
    case .storage: ServiceField(\.storage) { $0 }
    case .settings: ServiceField(\.settings) { $0 }
    case .log: ServiceField(\.log) { $0 }
    case .notifications: ServiceField(\.notifications) { $0 }
    case .clock: ServiceField(\.clock) { $0 }
    case .http: ServiceField(\.http) { $0 }
    // A service of a ViperKit newer than this file was built with: no
    // field it knows holds it.
    @unknown default: nil
    }
  }
}

/// One field of ``Services``, whatever its type: whether a container holds
/// it, setting it to a stand-in, taking another container's.
@MainActor
private struct ServiceField {
  let isHeld: (Services) -> Bool
  let set: (inout Services, any AnyService) -> Void
  let fill: (inout Services, Services) -> Void

  /// The field at `path`, which a stand-in fills as `service` makes it.
  init<Service>(_ path: WritableKeyPath<Services, Service?>, _ service: @escaping (any AnyService) -> Service) {
    isHeld = { $0[keyPath: path] != nil }
    set = { $0[keyPath: path] = service($1) }
    fill = { services, other in
      if services[keyPath: path] == nil { services[keyPath: path] = other[keyPath: path] }
    }
  }
}
