import ViperKit
import VivariumLoading
import VivariumSupport

/// What `vivarium services` prints: each business service the loaded
/// plugins provide (name, version, provider, consumers and the versions they
/// accept) and what resolving them found (``ServiceGraph``), from the
/// plugins' manifests and records alone.
public struct ServicesReport: Encodable, Sendable {
  /// One provided service.
  public struct Service: Encodable, Sendable {
    /// Its name.
    public let name: String
    /// The version of its interface provided.
    public let version: String
    /// The plugin providing it.
    public let provider: String
    /// The providing plugin's own version.
    public let providerVersion: String
    /// What the provider requires in turn: `api 2.0.0..<3.0.0`.
    public let requires: [String]
    /// Who uses it.
    public let consumers: [Consumer]
  }

  /// One use of a service.
  public struct Consumer: Encodable, Sendable {
    /// The plugin using it.
    public let plugin: String
    /// `module URN` or `service NAME`.
    public let user: String
    /// The versions accepted, `1.0.0..<2.0.0`.
    public let versions: String
    /// Whether the user runs without it.
    public let optional: Bool
  }

  /// One finding: a stable id (`service.missing`), the service, a message
  /// naming the plugins on both sides and what to do, and whether the app
  /// cannot run as it is.
  public struct Finding: Encodable, Sendable {
    /// The stable id, `service.missing`.
    public let id: String
    /// The service it concerns.
    public let service: String
    /// What is wrong, naming the plugins on both sides, and what to do.
    public let message: String
    /// Whether the app cannot run as it is (false for a note).
    public let error: Bool
  }

  /// Every service provided, by name.
  public let services: [Service]
  /// What resolving them found, errors and notes.
  public let findings: [Finding]

  /// Whether any finding makes the app unable to run as it is.
  public var hasErrors: Bool { findings.contains(where: \.error) }

  /// The services of the plugins `catalog` loaded; `chosen` names, by
  /// service, the provider to use when several plugins provide it.
  public init(catalog: PluginCatalog, chosen: [String: String] = [:]) {
    let graph = ServiceGraph.resolve(
      catalog.loaded.map {
        ServiceGraph.Plugin(name: $0.name, version: $0.version, provides: $0.provides, contracts: $0.contracts)
      }, chosen: chosen)
    services = graph.services.map { service in
      Service(
        name: service.name, version: service.version.description, provider: service.provider,
        providerVersion: service.providerVersion.description,
        requires: service.requires.map { "\($0.service) \($0.versions)\($0.isOptional ? " (optional)" : "")" },
        consumers: service.consumers.map {
          Consumer(plugin: $0.plugin, user: $0.user, versions: $0.versions.description, optional: $0.isOptional)
        })
    }
    findings = graph.findings.map {
      Finding(id: $0.id.rawValue, service: $0.service, message: $0.message, error: $0.isError)
    }
  }

  /// The services as terminal text, `width` columns wide; what plugins
  /// wrote is shown with control characters escaped.
  public func text(style: TextStyle, width: Int = 80) -> String {
    var lines: [String] = []
    for service in services {
      lines.append(
        style.bold("\(service.name.oneLineVisible) \(service.version)") + "  "
          + style.dim("provided by \(service.provider.oneLineVisible) \(service.providerVersion)"))
      for required in service.requires { lines += wrapped("requires \(required)", width) }
      if service.consumers.isEmpty { lines += wrapped("used by nothing loaded", width) }
      for consumer in service.consumers {
        lines += wrapped(
          "used by \(consumer.plugin) (\(consumer.user)), \(consumer.versions)\(consumer.optional ? ", optional" : "")",
          width)
      }
    }
    if services.isEmpty { lines.append("No plugin loaded provides a service.") }
    for finding in findings {
      let label = finding.error ? style.tone(.negative, "error") : style.dim("note")
      let text = TextRenderer.wrap("\(finding.id): \(finding.message)".oneLineVisible, width: max(width - 7, 20))
      lines += text.enumerated().map { ($0.offset == 0 ? label + ": " : "       ") + $0.element }
    }
    lines.append(
      Plural.count(services.count, "service") + ", "
        + Plural.count(findings.filter(\.error).count, "error"))
    return lines.joined(separator: "\n")
  }

  private func wrapped(_ text: String, _ width: Int) -> [String] {
    TextRenderer.wrap(text.oneLineVisible, width: max(width - 6, 20)).enumerated().map {
      ($0.offset == 0 ? "    " : "      ") + $0.element
    }
  }
}
