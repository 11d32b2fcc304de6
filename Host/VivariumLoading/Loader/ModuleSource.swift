import ViperKit

/// Where the host gets one module of a plugin from, with the contract it
/// builds to: a factory in this process, a plugin's own process, or a plugin
/// known from a scan and loaded when the module is first built. Host
/// machinery: a plugin only ever writes ``ModuleFactory``s.
package enum ModuleSource: Sendable {
  /// A factory of a plugin loaded into this process.
  case factory(any ModuleFactory)
  /// The module at `index` of the plugin hosted by `process`, with the
  /// contract the process reported.
  case process(PluginSupervisor, index: Int, Contract)
  /// The module at `index` of a plugin not loaded yet, with the contract
  /// the scan recorded: `activation` loads the plugin when it is first built.
  case activation(PluginActivation, index: Int, Contract)

  /// The contract of the module it builds.
  package var contract: Contract {
    switch self {
    case .factory(let factory): factory.contract
    case .process(_, _, let contract), .activation(_, _, let contract): contract
    }
  }

  /// The factory, when the module is built in this process.
  package var factory: (any ModuleFactory)? {
    if case .factory(let factory) = self { factory } else { nil }
  }
}
