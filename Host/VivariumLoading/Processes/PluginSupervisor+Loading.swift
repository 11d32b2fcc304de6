import Foundation
import Glibc
import ViperKit

extension PluginSupervisor {
  /// Checks each of `paths` as ``PluginLoader`` does before running any of
  /// its code, then starts a process for each, all at once, each with its
  /// own load limit running from its start, and waits while the host goes
  /// on. A plugin that loaded is routed to its process
  /// (``ModuleSource/process(_:index:_:)``); one that failed is refused with the reason
  /// its process gave, or how it ended.
  static func startAll(_ paths: [String], options: PluginProcessOptions) async -> [PluginOutcome] {
    let starts = paths.map { path in Task { @MainActor in await start(path, options: options) } }
    var outcomes: [PluginOutcome] = []
    for start in starts { outcomes.append(await start.value) }
    // Plugin processes that crashed left their load trees behind; clearing
    // them up is no reason to make the person wait.
    if !paths.isEmpty { Thread.detachNewThread { PluginLinks.removeAbandonedTrees() } }
    return outcomes
  }

  /// Starts a process for the plugin at `path`, while the host goes on:
  /// for a plugin loaded when one of its modules is first built.
  static func start(_ path: String, options: PluginProcessOptions) async -> PluginOutcome {
    let process: PluginSupervisor
    do throws(Rejection) {
      process = PluginSupervisor(file: try PluginLoader.openChecked(path), options: options)
    } catch {
      return .rejected(error)
    }
    return process.outcome(await process.start())
  }

  /// The plugin as loaded in this process, or why it is refused.
  private func outcome(_ rejection: Rejection?) -> PluginOutcome {
    if let rejection {
      closeFile()
      return .rejected(rejection)
    }
    var plugin = LoadedPlugin(
      path: path, name: name, sdkVersion: sdkVersion,
      modules: contracts.enumerated().map { .process(self, index: $0, $1) })
    plugin.fileDescriptor = fileDescriptor
    plugin.process = self
    plugin.version = pluginVersion
    plugin.provides = provides
    plugin.hosts = hosts
    plugin.topics = topics
    return .loaded(plugin)
  }
}
