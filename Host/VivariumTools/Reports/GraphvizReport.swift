import Foundation
import ViperKit
import VivariumLoading
import VivariumRuntime
import VivariumSupport

/// Graphviz DOT for people who would rather look than read: the app's flow
/// as its contracts declare it, or the live module tree.
package enum GraphvizReport {
  /// The app's flow as its contracts declare it: one node per module,
  /// clustered by plugin; push (solid), present (dashed), replace (bold) and
  /// embed (diamond tail, labelled with the slot) edges; the start marked by
  /// an arrow from a `start` point and a double border; modules the start
  /// does not reach grey and dashed, labelled as `vivarium check --app`
  /// names them (``AppFlow/Reach``: deep-link-only, unreachable) (unless a module of a
  /// plugin built before ViperKit 2.4, which declares nothing, may reach
  /// them); a declared pattern no module answers as a dashed node. Render
  /// with `dot -Tsvg`.
  package static func flow(_ flow: AppFlow) -> String {
    var lines = [
      "digraph vivarium {", "  rankdir=LR; nodesep=0.3; ranksep=0.6;",
      "  node [shape=box, style=rounded, fontname=\"Helvetica\", fontsize=11];",
      "  edge [fontname=\"Helvetica\", fontsize=9];",
    ]
    let starts = Set(flow.start.prefix(1).map(ObjectIdentifier.init))
    let checked = flow.knowsReach
    let byPlugin = Dictionary(grouping: flow.routes, by: \.pluginPath)
    // Each business service is drawn in its provider's cluster.
    let services = Dictionary(grouping: flow.services.services) { flow.pluginFiles[$0.provider] ?? $0.provider }
    for (index, plugin) in Set(byPlugin.keys).union(services.keys).sorted().enumerated() {
      lines.append("  subgraph cluster_\(index) {")
      lines.append(
        "    label=\(quote(PathName.lastComponent(plugin))); style=\"rounded,filled\"; color=gray80; fillcolor=gray97; fontname=\"Helvetica\"; fontsize=10;"
      )
      for route in byPlugin[plugin] ?? [] {
        let id = ObjectIdentifier(route)
        var attributes: [String] = []
        if starts.contains(id) { attributes.append("peripheries=2, style=\"rounded,bold\"") }
        if checked, let reach = flow.reach(of: route) {
          attributes.append("style=\"rounded,dashed\", color=gray50, fontcolor=gray40")
          attributes.append("label=\(quote(route.pattern.text + "\n(\(reach.rawValue))"))")
        }
        lines.append(
          "    \(quote(route.pattern.text))\(attributes.isEmpty ? "" : " [\(attributes.joined(separator: ", "))]");")
      }
      for service in services[plugin] ?? [] {
        lines.append(
          "    \(quote(ServiceGraph.User.service(service.name).description)) [shape=component, style=filled, fillcolor=white, label=\(quote("\(service.name) \(service.version)"))];"
        )
      }
      lines.append("  }")
    }
    if let first = flow.start.first {
      lines.append(
        "  start [shape=circle, style=filled, fillcolor=black, fontcolor=white, label=\"start\", fontsize=8];")
      lines.append("  start -> \(quote(first.pattern.text));")
    }
    var unknown: Set<String> = []
    for edge in flow.edges {
      let targets = edge.to.isEmpty ? [edge.pattern] : edge.to.map(\.pattern.text)
      if edge.to.isEmpty, unknown.insert(edge.pattern).inserted {
        lines.append(
          "  \(quote(edge.pattern)) [style=\"rounded,dashed\", label=\(quote(edge.pattern + "\n(no module answers)"))];"
        )
      }
      for target in targets {
        lines.append("  \(quote(edge.from.pattern.text)) -> \(quote(target)) [\(style(edge))];")
      }
    }
    lines += serviceEdges(flow)
    lines.append("}")
    return lines.joined(separator: "\n")
  }

  /// Dotted edges from each consumer (a module, or a service) to the service
  /// it uses, labelled with the versions it accepts; a service no plugin
  /// provides is drawn dashed, named so.
  private static func serviceEdges(_ flow: AppFlow) -> [String] {
    var lines: [String] = []
    let provided = Set(flow.services.services.map(\.name))
    var missing: Set<String> = []
    let uses =
      flow.services.services.flatMap { service in service.consumers.map { (service.name, $0) } }
      + flow.services.unprovided.sorted { $0.key < $1.key }.flatMap { service, consumers in
        consumers.map { (service, $0) }
      }
    for (service, consumer) in uses {
      if !provided.contains(service), missing.insert(service).inserted {
        lines.append(
          "  \(quote(ServiceGraph.User.service(service).description)) [shape=component, style=dashed, label=\(quote("\(service)\n(no provider)"))];"
        )
      }
      // A module is its URN's node; a service, its own.
      let from = if case .module(let urn) = consumer.user { urn } else { consumer.user.description }
      lines.append(
        "  \(quote(from)) -> \(quote(ServiceGraph.User.service(service).description)) [style=dotted, label=\(quote("uses \(consumer.versions)"))];"
      )
    }
    return lines
  }

  private static func style(_ edge: AppFlow.Edge) -> String {
    switch edge.kind {
    case .push: "label=\"push\""
    case .present: "label=\"present\", style=dashed"
    case .replace: "label=\"replace\", style=bold"
    case .embed: "label=\(quote(edge.slot ?? "")), arrowtail=odiamond, dir=both, color=gray40"
    }
  }

  /// The live modules: each layer's stack left to right (dashed: pushed on
  /// top of), children below their parents (labelled with the slot).
  @MainActor
  package static func tree(_ runtime: HostRuntime) -> String {
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
      // A modal's edge comes from the module that presented it (an
      // embedded one, say), else from the top of the layer below.
      if index > 0, let first = layer.first, let opener = first.opener ?? runtime.layers[index - 1].last {
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
