/// Loads a rebuilt plugin file as the running host loads its plugins: in a
/// new process of its own, or, with everything in one process, from a
/// private copy (``PluginLoader/loadCopy(_:)``), checked as at load.
public struct PluginReloader: Sendable {
  /// The plugin processes' options, or nil for one process.
  public let hosting: PluginProcessOptions?

  /// A reloader for a host whose plugins run as `hosting` says.
  public init(hosting: PluginProcessOptions?) {
    self.hosting = hosting
  }

  /// The new build of `path`, loaded, or refused with the reason. Its
  /// process starts while the host goes on.
  @MainActor
  public func load(_ path: String) async -> PluginOutcome {
    guard let hosting else { return PluginLoader().loadCopy(path) }
    return await PluginProcess.start(path, options: hosting)
  }
}
