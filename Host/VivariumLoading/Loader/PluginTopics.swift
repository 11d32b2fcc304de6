import ViperKit

/// The topics of events a plugin publishes and subscribes to
/// (``ViperKit/ViperPlugin/publishes``, ``ViperKit/ViperPlugin/subscribes``),
/// by name, as its code or its manifest declares them.
package struct PluginTopics: Codable, Hashable, Sendable {
  /// The topics it publishes on.
  package var publishes: [String]
  /// The topics it subscribes to.
  package var subscribes: [String]

  /// Publishing on `publishes` and subscribing to `subscribes`.
  package init(publishes: [String] = [], subscribes: [String] = []) {
    self.publishes = publishes
    self.subscribes = subscribes
  }

  /// What `plugin` declares.
  package init(_ plugin: any ViperPlugin.Type) {
    self.init(publishes: plugin.publishes.map(\.topic), subscribes: plugin.subscribes.map(\.topic))
  }

  /// What `manifest` declares.
  package init(_ manifest: PluginManifest) {
    self.init(publishes: manifest.publishes.map(\.topic), subscribes: manifest.subscribes.map(\.topic))
  }

  /// Whether it declares none.
  package var isEmpty: Bool { publishes.isEmpty && subscribes.isEmpty }
}
