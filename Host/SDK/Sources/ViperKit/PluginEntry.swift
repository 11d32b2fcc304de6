import CViperKit

/// The one type a plugin declares to offer its modules to the host.
///
/// Conform a caseless `enum` and return one factory per module the plugin
/// offers. The host calls ``factories()`` once, after it has checked the
/// plugin's descriptor, and never unloads the plugin. Export its descriptor
/// from one C function, in the target the plugin's dynamic library builds
/// (in a `vivarium new` package, `NAMEEntryPoint`; the module's code and the
/// manifest tool are other targets, and must not define it again):
///
/// ```swift
/// public enum ItemsListPlugin: ViperPlugin {
///   public static func factories() -> [any ModuleFactory] { [ItemsListFactory()] }
/// }
///
/// // In the entry-point target:
/// @_cdecl("vivarium_plugin_entry")
/// public func vivariumPluginEntry() -> UnsafeRawPointer {
///   PluginEntry.descriptor(for: ItemsListPlugin.self)
/// }
/// ```
public protocol ViperPlugin {
  /// A short name for reports; defaults to the conforming type's name.
  static var name: String { get }

  /// The plugin's factories, one per module. Must not be empty, must not
  /// trap, and should do no work beyond creating the factory values.
  static func factories() -> [any ModuleFactory]

  /// The plugin's semantic version (ViperKit 2.7): raised with each
  /// release; other plugins depend on the services it provides by version.
  /// Defaults to `0.0.0`, a plugin not versioned yet.
  static var version: SemanticVersion { get }

  /// The implementations of the business services the plugin provides,
  /// one per service (ViperKit 2.7). Defaults to none.
  static var providers: [any ServiceProvider.Type] { get }

  /// The hosts the plugin's modules and providers may reach through the
  /// host's `http` service (ViperKit 2.7): `api.example.com`, or
  /// `*.example.com` for its subdomains. A request to any other host is
  /// refused. Defaults to none.
  static var hosts: [String] { get }

  /// The topics the plugin's modules and providers publish events on
  /// (ViperKit 3.1): `[EventDeclaration(BalanceChanged.self)]`. Defaults to none.
  static var publishes: [EventDeclaration] { get }

  /// The topics the plugin's modules and providers subscribe to (ViperKit
  /// 3.1). Defaults to none.
  static var subscribes: [EventDeclaration] { get }
}

extension ViperPlugin {
  /// The conforming type's name, for example `ItemsListPlugin`.
  public static var name: String { _typeName(Self.self, qualified: false) }

  /// `0.0.0`: a plugin not versioned yet.
  public static var version: SemanticVersion { SemanticVersion(0) }

  /// The business services the plugin provides to other plugins, each
  /// with the services it requires: what each of ``providers`` provides.
  /// Not a requirement (ViperKit 3.0): it always follows ``providers``.
  public static var provides: [ServiceProvision] { providers.map { $0.provision } }

  /// None: the plugin provides screens only.
  public static var providers: [any ServiceProvider.Type] { [] }

  /// None: the plugin reaches no host.
  public static var hosts: [String] { [] }

  /// None: the plugin publishes no event.
  public static var publishes: [EventDeclaration] { [] }

  /// None: the plugin subscribes to no event.
  public static var subscribes: [EventDeclaration] { [] }
}

/// Builds the descriptor a plugin's `vivarium_plugin_entry` symbol returns.
public enum PluginEntry {
  /// Returns a descriptor for `plugin`, stamped with the SDK version and the
  /// compiler identity this plugin is being compiled with.
  ///
  /// Call it from the plugin's only exported C function:
  /// `@_cdecl("vivarium_plugin_entry") public func vivariumPluginEntry() -> UnsafeRawPointer`.
  /// The function must be `public`, or the host cannot find it. The host
  /// calls it once per load; each call allocates a descriptor that lives
  /// for the rest of the process.
  @_alwaysEmitIntoClient
  public static func descriptor<P: ViperPlugin>(for plugin: P.Type) -> UnsafeRawPointer {
    let descriptor = UnsafeMutablePointer<VKPluginDescriptor>.allocate(capacity: 1)
    descriptor.initialize(
      to: VKPluginDescriptor(
        magic: VK_PLUGIN_MAGIC,
        abi_version: VK_PLUGIN_ABI_VERSION,
        sdk_major: UInt32(VIPERKIT_VERSION_MAJOR),
        sdk_minor: UInt32(VIPERKIT_VERSION_MINOR),
        sdk_patch: UInt32(VIPERKIT_VERSION_PATCH),
        reserved: 0,
        swift_compiler: _permanentCString(swiftCompilerIdentity()),
        // The name String(describing:) gives a type, without its search of every
        // loaded image for a conformance to CustomStringConvertible and the like,
        // which no metatype has: with many plugins that search was most of loading.
        plugin_name: _permanentCString(_typeName(plugin, qualified: false)),
        plugin_type: unsafeBitCast(plugin as Any.Type, to: UnsafeRawPointer.self)))
    return UnsafeRawPointer(descriptor)
  }

  /// Copies `string` into memory that is never freed. Internal to
  /// ``descriptor(for:)``.
  @_alwaysEmitIntoClient
  public static func _permanentCString(_ string: String) -> UnsafePointer<CChar> {
    let utf8 = Array(string.utf8CString)
    let copy = UnsafeMutablePointer<CChar>.allocate(capacity: utf8.count)
    copy.initialize(from: utf8, count: utf8.count)
    return UnsafePointer(copy)
  }

  /// Turns a descriptor's `plugin_type` back into the plugin type. For the
  /// host; returns nil when the pointer is not a `ViperPlugin` type of this
  /// process's ViperKit.
  public static func pluginType(from pointer: UnsafeRawPointer) -> (any ViperPlugin.Type)? {
    let type = unsafeBitCast(pointer, to: Any.Type.self)
    return type as? any ViperPlugin.Type
  }
}
