import ViperKit

/// What scanning a plugin file found out, without keeping any of its code
/// loaded: enough to route to its modules and list them. The plugin is
/// loaded (``PluginActivation``) only when one of its modules is built.
package struct PluginRecord: Codable, Hashable, Sendable {
  /// The name from its descriptor.
  package var name: String
  /// The SDK version it was built against.
  package var sdkVersion: ViperKitVersion
  /// Its factories' contracts, in the order of its factories.
  package var contracts: [Contract]
  /// Its own version.
  package var version: SemanticVersion
  /// The business services it provides.
  package var provides: [ServiceProvision]
  /// The hosts it may reach through the host's http service.
  package var hosts: [String]
  /// The topics of events it publishes and subscribes to.
  package var topics: PluginTopics

  /// A record of a plugin offering `contracts`, and `provides`.
  package init(
    name: String, sdkVersion: ViperKitVersion, contracts: [Contract], version: SemanticVersion = SemanticVersion(0),
    provides: [ServiceProvision] = [], hosts: [String] = [], topics: PluginTopics = PluginTopics()
  ) {
    self.name = name
    self.sdkVersion = sdkVersion
    self.contracts = contracts
    self.version = version
    self.provides = provides
    self.hosts = hosts
    self.topics = topics
  }

  /// The record of a plugin loaded into this process or a plugin process.
  init(_ plugin: LoadedPlugin) {
    self.init(
      name: plugin.name, sdkVersion: plugin.sdkVersion, contracts: plugin.contracts, version: plugin.version,
      provides: plugin.provides, hosts: plugin.hosts, topics: plugin.topics)
  }
}

/// Where the host learned what a plugin offers.
package enum ScanSource: String, Codable, Sendable {
  /// The registry cache: the file is unchanged since it was last scanned.
  case cache
  /// A probe process loaded it (with others) and reported its contracts.
  case probe
  /// It was loaded into this process (`--in-process`).
  case loaded
  /// Its manifest (``PluginManifest``): none of its code ran.
  case manifest
}
