/// What a plugin may reach through the host beyond its own storage, which
/// the person grants (issue 30; docs/what-a-plugin-can-do.md, "Permissions"): today,
/// one host it may ask the `http` service for. A plugin declares them (its
/// plugin type's `hosts`), `vivarium plugins` and `routes` show them, and
/// the host refuses a use the person has not granted.
///
/// Written `KIND:SCOPE` (`http:api.open-meteo.com`): on the command line
/// (`--allow`, `vivarium permissions grant`), in the data directory's
/// permission store and in the log of uses.
package struct PluginPermission: Hashable, Comparable, Sendable, CustomStringConvertible {
  /// What kind of capability it is.
  package enum Kind: String, Sendable, CaseIterable {
    /// Requests through the host's `http` service to one host (or, for
    /// `*.example.com`, to the hosts under it).
    case http
  }

  /// What kind of capability it is.
  package let kind: Kind
  /// What it reaches: for ``Kind/http``, the host as declared.
  package let scope: String

  /// A permission of `kind` for `scope`.
  package init(_ kind: Kind, _ scope: String) {
    self.kind = kind
    self.scope = scope.lowercased()
  }

  /// The permission `text` names (`http:HOST`), or nil when it names none.
  package init?(parsing text: String) {
    guard let colon = text.firstIndex(of: ":"), let kind = Kind(rawValue: String(text[..<colon])) else { return nil }
    let scope = String(text[text.index(after: colon)...])
    guard !scope.isEmpty, !scope.contains(where: { $0 == " " || $0 == "/" || $0.isNewline }) else { return nil }
    self.init(kind, scope)
  }

  /// `KIND:SCOPE`.
  package var description: String { "\(kind.rawValue):\(scope)" }

  /// What it lets the plugin do, for the person asked to grant it.
  package var explanation: String {
    switch kind {
    case .http: "send requests to \(scope) through the host's http service"
    }
  }

  /// The permissions a plugin declaring `hosts` asks for, in order.
  package static func declared(hosts: [String]) -> [PluginPermission] {
    Array(Set(hosts.map { PluginPermission(.http, $0) })).sorted()
  }

  /// How to write one on the command line, for messages: `KIND:SCOPE,
  /// such as EXAMPLE (kinds: …)`.
  package static func syntax(example: String = "http:api.open-meteo.com") -> String {
    "KIND:SCOPE, such as \(example) (kinds: \(Kind.allCases.map(\.rawValue).joined(separator: ", ")))"
  }

  /// By kind, then scope: the order lists show.
  package static func < (left: PluginPermission, right: PluginPermission) -> Bool {
    (left.kind.rawValue, left.scope) < (right.kind.rawValue, right.scope)
  }
}

extension PluginIdentity {
  /// The permissions the plugin declares.
  package var permissions: [PluginPermission] { PluginPermission.declared(hosts: hosts) }

  /// Who `plugin` is, for its permissions and services: its declared name,
  /// its file and the hosts it declares.
  package init(_ plugin: LoadedPlugin) {
    self.init(name: plugin.name, path: plugin.path, hosts: plugin.hosts)
  }
}

extension LoadedPlugin {
  /// The permissions the plugin declares.
  package var permissions: [PluginPermission] { PluginPermission.declared(hosts: hosts) }
}
