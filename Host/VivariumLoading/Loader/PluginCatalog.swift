import ViperKit
import ViperKitHosting

/// A module the host can build: its contract, where it comes from and its plugin.
///
/// A class, immutable: a lookup hands out the route it found, and copying a
/// reference is one retain where copying its fields was a dozen.
package final class Route: Sendable {
  /// The parsed URN pattern.
  package let pattern: URNPattern
  /// Where the module comes from.
  package let source: ModuleSource
  /// The plugin file that provides it.
  package let pluginPath: String
  /// The plugin's declared identity, which keys its storage.
  package let identity: PluginIdentity
  /// The SDK version the plugin was built against.
  package let sdkVersion: ViperKitVersion

  init(
    pattern: URNPattern, source: ModuleSource, pluginPath: String, identity: PluginIdentity,
    sdkVersion: ViperKitVersion
  ) {
    self.pattern = pattern
    self.source = source
    self.pluginPath = pluginPath
    self.identity = identity
    self.sdkVersion = sdkVersion
  }

  /// A screen of the host's own, built by `factory` in the host's process
  /// (the plugins screen): no plugin file provides it.
  package static func hostScreen(_ factory: any ModuleFactory) throws(URNError) -> Route {
    Route(
      pattern: try URNPattern(parsing: factory.contract.urn), source: .factory(factory), pluginPath: "",
      identity: PluginIdentity(name: "Vivarium", path: ""), sdkVersion: .current)
  }

  /// Whether the module's contract declares where it navigates
  /// (``Contract/opens``), so that its requests are checked against it.
  package var declaresNavigation: Bool { sdkVersion >= NavigationCheck.declaredSince }

  /// The module's contract.
  package var contract: Contract { source.contract }
}

/// Two or more plugins' patterns that match exactly the same URNs. Neither is
/// routed until all but one are removed.
package struct RouteConflict: Sendable {
  /// The competing routes, in load order.
  package let routes: [Route]

  /// A conflict between `routes`.
  package init(routes: [Route]) { self.routes = routes }

  /// What is wrong and what to do.
  package var message: String {
    let claims = routes.map { "\($0.pattern) (\($0.pluginPath))" }.joined(separator: " and ")
    return "\(claims) match the same URNs, so neither is routed; remove or rename all but one of them"
  }
}

/// Two routes whose patterns overlap partly (`items:{kind}:7` and
/// `items:detail:{itemID}`): a URN both answer goes to ``winner``, a literal
/// segment being tried before a placeholder. A warning: both are routed.
package struct RouteOverlap: Sendable {
  /// The route ``example`` goes to.
  package let winner: Route
  /// The route that never gets ``example``.
  package let loser: Route
  /// A URN both patterns answer.
  package let example: String

  /// What happens and what to do.
  package var message: String {
    "\(winner.pattern) (\(winner.pluginPath)) and \(loser.pattern) (\(loser.pluginPath)) both answer URNs such as \(example), which go to \(winner.pattern), a literal segment winning over a placeholder; if \(loser.pattern) should have them, make the patterns differ, e.g. by a literal segment"
  }
}

/// Two or more plugin files declaring the same name. A name is a claim any
/// plugin can make, and it keys what is granted, stored and set for a
/// plugin: none of them runs until all but one are removed.
package struct IdentityConflict: Sendable {
  /// The name they all declare.
  package let name: String
  /// Their files, in load order.
  package let paths: [String]

  /// What is wrong and what to do.
  package var message: String {
    let (all, none) = paths.count == 2 ? ("both", "neither") : ("all", "none")
    return
      "\(paths.joined(separator: " and ")) \(all) declare the plugin name '\(name)', which keys the permissions granted, the storage and the settings of a plugin, so \(none) of them runs; remove all but one of them"
  }
}

/// Everything the host loaded: the outcome per file and the route table.
package struct PluginCatalog: Sendable {
  /// One outcome per file or directory looked at, in scan order.
  package let outcomes: [PluginOutcome]
  /// The URN route table built from the loaded plugins.
  package let table: RouteTable<Route>

  /// Names declared by more than one loaded plugin.
  package let identityConflicts: [IdentityConflict]
  /// Who owns each app-wide setting the loaded plugins declare.
  package let settingOwnership: SettingOwnership

  /// Builds the route table from `outcomes`; files declaring a plugin name
  /// another loaded file declares are refused, each naming the others
  /// (``Rejection/Kind/nameConflict``).
  package init(outcomes: [PluginOutcome]) {
    var pathsByName: [String: [String]] = [:]
    for plugin in Self.loaded(in: outcomes) { pathsByName[plugin.name, default: []].append(plugin.path) }
    var conflicts: [IdentityConflict] = []
    self.outcomes = outcomes.map { outcome in
      guard case .loaded(let plugin) = outcome, let paths = pathsByName[plugin.name], paths.count > 1 else {
        return outcome
      }
      let conflict = IdentityConflict(name: plugin.name, paths: paths)
      if paths.first == plugin.path { conflicts.append(conflict) }
      return .rejected(Rejection(plugin.path, .nameConflict, conflict.message))
    }
    var table = RouteTable<Route>()
    for plugin in Self.loaded(in: self.outcomes) {
      let identity = PluginIdentity(name: plugin.name, path: plugin.path, hosts: plugin.hosts)
      for module in plugin.modules {
        // Contracts of loaded plugins were checked, so their patterns parse.
        guard let pattern = try? URNPattern(parsing: module.contract.urn) else { continue }
        table.insert(
          pattern,
          Route(
            pattern: pattern, source: module, pluginPath: plugin.path, identity: identity,
            sdkVersion: plugin.sdkVersion))
      }
    }
    self.table = table
    identityConflicts = conflicts
    settingOwnership = SettingOwnership(Self.loaded(in: self.outcomes))
  }

  /// The catalog with `outcome` in place of the outcome for its file (a
  /// rebuilt plugin), or added after the others for a new file.
  package func replacing(_ outcome: PluginOutcome) -> PluginCatalog {
    var outcomes = outcomes
    if let index = outcomes.firstIndex(where: { $0.path == outcome.path }) {
      outcomes[index] = outcome
    } else {
      outcomes.append(outcome)
    }
    return PluginCatalog(outcomes: outcomes)
  }

  /// Every route, in load order.
  package var routes: [Route] { table.entries.map(\.value) }

  /// Patterns claimed more than once.
  package var conflicts: [RouteConflict] { table.conflicts.map { RouteConflict(routes: $0.map(\.value)) } }

  /// Pairs of patterns that overlap partly, the router choosing one.
  package var overlaps: [RouteOverlap] {
    table.overlaps.map { RouteOverlap(winner: $0.winner.value, loser: $0.loser.value, example: $0.example) }
  }

  /// The plugins that loaded.
  package var loaded: [LoadedPlugin] { Self.loaded(in: outcomes) }

  private static func loaded(in outcomes: [PluginOutcome]) -> [LoadedPlugin] {
    outcomes.compactMap { if case .loaded(let plugin) = $0 { plugin } else { nil } }
  }

  /// The files and directories refused.
  package var rejected: [Rejection] {
    outcomes.compactMap { if case .rejected(let rejection) = $0 { rejection } else { nil } }
  }
}
