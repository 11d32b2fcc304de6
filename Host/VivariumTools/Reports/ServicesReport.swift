import ViperKit
import VivariumLoading
import VivariumSupport

/// What `vivarium services` prints: each business service the loaded
/// plugins provide (name, version, provider, what it requires, consumers
/// and the versions they accept) and what resolving them found
/// (``ServiceGraph``), from the plugins' manifests and records alone.
package struct ServicesReport: Encodable, Sendable {
  /// Every service provided, by name.
  package let services: [ServiceGraph.Service]
  /// What resolving them found, errors and notes, each with a stable id.
  package let findings: [ServiceFinding]
  /// Every topic of events a loaded plugin publishes or subscribes to, by name.
  package let topics: [Topic]

  /// One topic of events, and the plugins publishing on it and subscribing to it.
  package struct Topic: Encodable, Sendable, Equatable {
    /// Its name.
    package let name: String
    /// The plugins that publish on it, by name.
    package let publishers: [String]
    /// The plugins that subscribe to it, by name.
    package let subscribers: [String]
  }

  /// Whether any finding makes the app unable to run as it is.
  package var hasErrors: Bool { findings.contains(where: \.isError) }

  /// The services of the plugins `catalog` loaded; `chosen` names, by
  /// service, the provider to use when several plugins provide it.
  package init(catalog: PluginCatalog, chosen: [String: String] = [:]) {
    let graph = catalog.services(chosen: chosen)
    (services, findings) = (graph.services, graph.findings)
    let plugins = catalog.loaded
    let names = Set(plugins.flatMap { $0.topics.publishes + $0.topics.subscribes })
    topics = names.sorted().map { name in
      Topic(
        name: name, publishers: plugins.filter { $0.topics.publishes.contains(name) }.map(\.name),
        subscribers: plugins.filter { $0.topics.subscribes.contains(name) }.map(\.name))
    }
  }

  /// The services as terminal text, `width` columns wide; what plugins
  /// wrote is shown with control characters escaped.
  package func text(style: TextStyle, width: Int = 80) -> String {
    var lines: [String] = []
    for service in services {
      lines.append(
        style.bold("\(service.name.oneLineVisible) \(service.version)") + "  "
          + style.dim("provided by \(service.provider.oneLineVisible) \(service.providerVersion)"))
      if !service.hostServices.isEmpty {
        lines += wrapped("uses the host's \(service.hostServices.map(\.rawValue).joined(separator: ", "))", width)
      }
      for required in service.requires {
        lines += wrapped(
          "requires \(required.service) \(required.versions)\(required.isOptional ? " (optional)" : "")", width)
      }
      if service.consumers.isEmpty { lines += wrapped("used by nothing loaded", width) }
      for consumer in service.consumers {
        lines += wrapped(
          "used by \(consumer.plugin) (\(consumer.user)), \(consumer.versions)\(consumer.isOptional ? ", optional" : "")",
          width)
      }
    }
    if services.isEmpty { lines.append("No plugin loaded provides a service.") }
    for topic in topics {
      lines.append(style.bold("event \(topic.name.oneLineVisible)"))
      let list = { (names: [String]) in names.isEmpty ? "nothing loaded" : names.joined(separator: ", ") }
      lines += wrapped("published by \(list(topic.publishers))", width)
      lines += wrapped("subscribed to by \(list(topic.subscribers))", width)
    }
    for finding in findings {
      let label = finding.isError ? style.tone(.negative, "error") : style.dim("note")
      let text = TextRenderer.wrap(
        "\(finding.id.rawValue): \(finding.message)".oneLineVisible, width: max(width - 7, 20))
      lines += text.enumerated().map { ($0.offset == 0 ? label + ": " : "       ") + $0.element }
    }
    lines.append(
      Plural.count(services.count, "service") + ", " + Plural.count(topics.count, "topic") + ", "
        + Plural.count(findings.filter(\.isError).count, "error"))
    return lines.joined(separator: "\n")
  }

  private func wrapped(_ text: String, _ width: Int) -> [String] {
    TextRenderer.wrap(text.oneLineVisible, width: max(width - 6, 20)).enumerated().map {
      ($0.offset == 0 ? "    " : "      ") + $0.element
    }
  }
}
