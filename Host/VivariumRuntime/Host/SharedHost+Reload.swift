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
    /// Why the build was refused, when it was.
    package var refusal: Rejection?
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
  /// as at load, in place of the running one: its routes replace the old
  /// in the catalog at once, so that every module built from then on, in
  /// any session, is of the new build; then each live module of the old
  /// build, in every session (those opened meanwhile too), is rebuilt
  /// where it is, with its restoration state, its children and its shown
  /// tabs, each session in its own turn, after the changes asked there
  /// before it; everything else is untouched. A build that was refused
  /// changes nothing. Once every session is rebuilt, the old build's
  /// process, if it had one, is let go when none of its modules is left,
  /// and its providers have answered the calls they were running.
  package func reload(_ outcome: PluginOutcome) async -> Reload {
    let path = outcome.path
    let previous: LoadedPlugin?
    switch swapCatalog(for: outcome) {
    case .refused(let refusal):
      var reload = Reload(path: path, accepted: false, rebuilt: 0, problems: refusal.reasons)
      reload.refusal = refusal
      return reload
    case .swapped(let replaced): previous = replaced
    }
    let version = catalogVersion
    var rebuilt = 0
    var problems: [String] = []
    var done: Set<ObjectIdentifier> = []
    // Sessions opened while others were rebuilt are rebuilt after them.
    while true {
      let waiting = sessions.filter { !done.contains(ObjectIdentifier($0)) }
      guard !waiting.isEmpty else { break }
      for session in waiting {
        done.insert(ObjectIdentifier(session))
        var before = 0
        rebuilt += await session.inTurn {
          before = session.problems.count
          return await session.rebuildModules(of: path, resolvedBefore: version)
        }
        problems += session.problems.dropFirst(before).map(\.description)
        session.onScreenChanged()
      }
    }
    // Calls its providers are running finish there; new ones go to the new build.
    if let process = previous?.runningProcess,
      !sessions.contains(where: { $0.nodes.contains { $0.remote?.process === process } })
    {
      process.serviceDesk.retire()
    }
    return Reload(path: path, accepted: true, rebuilt: rebuilt, problems: problems)
  }

  /// What swapping a new build into the catalog did.
  private enum Swap {
    /// The catalog has the new build, in place of this one, if any.
    case swapped(LoadedPlugin?)
    /// The build was refused, for this reason; the catalog is unchanged.
    case refused(Rejection)
  }

  /// Puts `outcome`, checked as at load, in the catalog in place of the
  /// build of its file there, if any.
  private func swapCatalog(for outcome: PluginOutcome) -> Swap {
    let path = outcome.path
    // A plugin the person turned off, or a build asking for permissions
    // never decided, stays off, as at load.
    let invocation = services.invocation.with(.commandLine)
    let checked = PermissionStore(dataDirectory: services.dataDirectory).keepingOffWidened(
      switches.keepingOffDisabled([outcome], invocation: invocation), allowances: services.permissions.allowances,
      invocation: invocation)[0]
    let plugin: LoadedPlugin
    switch checked {
    case .loaded(let loaded): plugin = loaded
    case .rejected(let rejection): return .refused(rejection)
    }
    // A build that claims the name of another plugin loaded is refused, as
    // at load; the running build stays.
    let replaced = catalog.replacing(.loaded(plugin))
    if let claimed = replaced.rejected.first(where: { $0.path == path && $0.kind == .nameConflict }) {
      plugin.process?.terminate()
      return .refused(claimed)
    }
    let previous = catalog.loaded.first { $0.path == path }
    catalog = replaced
    return .swapped(previous)
  }
}

extension HostRuntime {
  /// Rebuilds in place the modules of this session from the plugin file
  /// `path` resolved in a catalog before `version`: those of the build a
  /// reload replaced. Returns how many were rebuilt.
  func rebuildModules(of path: String, resolvedBefore version: Int) async -> Int {
    let stale = nodes.filter { $0.pluginPath == path && $0.catalogVersion < version }
    let outermost = stale.filter { node in !stale.contains { $0 !== node && node.isInside($0) } }
    var rebuilt = 0
    for node in outermost where await rebuild(node) { rebuilt += 1 }
    return rebuilt
  }
}
