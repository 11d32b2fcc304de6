import CViperKit

/// What a plugin offers, as data the host reads without running the plugin.
///
/// A plugin carries its manifest as JSON in the ELF section
/// ``sectionName``. The host routes to a plugin it has never seen from its
/// manifest alone, loads the plugin only when one of its modules is first
/// built, and then refuses it if its code declares other contracts than its
/// manifest does. A manifest made by an earlier build is refused the same
/// way, so make it on every build: a plugin package made by `vivarium new`
/// does, with a build-tool plugin that runs a small executable calling
/// `PluginManifest.writeSourceFile(for:)` from ViperKitHosting. Compile
/// exactly one manifest into a plugin: two in one section are refused.
///
/// You do not fill these in by hand: ``init(for:)`` reads them from your
/// plugin type.
public struct PluginManifest: Codable, Hashable, Sendable {
  /// Always ``formatName``.
  public var format: String
  /// The version of this layout: ``currentVersion``.
  public var formatVersion: Int
  /// The plugin's name, as its descriptor gives it.
  public var name: String
  /// The plugin ABI version of the SDK it was built with.
  public var abiVersion: UInt32
  /// The SDK version it was built against.
  public var sdkVersion: ViperKitVersion
  /// The identity of the Swift compiler that built it (``swiftCompilerIdentity()``).
  public var compiler: String
  /// Its factories' contracts, in the order ``ViperPlugin/factories()`` gives them.
  public var contracts: [Contract]
  /// The plugin's version (``ViperPlugin/version``); `0.0.0` in manifests
  /// made before ViperKit 2.7.
  public var version: SemanticVersion
  /// The business services it provides (``ViperPlugin/provides``); none in
  /// manifests made before ViperKit 2.7.
  public var provides: [ServiceProvision]
  /// The hosts it may reach through the host's http service
  /// (``ViperPlugin/hosts``); none in manifests made before ViperKit 2.7.
  public var hosts: [String]
  /// The topics it publishes events on (``ViperPlugin/publishes``); none
  /// in manifests made before ViperKit 3.1.
  public var publishes: [EventDeclaration] = []
  /// The topics it subscribes to (``ViperPlugin/subscribes``); none in
  /// manifests made before ViperKit 3.1.
  public var subscribes: [EventDeclaration] = []

  /// The name of the ELF section a plugin carries its manifest in.
  public static let sectionName = "vivarium_manifest"
  /// The value of ``format``.
  public static let formatName = "vivarium-plugin-manifest"
  /// The layout of this SDK's manifests.
  public static let currentVersion = 1

  /// The manifest of `plugin`: its name and its factories' contracts,
  /// stamped with the ABI, the SDK version and the compiler that compile
  /// this call, as its descriptor is (``PluginEntry/descriptor(for:)``).
  /// Calls the plugin's `factories()`.
  @_alwaysEmitIntoClient
  public init<P: ViperPlugin>(for plugin: P.Type) {
    self.init(
      name: _typeName(plugin, qualified: false), contracts: plugin.factories().map { type(of: $0).contract },
      sdkVersion: ViperKitVersion(
        major: Int(VIPERKIT_VERSION_MAJOR), minor: Int(VIPERKIT_VERSION_MINOR), patch: Int(VIPERKIT_VERSION_PATCH)),
      compiler: swiftCompilerIdentity(), version: plugin.version, provides: plugin.provides, hosts: plugin.hosts)
    publishes = plugin.publishes
    subscribes = plugin.subscribes
  }

  /// A manifest with the given parts, for the host: it describes a plugin
  /// it has loaded. Plugins use ``init(for:)``.
  public init(
    name: String, contracts: [Contract], sdkVersion: ViperKitVersion, compiler: String,
    version: SemanticVersion = SemanticVersion(0), provides: [ServiceProvision] = [], hosts: [String] = []
  ) {
    format = Self.formatName
    formatVersion = Self.currentVersion
    self.name = name
    abiVersion = VK_PLUGIN_ABI_VERSION
    self.sdkVersion = sdkVersion
    self.compiler = compiler
    self.contracts = contracts
    self.version = version
    self.provides = provides
    self.hosts = hosts
  }

  /// The initializer of the first 2.7.0 builds, kept for the code built against it.
  @_disfavoredOverload
  public init(
    name: String, contracts: [Contract], sdkVersion: ViperKitVersion, compiler: String, version: SemanticVersion,
    provides: [ServiceProvision]
  ) {
    self.init(
      name: name, contracts: contracts, sdkVersion: sdkVersion, compiler: compiler, version: version,
      provides: provides, hosts: [])
  }

  /// The initializer of ViperKit 2.5 and 2.6, kept for the code built against it.
  @_disfavoredOverload
  public init(name: String, contracts: [Contract], sdkVersion: ViperKitVersion, compiler: String) {
    self.init(name: name, contracts: contracts, sdkVersion: sdkVersion, compiler: compiler, version: SemanticVersion(0))
  }

  private enum CodingKeys: String, CodingKey {
    case format, formatVersion, name, abiVersion, sdkVersion, compiler, contracts, version, provides, hosts
    case publishes, subscribes
  }

  /// Decodes a manifest; ``version``, ``provides`` and ``hosts``, which
  /// manifests made before ViperKit 2.7 lack, are `0.0.0` and none when
  /// missing, as are ``publishes`` and ``subscribes`` (3.1).
  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    format = try container.decode(String.self, forKey: .format)
    formatVersion = try container.decode(Int.self, forKey: .formatVersion)
    name = try container.decode(String.self, forKey: .name)
    abiVersion = try container.decode(UInt32.self, forKey: .abiVersion)
    sdkVersion = try container.decode(ViperKitVersion.self, forKey: .sdkVersion)
    compiler = try container.decode(String.self, forKey: .compiler)
    contracts = try container.decode([Contract].self, forKey: .contracts)
    version = try container.decodeIfPresent(SemanticVersion.self, forKey: .version) ?? SemanticVersion(0)
    provides = try container.decodeIfPresent([ServiceProvision].self, forKey: .provides) ?? []
    hosts = try container.decodeIfPresent([String].self, forKey: .hosts) ?? []
    publishes = try container.decodeIfPresent([EventDeclaration].self, forKey: .publishes) ?? []
    subscribes = try container.decodeIfPresent([EventDeclaration].self, forKey: .subscribes) ?? []
  }
}
