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
    switch table.match(urn) {
    case .notFound:
      throw ResolveError(.notFound, notFoundMessage(urn))
    case .conflict(let numbers):
      let routes = numbers.map { table.entries[$0].value }
      throw ResolveError(.conflict, "'\(urn)' is ambiguous: " + RouteConflict(routes: routes).message)
    case .one(let number):
      let route = table.entries[number].value
      var given = ArgumentCheck.given(urn, matching: route.pattern, extra: extra.count)
      for (name, value) in extra { given.append((name, value, "with --arg")) }
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
