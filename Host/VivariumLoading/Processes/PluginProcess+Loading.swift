import Foundation
import Glibc
import ViperKit

extension PluginProcess {
  /// Checks each of `paths` as ``PluginLoader`` does before running any of
  /// its code, then starts a process for each (side by side) and waits for
  /// each to load its plugin. A plugin that loaded is routed to its process
  /// (``ModuleSource/process(_:index:_:)``); one that failed is refused with the reason
  /// its process gave, or how it ended.
  static func startAll(_ paths: [String], options: PluginProcessOptions) -> [PluginOutcome] {
    let started = paths.map { path -> Result<(PluginProcess, pid_t?), Rejection> in
      do throws(Rejection) {
        let process = PluginProcess(file: try PluginLoader.openChecked(path), options: options)
        return .success((process, process.spawn()))
      } catch {
        return .failure(error)
      }
    }
    // Plugin processes that crashed left their load trees behind; clearing
    // them up is no reason to make the person wait.
    defer { if !paths.isEmpty { Thread.detachNewThread { PluginLinks.removeAbandonedTrees() } } }
    return started.map { result in
      switch result {
      case .failure(let rejection): return .rejected(rejection)
      case .success((let process, let pid)):
        let rejection =
          pid.map { process.awaitReady($0) }
          ?? Rejection(process.path, .crashed, "the host could not start a process for it")
        return process.outcome(rejection)
      }
    }
  }

  /// ``startAll(_:options:)`` for one plugin, while the host goes on: for
  /// a plugin loaded when one of its modules is first built.
  static func start(_ path: String, options: PluginProcessOptions) async -> PluginOutcome {
    let process: PluginProcess
    do throws(Rejection) {
      process = PluginProcess(file: try PluginLoader.openChecked(path), options: options)
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
    return .loaded(plugin)
  }
}
