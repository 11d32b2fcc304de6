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
public final class PluginActivation {
  /// The plugin file.
  public let path: String
  /// What the scan recorded.
  public let record: PluginRecord
  /// Where the record came from.
  public let source: ScanSource
  private let hosting: PluginProcessOptions?
  private let loader: PluginLoader
  /// The loaded plugin, once it is.
  public private(set) var plugin: LoadedPlugin?
  /// Why it could not be loaded, once it was tried.
  public private(set) var failure: Rejection?

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
  public var process: PluginProcess? { plugin?.process }

  /// The factory at `index` of the loaded plugin, loading it first if need
  /// be; throws why the plugin cannot be loaded.
  func factory(at index: Int) throws(Rejection) -> any ModuleFactory {
    if let failure { throw failure }
    if let plugin { return plugin.factories[index] }
    let outcome = hosting.map { PluginProcess.startAll([path], options: $0)[0] } ?? loader.load(path)
    switch outcome {
    case .rejected(let rejection):
      failure = rejection
      throw rejection
    case .loaded(let loaded):
      let contracts = loaded.factories.map(\.contract)
      if let disagreement = ContractDisagreement(
        path: path, recorded: record.contracts, loaded: contracts, source: source)
      {
        loaded.process?.terminate()
        failure = disagreement.rejection
        throw disagreement.rejection
      }
      plugin = loaded
      return loaded.factories[index]
    }
  }
}

/// A factory of a plugin that is not loaded yet: the route table holds it
/// with the contract the scan recorded, and building asks the plugin's
/// ``PluginActivation`` for the real factory.
struct LazyFactory: ModuleFactory {
  /// Never read: ``contract-swift.property`` is the plugin's.
  static let contract = Contract(urn: "vivarium:lazy", summary: "A module of a plugin loaded when first needed.")

  let contract: Contract
  /// Its place in the plugin's factories.
  let index: Int
  let activation: PluginActivation

  func build(_ context: ModuleContext) throws -> Module {
    try loaded().build(context)
  }

  /// The plugin's own factory, loading the plugin if it is not yet.
  @MainActor func loaded() throws(Rejection) -> any ModuleFactory {
    try activation.factory(at: index)
  }
}

extension LoadedPlugin {
  /// The process hosting the plugin, if it runs in one: started at load, or
  /// when one of its modules was first built.
  @MainActor var runningProcess: PluginProcess? { process ?? activation?.process }
}
