/// How the host starts a plugin process and the zygote, and what the
/// started process finds: its command, its socket, its memory limit. The
/// host's side (``PluginSupervisor``, ``PluginZygote``) and the plugin's side
/// (the executable's `__plugin` and `__zygote` commands) both read them here.
package enum PluginProcessLaunch {
  /// The hidden command a plugin process is started with:
  /// `vivarium __plugin FILE`.
  package static let pluginCommand = "__plugin"
  /// The hidden command the zygote, the fork server of plugin processes, is
  /// started with.
  package static let zygoteCommand = "__zygote"
  /// The environment variable holding a plugin process's memory limit in bytes.
  package static let memoryVariable = "VIVARIUM_PLUGIN_MEMORY"
  /// A zygote fork request's flag: confine the process.
  package static let confinedFlag: UInt8 = 1
  /// The zygote's argument that moves it, before its first fork, into an
  /// empty network namespace of its own, which every plugin process it
  /// forks inherits: the zygote of confined plugin processes.
  package static let ownNetworkArgument = "--own-network"
  /// Set (to 1) in a plugin process's environment when the person ran the
  /// host with `--no-sandbox`: the process does not confine itself.
  package static let unconfinedVariable = "VIVARIUM_PLUGIN_UNCONFINED"
  /// The socket's descriptor in a plugin process.
  package static let socketDescriptor: Int32 = 3
}
