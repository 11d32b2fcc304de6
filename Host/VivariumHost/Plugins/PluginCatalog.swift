import ViperKit
import ViperKitTestKit

/// A module the host can build: its contract, its factory and its plugin.
public struct Route: Sendable {
  /// The parsed URN pattern.
  public let pattern: URNPattern
  /// The factory that builds it.
  public let factory: any ModuleFactory
  /// The plugin file that provides it.
  public let pluginPath: String

  /// The factory's contract.
  public var contract: Contract { factory.contract }
}

/// Two or more plugins' patterns that match exactly the same URNs. Neither is
/// routed until all but one are removed.
public struct RouteConflict: Sendable {
  /// The competing routes, in load order.
  public let routes: [Route]

  /// What is wrong and what to do.
  public var message: String {
    let claims = routes.map { "\($0.pattern) (\($0.pluginPath))" }.joined(separator: " and ")
    return "\(claims) match the same URNs, so neither is routed; remove or rename all but one of them"
  }
}

/// Everything the host loaded: the outcome per file and the route table.
public struct PluginCatalog: Sendable {
  /// One outcome per file or directory looked at, in scan order.
  public let outcomes: [PluginOutcome]
  /// The URN route table built from the loaded plugins.
  public let table: RouteTable<Route>

  /// Builds the route table from `outcomes`.
  public init(outcomes: [PluginOutcome]) {
    self.outcomes = outcomes
    var table = RouteTable<Route>()
    for case .loaded(let plugin) in outcomes {
      for factory in plugin.factories {
        // Contracts of loaded plugins were checked, so their patterns parse.
        guard let pattern = try? URNPattern(parsing: factory.contract.urn) else { continue }
        table.insert(pattern, Route(pattern: pattern, factory: factory, pluginPath: plugin.path))
      }
    }
    self.table = table
  }

  /// Every route, in load order.
  public var routes: [Route] { table.entries.map(\.value) }

  /// Patterns claimed more than once.
  public var conflicts: [RouteConflict] { table.conflicts.map { RouteConflict(routes: $0.map(\.value)) } }

  /// The plugins that loaded.
  public var loaded: [LoadedPlugin] {
    outcomes.compactMap { if case .loaded(let plugin) = $0 { plugin } else { nil } }
  }

  /// The files and directories refused.
  public var rejected: [Rejection] {
    outcomes.compactMap { if case .rejected(let rejection) = $0 { rejection } else { nil } }
  }
}
