import ViperKit

/// What a module in a plugin process reaches the host's runtime through:
/// its requests (``HostLink``) and what only the host's side of a plugin
/// process can tell. The runtime implements it for each module it builds;
/// this layer only calls it, so loading never depends on the runtime.
@MainActor
package protocol RemoteModuleLink: HostLink {
  /// The module's plugin process ended; `failure` is its summary
  /// (``PluginFailure/summary``).
  func moduleFailed(_ failure: String)
  /// The module's restoration state changed.
  func stateChanged()
  /// The person asked to restart the module's plugin.
  func restartPlugin()
  /// The person asked to turn on the plugin `name`, turned off.
  func turnOn(_ name: String)
  /// Role objects of the module, named in `roles`, outlived its detach.
  func reportLeak(_ roles: [String])
}
