/// A business service one plugin provides and others use, declared once as
/// a type: its name on the wire and the version of the interface it
/// describes (ViperKit 2.7). The provider and its consumers each compile
/// the same small declaration (an interface package the provider
/// publishes); what crosses between them is the name, the version and
/// `Codable` values, so they share no binary.
///
/// A conformer is a caseless enum:
///
/// ```swift
/// public enum WeatherService: ServiceInterface {
///   public static let name = "weather"
///   public static let version: SemanticVersion = "1.0"
/// }
/// ```
///
/// Raise ``version``'s major for a change that breaks consumers, its minor
/// for an addition.
public protocol ServiceInterface {
  /// The service's name, unique in an app: lowercase words, as `weather` or
  /// `items`. A plugin's manifest and every consumer's requirement carry it.
  static var name: String { get }
  /// The version of the interface this declaration describes.
  static var version: SemanticVersion { get }
}

/// What a module or a provided service needs of a business service: its
/// name, the versions it accepts, and whether it can do without it
/// (ViperKit 2.7). Made from the service's declaration, never a string:
/// `.required(WeatherService.self, "1.0"..<"2")`.
public struct ServiceRequirement: Codable, Hashable, Sendable {
  /// The service's name (``ServiceInterface/name``).
  public var service: String
  /// The versions of the service accepted.
  public var versions: VersionRange
  /// Whether the consumer works without the service: it is then absent
  /// when no plugin provides it, rather than refusing to build.
  public var isOptional: Bool

  /// A service the consumer cannot work without: with no provider in
  /// `versions`, the app is refused, naming the service.
  public static func required<Service: ServiceInterface>(
    _ service: Service.Type, _ versions: Range<SemanticVersion>
  ) -> ServiceRequirement {
    ServiceRequirement(service: Service.name, versions: VersionRange(versions), isOptional: false)
  }

  /// A service the consumer uses when some plugin provides it in `versions`.
  public static func optional<Service: ServiceInterface>(
    _ service: Service.Type, _ versions: Range<SemanticVersion>
  ) -> ServiceRequirement {
    ServiceRequirement(service: Service.name, versions: VersionRange(versions), isOptional: true)
  }

  /// A requirement as the host reads it from a manifest. Plugins use
  /// ``required(_:_:)`` and ``optional(_:_:)``.
  public init(service: String, versions: VersionRange, isOptional: Bool) {
    self.service = service
    self.versions = versions
    self.isOptional = isOptional
  }
}

/// A business service a plugin provides: the declaration it implements and
/// the services it requires in turn, as the seed's WeatherService requires
/// the API service (ViperKit 2.7). Listed in ``ViperPlugin/provides``.
public struct ServiceProvision: Codable, Hashable, Sendable {
  /// The service's name (``ServiceInterface/name``).
  public var service: String
  /// The version of the interface provided.
  public var version: SemanticVersion
  /// The business services the provider uses.
  public var requires: [ServiceRequirement]
  /// The host services the provider uses.
  public var services: [Services.Name]

  /// Provides `service` at its declaration's version, using `requires` and
  /// the host services `services`.
  public init<Service: ServiceInterface>(
    _ service: Service.Type, requires: [ServiceRequirement] = [], services: [Services.Name] = []
  ) {
    self.init(service: Service.name, version: Service.version, requires: requires, services: services)
  }

  /// A provision as the host reads it from a manifest. Plugins list
  /// ``ViperPlugin/providers`` instead.
  public init(
    service: String, version: SemanticVersion, requires: [ServiceRequirement], services: [Services.Name] = []
  ) {
    self.service = service
    self.version = version
    self.requires = requires
    self.services = services
  }

  /// Provides `service` using `requires` and no host service: the
  /// initializer of the first 2.7.0 builds.
  @_disfavoredOverload
  public init<Service: ServiceInterface>(_ service: Service.Type, requires: [ServiceRequirement] = []) {
    self.init(service, requires: requires, services: [])
  }

  /// A provision with no host service: the initializer of the first 2.7.0 builds.
  @_disfavoredOverload
  public init(service: String, version: SemanticVersion, requires: [ServiceRequirement]) {
    self.init(service: service, version: version, requires: requires, services: [])
  }

  private enum CodingKeys: String, CodingKey { case service, version, requires, services }

  /// Reads a provision; one written before ``services`` existed uses none.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    service = try container.decode(String.self, forKey: .service)
    version = try container.decode(SemanticVersion.self, forKey: .version)
    requires = try container.decode([ServiceRequirement].self, forKey: .requires)
    services = try container.decodeIfPresent([Services.Name].self, forKey: .services) ?? []
  }
}
