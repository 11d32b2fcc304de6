import ViperKit
import ViperKitHosting

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
  /// Whether it has work under way (it may not have drawn yet).
  public let isLoading: Bool
  /// Whether work of its is running rather than waiting for time: where a
  /// spinner turns.
  public let isWorking: Bool
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
    /// For tabs, every child's title (its first heading, else its URN), in order.
    public let tabs: [String]?
  }

  /// Composes `node` and its visible children.
  @MainActor
  public init(_ node: ModuleNode, path: String = "") {
    urn = node.urn
    plugin = node.pluginPath
    self.path = path
    tree = node.tree.map { $0.qualified(path) }
    isLoading = node.work?.isBusy == true
    isWorking = node.isWorking
    slots = node.slots.map { state in
      let shown = state.visibleChildren
      let children = shown.enumerated().map { index, child in
        ComposedScreen(child, path: path + ComposedScreen.component(state.spec.name, index, of: shown.count) + "/")
      }
      return Slot(
        name: state.spec.name, kind: state.spec.kind, children: children, count: state.children.count,
        selected: state.spec.kind == .tabs ? state.selected : nil,
        tabs: state.spec.kind == .tabs ? state.children.map(\.title) : nil)
    }
  }

  /// `slot`, or `slot.N` when the slot shows several children.
  static func component(_ slot: String, _ index: Int, of count: Int) -> String {
    count > 1 ? "\(slot).\(index)" : slot
  }

  /// The screen as text: children drawn in a frame inside their slots, each
  /// level indented by two columns while at least
  /// ``TextRenderer/minimumWidth`` columns are left inside; deeper levels are
  /// drawn at that width without further indenting, which a line says once.
  public func lines(_ renderer: TextRenderer) -> [String] {
    var output: [String] = []
    draw(renderer, prefix: "", indented: true, into: &output)
    return output
  }

  /// Appends the screen's lines to `output`, each after `prefix` (the margins
  /// of the frames around it). `indented` says whether this module's frame
  /// took two columns from its parent's width.
  private func draw(_ renderer: TextRenderer, prefix: String, indented: Bool, into output: inout [String]) {
    let style = renderer.style
    guard let tree else {
      return output.append(prefix + style.dim(isLoading ? "(\(urn): loading…)" : "(\(urn) has not drawn)"))
    }
    renderer.draw(tree, prefix: prefix, into: &output) { name, width, prefix, output in
      guard let slot = self.slots.first(where: { $0.name == name }) else { return false }
      guard !slot.children.isEmpty else {
        output.append(prefix + style.dim("[slot \(name): empty]"))
        return true
      }
      let indents = width - 2 >= TextRenderer.minimumWidth
      let inner = TextRenderer(width: indents ? width - 2 : width, style: style)
      let margin = indents ? prefix + style.dim("│ ") : prefix
      if !indents, indented {
        output += TextRenderer.wrap(ComposedScreen.flatNote, width: width).map { prefix + style.dim($0) }
      }
      for child in slot.children {
        let tabs = slot.selected.map { " (tab \($0 + 1) of \(slot.count))" } ?? ""
        output.append(
          prefix + style.dim(ComposedScreen.frameTop(child.path.dropLastSlash, child.urn + tabs, width: width)))
        child.draw(inner, prefix: margin, indented: indents, into: &output)
        output.append(prefix + style.dim("└"))
      }
      return true
    }
  }

  /// Said once where nesting is too deep to indent further.
  static let flatNote = "(nested too deep to indent further: the modules below are drawn at this width)"

  /// `┌ path · urn`, at most `width` columns: a path too long loses its
  /// beginning (`┌ …slot/slot · urn`), which deep nesting makes long. Costs
  /// what it draws, not the length of the path.
  static func frameTop(_ path: Substring, _ urn: String, width: Int) -> String {
    let tail = " · \(urn)"
    let room = width - 2 - tail.count
    // At most `room` characters: counted only up to `room`, past a quick look at its bytes.
    if room >= 0,
      path.utf8.count <= room
        || path.index(path.startIndex, offsetBy: room, limitedBy: path.endIndex) ?? path.endIndex == path.endIndex
    {
      return "┌ \(path)\(tail)"
    }
    guard room > 1 else { return TextRenderer.truncate("┌ \(path)\(tail)", to: width) }
    return "┌ …\(path.suffix(room - 1))\(tail)"
  }
}

extension String {
  /// This path without its final `/`, in constant time.
  fileprivate var dropLastSlash: Substring { hasSuffix("/") ? self[..<index(before: endIndex)] : self[...] }
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
    case .secretField(let id, let label, let length, let placeholder):
      return .secretField(id: path + id, label: label, length: length, placeholder: placeholder)
    case .stack(let axis, let children): return .stack(axis, children.map { $0.qualified(path) })
    default: return self
    }
  }
}

extension ModuleNode {
  /// What a person calls this module: its first heading, else its URN.
  public var title: String { tree?.firstHeading ?? urn }

  /// Whether work of its is in flight rather than waiting (see ``WorkScope/isActive``).
  public var isWorking: Bool { work?.isActive == true }
}

extension ViewNode {
  /// The text of the first heading in this tree, depth first.
  public var firstHeading: String? {
    switch self {
    case .heading(let text): text
    case .stack(_, let children): children.lazy.compactMap(\.firstHeading).first
    default: nil
    }
  }
}

extension HostRuntime {
  /// What the person sees now, or nil when nothing is open.
  public func screen() -> ComposedScreen? { top.map { ComposedScreen($0) } }
}
