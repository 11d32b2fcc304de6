import ViperKit

/// A plugin known from a scan (``PluginRecord``) whose code is not loaded:
/// it is loaded, into this process or into a process of its own, when one of
/// its modules is first built (VS Code and LV2 activate plugins the same way).
///
/// Loading it checks it as at any load, then checks that its contracts are
/// the ones the scan recorded: a plugin whose code now declares other
/// contracts than its registry entry is refused, naming both, and so is
/// every later build of its modules.
@MainActor
package final class PluginActivation {
  /// The plugin file.
  package let path: String
  /// What the scan recorded.
  package let record: PluginRecord
  /// Where the record came from.
  package let source: ScanSource
  private let hosting: PluginProcessOptions?
  /// Whether the plugin is loaded in a process of its own.
  nonisolated var runsApart: Bool { hosting != nil }
  private let loader: PluginLoader
  /// The loaded plugin, once it is.
  package private(set) var plugin: LoadedPlugin?
  /// Why it could not be loaded, once it was tried.
  package private(set) var failure: Rejection?

  /// A plugin to load with `loader`, or with `hosting` in a process of its own.
  nonisolated init(
    path: String, record: PluginRecord, source: ScanSource, hosting: PluginProcessOptions?, loader: PluginLoader
  ) {
    self.path = path
    self.record = record
    self.source = source
    self.hosting = hosting
    self.loader = loader
  }

  /// The process hosting the plugin, once it runs in one.
  package var process: PluginSupervisor? { plugin?.process }

  /// Where the module at `index` of the loaded plugin comes from (its
  /// factory in this process, or the plugin's process), loading the plugin
  /// first if need be; throws why the plugin cannot be loaded.
  /// Out of process, the host goes on while the plugin loads: only the
  /// caller waits.
  package func source(at index: Int) async throws(Rejection) -> ModuleSource {
    try await load().modules[index]
  }

  /// The plugin, loaded into this process or started in its own if it is
  /// not yet; throws why it cannot be loaded.
  package func load() async throws(Rejection) -> LoadedPlugin {
    if let failure { throw failure }
    if let plugin { return plugin }
    let outcome: PluginOutcome
    if let hosting {
      outcome = await PluginSupervisor.start(path, options: hosting)
      // Another build of one of its modules may have loaded it meanwhile.
      if let plugin {
        if case .loaded(let extra) = outcome { extra.process?.terminate() }
        return plugin
      }
    } else {
      outcome = loader.load(path)
    }
    switch outcome {
    case .rejected(let rejection):
      failure = rejection
      throw rejection
    case .loaded(let loaded):
      let contracts = loaded.contracts
      if let disagreement = ContractDisagreement(
        path: path, recorded: record.contracts, loaded: contracts, source: source)
      {
        loaded.process?.terminate()
        failure = disagreement.rejection
        throw disagreement.rejection
      }
      plugin = loaded
      return loaded
    }
  }
}

extension LoadedPlugin {
  /// The process hosting the plugin, if it runs in one: started at load, or
  /// when one of its modules was first built.
  @MainActor package var runningProcess: PluginSupervisor? { process ?? activation?.process }

  /// Whether the plugin runs in a process of its own, or will once one of
  /// its modules is needed; false when it runs in the host's.
  package var runsApart: Bool { process != nil || activation?.runsApart == true }
}
