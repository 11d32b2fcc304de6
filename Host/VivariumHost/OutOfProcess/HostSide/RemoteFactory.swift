import ViperKit

/// A factory of a plugin hosted in a process of its own: the route table
/// holds it like any factory, with the contract the process reported, and
/// building asks the process (``PluginProcess/build(_:_:)``).
struct RemoteFactory: ModuleFactory {
  /// Never read: ``contract-swift.property`` is the plugin's.
  static let contract = Contract(urn: "vivarium:remote", summary: "A module built in its plugin's process.")

  let contract: Contract
  /// Its place in the plugin's factories.
  let index: Int
  let process: PluginProcess

  func build(_ context: ModuleContext) throws -> Module {
    try process.build(index, context, restoring: nil).module
  }

  /// Builds the module and gives it back `state`, its restoration state;
  /// says why when it could not take it.
  @MainActor
  func build(_ context: ModuleContext, restoring state: String?) throws -> (module: Module, restoreFailure: String?) {
    try process.build(index, context, restoring: state)
  }
}
