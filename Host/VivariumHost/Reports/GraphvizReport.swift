import Foundation
import ViperKit

/// Graphviz DOT for people who would rather look than read: the route
/// catalog (which module embeds which) or the live module tree.
public enum GraphvizReport {
  /// Modules grouped by plugin; an edge from each module to the modules its
  /// slots accept, labelled with the slot. Render with `dot -Tsvg`.
  public static func catalog(_ catalog: PluginCatalog) -> String {
    var lines = ["digraph vivarium {", "  rankdir=LR;", "  node [shape=box, fontname=\"Helvetica\"];"]
    let byPlugin = Dictionary(grouping: catalog.routes, by: \.pluginPath)
    for (index, plugin) in byPlugin.keys.sorted().enumerated() {
      lines.append("  subgraph cluster_\(index) {")
      lines.append("    label=\(quote(PathName.lastComponent(plugin))); style=rounded; color=gray;")
      for route in byPlugin[plugin] ?? [] { lines.append("    \(quote(route.pattern.text));") }
      lines.append("  }")
    }
    let known = Set(catalog.routes.map(\.pattern.text))
    for route in catalog.routes {
      for slot in route.contract.slots {
        for accepted in slot.accepts {
          if !known.contains(accepted) {
            lines.append("  \(quote(accepted)) [style=dashed, label=\(quote(accepted + "\n(not loaded)"))];")
          }
          lines.append(
            "  \(quote(route.pattern.text)) -> \(quote(accepted)) [label=\(quote("\(slot.name) (\(slot.kind.rawValue))"))];"
          )
        }
      }
    }
    lines.append("}")
    return lines.joined(separator: "\n")
  }

  /// The live modules: each layer's stack left to right (dashed: pushed on
  /// top of), children below their parents (labelled with the slot).
  @MainActor
  public static func tree(_ runtime: HostRuntime) -> String {
    var lines = ["digraph modules {", "  node [shape=box, fontname=\"Helvetica\"];"]
    for node in runtime.nodes {
      let plugin = PathName.lastComponent(node.pluginPath)
      let style = node.isAppeared ? "bold" : "solid"
      lines.append("  m\(node.id) [label=\(quote("\(node.urn)\n\(plugin)")), style=\(style)];")
      for child in node.allChildren {
        lines.append("  m\(node.id) -> m\(child.id) [label=\(quote(child.slotName ?? ""))];")
      }
    }
    for (index, layer) in runtime.layers.enumerated() {
      for (below, above) in zip(layer, layer.dropFirst()) {
        lines.append("  m\(below.id) -> m\(above.id) [style=dashed, label=\"push\"];")
      }
      if index > 0, let opener = runtime.layers[index - 1].last, let first = layer.first {
        lines.append("  m\(opener.id) -> m\(first.id) [style=dotted, label=\"present\"];")
      }
    }
    lines.append("}")
    return lines.joined(separator: "\n")
  }

  /// `text` as a DOT string: control characters made visible (a newline is
  /// a line break of the label), quotes and backslashes escaped.
  private static func quote(_ text: String) -> String {
    "\""
      + TerminalText.visible(text, keepingNewlines: true).replacingOccurrences(of: "\\", with: "\\\\")
      .replacingOccurrences(of: "\"", with: "\\\"")
      .replacingOccurrences(of: "\n", with: "\\n") + "\""
  }
}
