import Foundation
import ViperKit
import VivariumLoading
import VivariumSupport

/// Reloading a rebuilt plugin while the app runs (`vivarium run --watch`).
extension HostRuntime {
  /// What a reload did, for the person.
  package struct Reload: Sendable, Equatable {
    /// The plugin file.
    package let path: String
    /// Whether the new build was taken; when not, the running one stays.
    package let accepted: Bool
    /// The modules of the plugin rebuilt in their places.
    package let rebuilt: Int
    /// What went wrong: why the build was refused, or what the rebuilding
    /// reported (a module that could not be rebuilt keeps running the
    /// earlier build; a saved tab or state that no longer fits).
    package let problems: [String]

    /// One sentence for a notice.
    package var summary: String { summary(after: nil) }

    /// One sentence for a notice, saying it came `seconds` after the source
    /// was saved.
    package func summary(after seconds: Double?) -> String {
      let file = PathName.lastComponent(path)
      guard accepted else {
        return "\(file) was rebuilt but refused: \(problems.joined(separator: "; ")); the running version stays"
      }
      let modules = rebuilt == 0 ? "nothing on screen uses it" : "\(Plural.count(rebuilt, "module")) rebuilt in place"
      let time = seconds.map { String(format: " %.1f s after the save", $0) } ?? ""
      return "Reloaded \(file)\(time): \(modules)" + (problems.isEmpty ? "." : "; \(problems.joined(separator: "; "))")
    }
  }

  /// Takes `outcome`, a new build of a plugin file (or a new file) checked
  /// as at load, in place of the running one: its routes replace the old,
  /// and each of its live modules is rebuilt where it is, with its
  /// restoration state, its children and its shown tabs; everything else is
  /// untouched. A build that was refused changes nothing. The old build's
  /// process, if it had one, is let go once none of its modules is left
  /// and its providers have answered the calls they were running.
  /// It runs in its turn, after the changes asked before it.
  package func reload(_ outcome: PluginOutcome) async -> Reload {
    await inTurn { await reloadInTurn(outcome) }
  }

  private func reloadInTurn(_ outcome: PluginOutcome) async -> Reload {
    let path = outcome.path
    // A build asking for permissions never decided stays off, as at load.
    let checked = PermissionStore(dataDirectory: services.dataDirectory).keepingOffWidened(
      [outcome], allowances: services.permissions.allowances, invocation: services.invocation.with(.commandLine))[0]
    let plugin: LoadedPlugin
    switch checked {
    case .loaded(let loaded): plugin = loaded
    case .rejected(let rejection): return Reload(path: path, accepted: false, rebuilt: 0, problems: rejection.reasons)
    }
    // A build that claims the name of another plugin loaded is refused, as
    // at load; the running build stays.
    let replaced = catalog.replacing(.loaded(plugin))
    if let claimed = replaced.rejected.first(where: { $0.path == path && $0.kind == .nameConflict }) {
      plugin.process?.terminate()
      return Reload(path: path, accepted: false, rebuilt: 0, problems: claimed.reasons)
    }
    let previous = catalog.loaded.first { $0.path == path }
    catalog = replaced
    let stale = nodes.filter { $0.pluginPath == path }
    let outermost = stale.filter { node in !stale.contains { $0 !== node && node.isInside($0) } }
    let before = problems.count
    var rebuilt = 0
    for node in outermost where await rebuild(node) { rebuilt += 1 }
    await drainQueue()
    // Calls its providers are running finish there; new ones go to the new build.
    if let process = previous?.runningProcess, !nodes.contains(where: { $0.remote?.process === process }) {
      process.retire()
    }
    onScreenChanged()
    return Reload(path: path, accepted: true, rebuilt: rebuilt, problems: problems[before...].map(\.description))
  }
}
