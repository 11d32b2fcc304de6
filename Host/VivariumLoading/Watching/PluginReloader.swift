/// Loads a rebuilt plugin file as the running host loads its plugins: in a
/// new process of its own, or, with everything in one process, from a
/// private copy (``PluginLoader/loadCopy(_:)``), checked as at load.
package struct PluginReloader: Sendable {
  /// The plugin processes' options, or nil for one process.
  package let hosting: PluginProcessOptions?

  /// A reloader for a host whose plugins run as `hosting` says.
  package init(hosting: PluginProcessOptions?) {
    self.hosting = hosting
  }

  /// The new build of `path`, loaded, or refused with the reason. Its
  /// process starts while the host goes on.
  @MainActor
  package func load(_ path: String) async -> PluginOutcome {
    guard let hosting else { return PluginLoader().loadCopy(path) }
    return await PluginSupervisor.start(path, options: hosting)
  }
}
