import ViperKit
import ViperKitHosting
import VivariumLoading
import VivariumSupport

/// A URN matched to a route, with arguments validated against its contract.
package struct ResolvedModule: Sendable {
  /// The URN as given.
  package let urn: String
  /// The route that answers it.
  package let route: Route
  /// The validated arguments, defaults filled in.
  package let arguments: Arguments
}

extension PluginCatalog {
  /// Resolves `text` to a module and validates its arguments: placeholders,
  /// `?query` arguments and `extra` (from `--arg NAME=VALUE`) together. The
  /// URN is routed from its text (``RouteTable/resolve(text:)``) and only
  /// the arguments its route takes are read from it.
  /// A hint to run a command is written as `invocation` names it.
  package func resolve(
    _ text: String, arguments extra: [(name: String, value: String)] = [], invocation: Invocation = .plain
  ) throws(ResolveError) -> ResolvedModule {
    let routing: RouteTable<Route>.Routing
    do {
      routing = try table.resolve(text: text)
    } catch {
      throw ResolveError(.invalidURN, error.description)
    }
    switch routing {
    case .notFound:
      if let off = turnedOff(offering: text) {
        let name = off.plugin ?? off.path
        throw ResolveError.pluginOff(
          name, "'\(text)' is offered by \(name), which is turned off; turn it on with \(invocation.enabling(name))")
      }
      throw ResolveError(.notFound, notFoundMessage(text, invocation))
    case .conflict(let entries):
      throw ResolveError(.conflict, "'\(text)' is ambiguous: " + RouteConflict(routes: entries.map(\.value)).message)
    case .matched(let routed):
      let route = table.entries[routed.entry].value
      let (placeholders, query) = table.arguments(of: routed)
      var given = ArgumentCheck.given(placeholders: placeholders, query: query, extra: extra.count)
      for (name, value) in extra { given.append((name, value, "with --arg")) }
      let arguments = try ArgumentBinder.bind(given, to: route)
      return ResolvedModule(urn: text, route: route, arguments: arguments)
    }
  }

  /// The plugin turned off one of whose patterns matches `text`, if any.
  private func turnedOff(offering text: String) -> Rejection? {
    guard let urn = try? ParsedURN(parsing: text) else { return nil }
    return rejected.first { rejection in
      rejection.kind == .disabled
        && rejection.offers.contains { (try? URNPattern(parsing: $0))?.match(urn) != nil }
    }
  }

  /// Why no module answers `text`, a URN: the patterns of its namespace.
  private func notFoundMessage(_ text: String, _ invocation: Invocation) -> String {
    // Routing read it as a URN: it parses.
    let namespace = (try? ParsedURN(parsing: text))?.segments.first ?? text
    let nearby = routes.map(\.pattern).filter { $0.segments.first == .literal(namespace) }
    let hint =
      nearby.isEmpty
      ? "no loaded plugin uses the namespace '\(namespace)'"
      : "patterns in '\(namespace)': " + nearby.map(\.text).joined(separator: ", ")
    return "no module answers '\(text)' (\(hint)); run \(invocation.sessionCommand("routes")) to list every URN pattern"
  }
}
