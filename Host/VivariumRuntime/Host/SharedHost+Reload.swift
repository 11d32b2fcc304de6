import Foundation
import ViperKit
import VivariumLoading
import VivariumSupport

/// Reloading a rebuilt plugin while the app runs (`vivarium run --watch`),
/// in every session.
extension SharedHost {
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
  /// and each of its live modules, in every session, is rebuilt where it
  /// is, with its restoration state, its children and its shown tabs;
  /// everything else is untouched. A build that was refused changes
  /// nothing. The old build's process, if it had one, is let go once none
  /// of its modules is left and its providers have answered the calls they
  /// were running. It runs in every session's turn, after the changes asked
  /// before it.
  package func reload(_ outcome: PluginOutcome) async -> Reload {
    let sessions = sessions
    let before = sessions.map(\.problems.count)
    let (reload, previous) = await inEveryTurn(of: sessions[...]) { await reloadInTurns(outcome, of: sessions) }
    guard reload.accepted else { return reload }
    // Calls its providers are running finish there; new ones go to the new build.
    if let process = previous?.runningProcess,
      !sessions.contains(where: { $0.nodes.contains { $0.remote?.process === process } })
    {
      process.serviceDesk.retire()
    }
    var problems: [String] = []
    for (session, count) in zip(sessions, before) {
      problems += session.problems.dropFirst(count).map(\.description)
      session.onScreenChanged()
    }
    return Reload(path: reload.path, accepted: true, rebuilt: reload.rebuilt, problems: problems)
  }

  /// Runs `body` in the turns of all `sessions`, taken in order.
  private func inEveryTurn<T>(of sessions: ArraySlice<HostRuntime>, _ body: () async -> T) async -> T {
    guard let first = sessions.first else { return await body() }
    return await first.inTurn { await inEveryTurn(of: sessions.dropFirst(), body) }
  }

  /// The reload, in every session's turn; with the plugin the new build replaced.
  private func reloadInTurns(_ outcome: PluginOutcome, of sessions: [HostRuntime]) async -> (Reload, LoadedPlugin?) {
    let path = outcome.path
    // A build asking for permissions never decided stays off, as at load.
    let checked = PermissionStore(dataDirectory: services.dataDirectory).keepingOffWidened(
      [outcome], allowances: services.permissions.allowances, invocation: services.invocation.with(.commandLine))[0]
    let plugin: LoadedPlugin
    switch checked {
    case .loaded(let loaded): plugin = loaded
    case .rejected(let rejection):
      return (Reload(path: path, accepted: false, rebuilt: 0, problems: rejection.reasons), nil)
    }
    // A build that claims the name of another plugin loaded is refused, as
    // at load; the running build stays.
    let replaced = catalog.replacing(.loaded(plugin))
    if let claimed = replaced.rejected.first(where: { $0.path == path && $0.kind == .nameConflict }) {
      plugin.process?.terminate()
      return (Reload(path: path, accepted: false, rebuilt: 0, problems: claimed.reasons), nil)
    }
    let previous = catalog.loaded.first { $0.path == path }
    catalog = replaced
    var rebuilt = 0
    for session in sessions {
      rebuilt += await session.rebuildModules(of: path)
      await session.drainQueue()
    }
    return (Reload(path: path, accepted: true, rebuilt: rebuilt, problems: []), previous)
  }
}

extension HostRuntime {
  /// Rebuilds in place the modules of this session whose plugin file is
  /// `path` (its new build); returns how many were rebuilt.
  func rebuildModules(of path: String) async -> Int {
    let stale = nodes.filter { $0.pluginPath == path }
    let outermost = stale.filter { node in !stale.contains { $0 !== node && node.isInside($0) } }
    var rebuilt = 0
    for node in outermost where await rebuild(node) { rebuilt += 1 }
    return rebuilt
  }
}
