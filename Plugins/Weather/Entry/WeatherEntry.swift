import ViperKit
import Weather

/// The plugin's entry point, the only symbol the host looks up. The build
/// compiles the plugin's manifest in beside it (Plugins/Manifests).
@_cdecl("vivarium_plugin_entry")
public func vivariumPluginEntry() -> UnsafeRawPointer {
  PluginEntry.descriptor(for: WeatherPlugin.self)
}
