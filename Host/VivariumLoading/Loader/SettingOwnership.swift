import ViperKit

/// Who owns each app-wide setting (ViperKit 3.0, ``ViperKit/SettingDeclaration``):
/// the plugins whose modules' contracts declare it, from the catalog. The
/// host asks it before each read and write a module makes (issue 30: a
/// plugin must not set `session.user` and walk past the sign-in guard).
package struct SettingOwnership: Sendable {
  /// One plugin's claim on a key.
  struct Claim: Sendable {
    let plugin: String
    let path: String
    let readableByOthers: Bool
  }

  private let claims: [String: [Claim]]
  /// The settings declared with a type, the person's to change, in the
  /// order of the catalog and of each contract: a key declared with a
  /// type by several plugins, the first's.
  package let typed: [TypedSetting]
  private let typedIndex: [String: Int]

  /// A setting declared with a type (``ViperKit/SettingDeclaration/type``)
  /// and the plugin that declares it.
  package struct TypedSetting: Sendable {
    /// The declaring plugin's name.
    package let plugin: String
    /// Its declaration.
    package let declaration: SettingDeclaration
    /// Its type: the declaration's, which has one.
    package let type: SettingType
  }

  /// No setting owned: every plugin may read and change every key.
  package init() {
    claims = [:]
    typed = []
    typedIndex = [:]
  }

  /// The claims of the plugins in `plugins`.
  package init(_ plugins: [LoadedPlugin]) {
    var claims: [String: [Claim]] = [:]
    var typed: [TypedSetting] = []
    var typedIndex: [String: Int] = [:]
    for plugin in plugins {
      for declaration in plugin.contracts.flatMap(\.settings) {
        if let type = declaration.type, typedIndex[declaration.key] == nil {
          typedIndex[declaration.key] = typed.count
          typed.append(TypedSetting(plugin: plugin.name, declaration: declaration, type: type))
        }
        var list = claims[declaration.key, default: []]
        if let index = list.firstIndex(where: { $0.path == plugin.path }) {
          // Declared by several of its modules: readable by others if any says so.
          let shared = list[index].readableByOthers || declaration.readableByOthers
          list[index] = Claim(plugin: plugin.name, path: plugin.path, readableByOthers: shared)
        } else {
          list.append(Claim(plugin: plugin.name, path: plugin.path, readableByOthers: declaration.readableByOthers))
        }
        claims[declaration.key] = list
      }
    }
    self.claims = claims
    self.typed = typed
    self.typedIndex = typedIndex
  }

  /// The typed declaration of `key`, if one is loaded.
  package func typed(_ key: String) -> TypedSetting? {
    typedIndex[key].map { typed[$0] }
  }

  /// What `key` reads as while it is not set: its type's default.
  package func defaultValue(_ key: String) -> ArgumentValue? {
    typed(key)?.type.defaultValue
  }

  /// Whether the plugin at `path` may read `key`: a key no plugin
  /// declares, its own, or another's declared readable by others.
  package func mayRead(_ key: String, pluginAt path: String) -> Bool {
    guard let owners = claims[key] else { return true }
    return owners.contains { $0.path == path } || owners.allSatisfy(\.readableByOthers)
  }

  /// Why `plugin` at `path` may not change `key`, or nil when it may: a
  /// key no plugin declares, or its own that no other plugin declares too.
  package func writeRefusal(_ key: String, plugin: String, pluginAt path: String) -> String? {
    guard let owners = claims[key] else { return nil }
    if owners.count > 1 {
      let names = owners.map { "\($0.plugin) (\($0.path))" }.joined(separator: " and ")
      return
        "the setting '\(key)' is declared by \(names), so none of them may change it; remove the declaration from all but one"
    }
    guard owners[0].path != path else { return nil }
    return
      "the setting '\(key)' belongs to \(owners[0].plugin), so \(plugin) may not change it; ask that plugin (a service of its own, or its screens) to change it"
  }

  /// The keys the plugin at `path` may not read, of those declared.
  package func unreadable(byPluginAt path: String) -> Set<String> {
    Set(claims.keys.filter { !mayRead($0, pluginAt: path) })
  }
}
