import ViperKit
import ViperKitHosting

/// A URN matched to a route, with arguments validated against its contract.
public struct ResolvedModule: Sendable {
  /// The URN as given.
  public let urn: ParsedURN
  /// The route that answers it.
  public let route: Route
  /// The validated arguments, defaults filled in.
  public let arguments: Arguments
}

extension PluginCatalog {
  /// Resolves `text` to a module and validates its arguments: placeholders,
  /// `?query` arguments and `extra` (from `--arg NAME=VALUE`) together.
  public func resolve(_ text: String, arguments extra: [(name: String, value: String)] = []) throws(ResolveError)
    -> ResolvedModule
  {
    let urn: ParsedURN
    do {
      urn = try ParsedURN(parsing: text)
    } catch {
      throw ResolveError(.invalidURN, error.description)
    }
    switch table.resolve(urn) {
    case .notFound:
      throw ResolveError(.notFound, notFoundMessage(urn))
    case .conflict(let entries):
      throw ResolveError(.conflict, "'\(urn)' is ambiguous: " + RouteConflict(routes: entries.map(\.value)).message)
    case .matched(let entry, let bindings):
      let route = entry.value
      var given: [(name: String, value: String, origin: String)] = []
      for name in route.pattern.placeholders {
        given.append((name, bindings[name] ?? "", "in the URN"))
      }
      given += urn.query.map { ($0.name, $0.value, "in the URN query") }
      given += extra.map { ($0.name, $0.value, "with --arg") }
      let arguments = try ArgumentBinder.bind(given, to: route)
      return ResolvedModule(urn: urn, route: route, arguments: arguments)
    }
  }

  private func notFoundMessage(_ urn: ParsedURN) -> String {
    let namespace = urn.segments[0]
    let nearby = routes.map(\.pattern).filter { $0.segments.first == .literal(namespace) }
    let hint =
      nearby.isEmpty
      ? "no loaded plugin uses the namespace '\(namespace)'"
      : "patterns in '\(namespace)': " + nearby.map(\.text).joined(separator: ", ")
    return "no module answers '\(urn)' (\(hint)); run 'vivarium routes' to list every URN pattern"
  }
}
