import ViperKit
import ViperKitTestKit

/// What the person sees: the top module's tree with its visible children drawn
/// in their slots, recursively. Element identifiers of children are qualified
/// by their slot path, `slot/id` (or `slot.N/id` where a slot shows several
/// children), which is how the person addresses them.
public struct ComposedScreen: Encodable, Sendable {
  /// The module's URN.
  public let urn: String
  /// The plugin file it comes from.
  public let plugin: String
  /// The prefix of its element addresses: empty for the top module.
  public let path: String
  /// Its own tree, identifiers qualified; nil if it has not drawn.
  public let tree: ViewNode?
  /// Its slots with the children shown in them.
  public let slots: [Slot]

  /// A slot and the children shown in it.
  public struct Slot: Encodable, Sendable {
    /// The slot name.
    public let name: String
    /// How it holds children.
    public let kind: SlotKind
    /// The children shown: all, or for tabs the selected one.
    public let children: [ComposedScreen]
    /// How many children it holds, shown or not.
    public let count: Int
    /// For tabs, the index of the child shown.
    public let selected: Int?
  }

  /// Composes `node` and its visible children.
  public init(_ node: ModuleNode, path: String = "") {
    urn = node.urn
    plugin = node.pluginPath
    self.path = path
    tree = node.tree.map { $0.qualified(path) }
    slots = node.slots.map { state in
      let shown = state.visibleChildren
      let children = shown.enumerated().map { index, child in
        ComposedScreen(child, path: path + ComposedScreen.component(state.spec.name, index, of: shown.count) + "/")
      }
      return Slot(
        name: state.spec.name, kind: state.spec.kind, children: children, count: state.children.count,
        selected: state.spec.kind == .tabs ? state.selected : nil)
    }
  }

  /// `slot`, or `slot.N` when the slot shows several children.
  static func component(_ slot: String, _ index: Int, of count: Int) -> String {
    count > 1 ? "\(slot).\(index)" : slot
  }

  /// The screen as text: children drawn in a frame inside their slots.
  public func lines(_ renderer: TextRenderer) -> [String] {
    guard let tree else { return [renderer.style.dim("(\(urn) has not drawn)")] }
    return renderer.lines(tree) { name, width in
      guard let slot = self.slots.first(where: { $0.name == name }) else { return nil }
      guard !slot.children.isEmpty else { return [renderer.style.dim("[slot \(name): empty]")] }
      let inner = TextRenderer(width: width - 2, style: renderer.style)
      return slot.children.flatMap { child in
        let tabs = slot.selected.map { " (tab \($0 + 1) of \(slot.count))" } ?? ""
        return [renderer.style.dim("┌ \(child.path.dropLast()) · \(child.urn)\(tabs)")]
          + child.lines(inner).map { renderer.style.dim("│ ") + $0 } + [renderer.style.dim("└")]
      }
    }
  }
}

extension ViewNode {
  /// This tree with every element identifier prefixed by `path`.
  func qualified(_ path: String) -> ViewNode {
    guard !path.isEmpty else { return self }
    switch self {
    case .list(let id, let rows): return .list(id: path + id, rows: rows)
    case .button(let id, let title): return .button(id: path + id, title: title)
    case .field(let id, let label, let value, let placeholder):
      return .field(id: path + id, label: label, value: value, placeholder: placeholder)
    case .stack(let axis, let children): return .stack(axis, children.map { $0.qualified(path) })
    default: return self
    }
  }
}

extension HostRuntime {
  /// What the person sees now, or nil when nothing is open.
  public func screen() -> ComposedScreen? { top.map { ComposedScreen($0) } }
}
