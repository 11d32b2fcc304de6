import Foundation
import ViperKit
import ViperKitHosting
import VivariumLoading
import VivariumSupport

/// What `vivarium routes` prints: the catalog of every module, the list a
/// newcomer reads first to learn which screen is where.
package struct RoutesReport: Encodable, Sendable {
  /// One module.
  package struct Entry: Encodable, Sendable {
    /// The URN pattern.
    package let urn: String
    /// The plugin file providing it.
    package let plugin: String
    /// Whether another plugin claims the same URNs (then neither is routed).
    package let conflicted: Bool
    /// The full contract.
    package let contract: Contract
    /// What its plugin may reach through the host once granted (`KIND:SCOPE`).
    package let permissions: [String]
  }

  /// Every module, sorted by URN pattern.
  package let routes: [Entry]

  /// The catalog of `catalog`.
  package init(catalog: PluginCatalog) {
    let conflicted = Set(catalog.conflicts.flatMap { $0.routes.map(\.pattern.text) })
    routes = catalog.routes.map { route in
      Entry(
        urn: route.pattern.text, plugin: route.pluginPath, conflicted: conflicted.contains(route.pattern.text),
        contract: route.contract, permissions: route.identity.permissions.map(\.description))
    }.sorted { ($0.urn, $0.plugin) < ($1.urn, $1.plugin) }
  }

  /// The catalog as terminal text, `width` columns wide; what plugins wrote
  /// is shown with control characters escaped.
  package func text(style: TextStyle, width: Int = 80) -> String {
    guard !routes.isEmpty else { return "No modules: no plugin loaded. Run 'vivarium plugins' to see why." }
    var lines: [String] = []
    for entry in routes {
      let contract = entry.contract
      let plugin = PathName.lastComponent(entry.plugin).oneLineVisible
      let flag = entry.conflicted ? style.tone(.negative, "  CONFLICT: not routed") : ""
      lines.append(
        style.bold(entry.urn.oneLineVisible) + "  " + style.dim("\(plugin), contract v\(contract.version)") + flag)
      lines += TextRenderer.wrap(contract.summary.oneLineVisible, width: max(width - 4, 20)).map { "    " + $0 }
      lines.append("    arguments:" + (contract.arguments.isEmpty ? " none" : ""))
      for argument in contract.arguments {
        let choices =
          argument.choices.isEmpty ? "" : ", one of \(argument.choices.map(\.description).joined(separator: ", "))"
        let requirement = (argument.defaultValue.map { "default \($0)" } ?? "required") + choices
        lines += item("\(argument.name): \(argument.type), \(requirement) — \(argument.description)", width)
      }
      lines += section(
        "inputs", contract.inputs.map { "\($0.name)\(fields($0.fields)) — \($0.description)" }, width)
      lines += section(
        "outputs", contract.outputs.map { "\($0.name)\(fields($0.fields)) — \($0.description)" }, width)
      lines += section(
        "slots",
        contract.slots.map {
          "\($0.name) (\($0.kind.rawValue)) accepts \($0.accepts.joined(separator: ", ")) — \($0.description)"
        }, width)
      lines += section("services", contract.services.map(\.rawValue), width)
      lines += section(
        "requires",
        contract.requires.map { "\($0.service) \($0.versions)\($0.isOptional ? ", optional" : "")" }, width)
      lines += section(
        "opens",
        contract.opens.map { target in
          "\(target.kind.rawValue) \(target.urn)\(fields(target.arguments))"
            + (target.expects.isEmpty ? "" : ", expects \(target.expects.map(\.name).joined(separator: ", "))")
        }, width)
      lines += section(
        "guards",
        contract.guards.map { "needs the setting \($0.setting), else opens \($0.otherwise) — \($0.reason)" }, width)
      lines += section(
        "settings",
        contract.settings.map { "\($0.key)\($0.readableByOthers ? ", readable by other plugins" : "")" }, width)
      lines += section("permissions its plugin asks for", entry.permissions, width)
    }
    lines.append(Plural.count(routes.count, "module"))
    return lines.joined(separator: "\n")
  }

  private func section(_ title: String, _ items: [String], _ width: Int) -> [String] {
    items.isEmpty ? [] : ["    \(title):"] + items.flatMap { item($0, width) }
  }

  /// One entry of a section, wrapped to `width` with its continuation lines
  /// indented under its first.
  private func item(_ text: String, _ width: Int) -> [String] {
    TextRenderer.wrap(text.oneLineVisible, width: max(width - 8, 20)).enumerated().map { index, line in
      (index == 0 ? "      " : "        ") + line
    }
  }

  private func fields(_ fields: [String: ArgumentType]) -> String {
    fields.isEmpty
      ? "" : "(" + fields.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: ", ") + ")"
  }
}
