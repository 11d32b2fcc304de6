import ViperKit

/// The business services of an app, resolved from the plugins' manifests
/// before any plugin code runs: which plugin provides each service, who
/// uses it at which versions, and what is wrong (``ServiceFinding``): a
/// missing provider, a provider out of the range asked for, services that
/// require each other in a cycle, two providers of one service.
package struct ServiceGraph: Sendable, Equatable {
  /// What one plugin's manifest says about services.
  package struct Plugin: Sendable {
    package var name: String
    package var version: SemanticVersion
    package var provides: [ServiceProvision]
    package var contracts: [Contract]

    package init(name: String, version: SemanticVersion, provides: [ServiceProvision], contracts: [Contract]) {
      self.name = name
      self.version = version
      self.provides = provides
      self.contracts = contracts
    }
  }

  /// What uses a service: a module (its URN pattern) or a provided service.
  package enum User: Sendable, Equatable, Encodable, CustomStringConvertible {
    case module(String)
    case service(String)

    /// `module URN` or `service NAME`.
    package var description: String {
      switch self {
      case .module(let urn): "module \(urn)"
      case .service(let name): "service \(name)"
      }
    }

    /// Encoded as its ``description``.
    package func encode(to encoder: any Encoder) throws {
      var container = encoder.singleValueContainer()
      try container.encode(description)
    }
  }

  /// One use of a service: by a module (its URN pattern) or by a service
  /// another plugin provides.
  package struct Consumer: Sendable, Equatable, Encodable {
    /// The plugin that uses it.
    package var plugin: String
    /// What in the plugin uses it.
    package var user: User
    /// The versions accepted.
    package var versions: VersionRange
    /// Whether the user runs without the service.
    package var isOptional: Bool

    private enum CodingKeys: String, CodingKey {
      case plugin, user, versions
      case isOptional = "optional"
    }

    /// `the module items:list of ItemsList`, for messages.
    package var described: String { "the \(user) of \(plugin)" }
  }

  /// A service provided in the app, and who uses it.
  package struct Service: Sendable, Equatable, Encodable {
    package var name: String
    package var version: SemanticVersion
    /// The plugin that provides it (the one the app chose, when several do).
    package var provider: String
    package var providerVersion: SemanticVersion
    /// What the provider requires in turn.
    package var requires: [ServiceRequirement]
    /// The host services the provider uses.
    package var hostServices: [Services.Name]
    package var consumers: [Consumer]
  }

  /// Every service provided, by name.
  package var services: [Service]
  /// The uses of services no plugin provides (or that two provide), by name.
  package var unprovided: [String: [Consumer]]
  /// What is wrong or worth knowing, in a stable order.
  package var findings: [ServiceFinding]

  /// A plugin's offer of a service.
  private struct Offer {
    let plugin: String
    let pluginVersion: SemanticVersion
    let provision: ServiceProvision
  }

  /// Resolves `plugins`' services. `chosen` names, by service, the plugin
  /// that provides it when several do (the app manifest's choice).
  package static func resolve(_ plugins: [Plugin], chosen: [String: String] = [:]) -> ServiceGraph {
    var findings: [ServiceFinding] = []
    // Providers, by service.
    var offered: [String: [Offer]] = [:]
    for plugin in plugins {
      for provision in plugin.provides {
        offered[provision.service, default: []].append(
          Offer(plugin: plugin.name, pluginVersion: plugin.version, provision: provision))
      }
    }
    var providers: [String: Offer] = [:]
    for (service, candidates) in offered {
      if candidates.count == 1 {
        providers[service] = candidates[0]
        continue
      }
      if let name = chosen[service], let pick = candidates.first(where: { $0.plugin == name }) {
        providers[service] = pick
        continue
      }
      let names = candidates.map { "\($0.plugin) (\($0.provision.version))" }.sorted()
      findings.append(
        ServiceFinding(
          .twoProviders, service: service, plugins: candidates.map(\.plugin).sorted(),
          "\(names.count) plugins provide the service '\(service)': \(names.joined(separator: ", ")); "
            + "name the one to use under \"providers\" in the app manifest (vivarium-app.json)"))
    }
    for (service, name) in chosen where !(offered[service] ?? []).contains(where: { $0.plugin == name }) {
      findings.append(
        ServiceFinding(
          .unknownChoice, service: service, plugins: [name],
          "the app manifest chooses \(name) to provide the service '\(service)', but \(name) does not provide it; "
            + "name a plugin that does, or remove the choice"))
    }

    // Every use, checked against its provider.
    var consumers: [String: [Consumer]] = [:]
    for plugin in plugins {
      let uses =
        plugin.contracts.flatMap { contract in contract.requires.map { (User.module(contract.urn), $0) } }
        + plugin.provides.flatMap { provision in provision.requires.map { (User.service(provision.service), $0) } }
      for (user, requirement) in uses {
        let consumer = Consumer(
          plugin: plugin.name, user: user, versions: requirement.versions, isOptional: requirement.isOptional)
        consumers[requirement.service, default: []].append(consumer)
        findings += check(consumer, of: requirement.service, against: providers[requirement.service], offered: offered)
      }
    }
    findings += cycles(among: providers)

    var graph = ServiceGraph(services: [], unprovided: consumers.filter { providers[$0.key] == nil }, findings: [])
    let services = providers.map { service, provider in
      Service(
        name: service, version: provider.provision.version, provider: provider.plugin,
        providerVersion: provider.pluginVersion, requires: provider.provision.requires,
        hostServices: provider.provision.services, consumers: consumers[service] ?? [])
    }
    graph.services = services.sorted { $0.name < $1.name }
    graph.findings = findings.sorted {
      ($0.service, $0.id.rawValue, $0.message) < ($1.service, $1.id.rawValue, $1.message)
    }
    return graph
  }

  /// Why the module `urn` of `plugin` cannot be built: a service it
  /// requires (not optionally) has no usable provider; nil when every one has.
  package func refusal(ofModule urn: String, in plugin: String, requiring requires: [ServiceRequirement]) -> String? {
    for requirement in requires where !requirement.isOptional {
      let found = findings.first { finding in
        finding.isError && finding.service == requirement.service
          && (finding.user == nil || (finding.user == .module(urn) && finding.plugins.first == plugin))
      }
      if let found { return found.message }
    }
    return nil
  }

  /// What is wrong with `consumer`'s use of `service`, provided by `provider`.
  private static func check(
    _ consumer: Consumer, of service: String, against provider: Offer?,
    offered: [String: [Offer]]
  ) -> [ServiceFinding] {
    // Written only for a finding: most uses have none.
    var asked: String {
      "\(consumer.described) \(consumer.isOptional ? "can use" : "requires") the service '\(service)' \(consumer.versions)"
    }
    guard let provider else {
      // Two providers and no choice is reported once, for the service.
      guard offered[service] == nil else { return [] }
      if consumer.isOptional {
        return [
          ServiceFinding(
            .optionalAbsent, service: service, plugins: [consumer.plugin], user: consumer.user,
            "\(asked), which no plugin provides: it runs without it")
        ]
      }
      return [
        ServiceFinding(
          .missing, service: service, plugins: [consumer.plugin], user: consumer.user,
          "\(asked), which no plugin provides; add a plugin that provides it, or make the requirement optional")
      ]
    }
    guard consumer.versions.contains(provider.provision.version) else {
      return [
        ServiceFinding(
          .outOfRange, service: service, plugins: [consumer.plugin, provider.plugin], user: consumer.user,
          "\(asked), but \(provider.plugin) \(provider.pluginVersion) provides version \(provider.provision.version); "
            + "use a version of \(provider.plugin) in range, or change the range \(consumer.plugin) accepts")
      ]
    }
    return []
  }

  /// Services whose providers require each other, each cycle once.
  private static func cycles(among providers: [String: Offer])
    -> [ServiceFinding]
  {
    enum Mark { case visiting, done }
    var marks: [String: Mark] = [:]
    let edges = providers.mapValues { $0.provision.requires.map(\.service) }
    var findings: [ServiceFinding] = []
    for start in providers.keys.sorted() where marks[start] == nil {
      // Depth first, without recursion: the path, and each one's next requirement.
      var path: [(service: String, next: Int)] = [(start, 0)]
      marks[start] = .visiting
      while let (service, next) = path.last {
        let requires = edges[service] ?? []
        guard next < requires.count else {
          marks[service] = .done
          path.removeLast()
          continue
        }
        path[path.count - 1].next += 1
        let required = requires[next]
        switch marks[required] {
        case .visiting:
          let loop = path.map(\.service).drop { $0 != required } + [required]
          let plugins = Set(loop.compactMap { providers[$0]?.plugin }).sorted()
          findings.append(
            ServiceFinding(
              .cycle, service: required, plugins: plugins,
              "the services \(loop.joined(separator: " → ")) require each other (provided by \(plugins.joined(separator: ", "))); "
                + "a service cannot require, directly or through others, itself: break the cycle"))
        case .done: continue
        case nil:
          guard providers[required] != nil else { continue }
          marks[required] = .visiting
          path.append((required, 0))
        }
      }
    }
    return findings
  }
}

/// What resolving an app's services found: a stable ``id``, the service it
/// concerns, and a message naming the plugins on both sides and what to do.
package struct ServiceFinding: Sendable, Equatable, Encodable {
  /// Stable names of what was found.
  package enum ID: String, Sendable, Encodable, CaseIterable {
    /// A required service no plugin provides.
    case missing = "service.missing"
    /// The provider's version is outside the range a consumer accepts.
    case outOfRange = "service.out-of-range"
    /// Services whose providers require each other.
    case cycle = "service.cycle"
    /// Several plugins provide one service, and the app chose none.
    case twoProviders = "service.two-providers"
    /// The app manifest chooses a provider that does not provide the service.
    case unknownChoice = "service.unknown-choice"
    /// An optional service no plugin provides: the consumer runs without it.
    case optionalAbsent = "service.optional-absent"

    /// What it means, for lists of finding names.
    package var meaning: String {
      switch self {
      case .missing: "a required business service no plugin provides"
      case .outOfRange: "a business service's provider is outside the versions a consumer accepts"
      case .cycle: "business services whose providers require each other"
      case .twoProviders: "several plugins provide one business service and the app manifest chooses none"
      case .unknownChoice: "the app manifest chooses a provider that does not provide the service"
      case .optionalAbsent: "a note: an optional business service no plugin provides"
      }
    }
  }

  package var id: ID
  package var service: String
  package var message: String
  /// The plugins involved, the one that declares the requirement (or the
  /// choice) first.
  package var plugins: [String]
  /// For a finding about one use: what uses the service (`module URN`).
  package var user: ServiceGraph.User?
  /// Whether the app cannot run as it is: all but an optional service absent.
  package var isError: Bool { id != .optionalAbsent }

  private enum CodingKeys: String, CodingKey { case id, service, message, plugins, user, error }

  /// Its fields, and `error` (``isError``), for `--json`.
  package func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(id, forKey: .id)
    try container.encode(service, forKey: .service)
    try container.encode(message, forKey: .message)
    try container.encode(plugins, forKey: .plugins)
    try container.encodeIfPresent(user, forKey: .user)
    try container.encode(isError, forKey: .error)
  }

  init(_ id: ID, service: String, plugins: [String], user: ServiceGraph.User? = nil, _ message: String) {
    self.id = id
    self.service = service
    self.plugins = plugins
    self.user = user
    self.message = message
  }
}

extension PluginCatalog {
  /// The business services of the loaded plugins, resolved; `chosen` names,
  /// by service, the plugin to use when several provide it.
  package func services(chosen: [String: String] = [:]) -> ServiceGraph {
    ServiceGraph.resolve(
      loaded.map {
        ServiceGraph.Plugin(name: $0.name, version: $0.version, provides: $0.provides, contracts: $0.contracts)
      }, chosen: chosen)
  }
}
