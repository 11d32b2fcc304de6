import ViperKit
import ViperKitHosting
import VivariumSupport

/// What the person sees: the top module's tree with its visible children drawn
/// in their slots, recursively. Element identifiers of children are qualified
/// by their slot path, `slot/id` (or `slot.N/id` where a slot shows several
/// children), which is how the person addresses them.
package struct ComposedScreen: Encodable, Sendable {
  /// The module's URN.
  package let urn: String
  /// The plugin file it comes from.
  package let plugin: String
  /// The slots from the top module down to this one, each a link to the
  /// one above: a path shared, not copied, so that composing a chain of
  /// modules costs as much as the chain is long.
  let slotPath: SlotPath?
  /// Its own tree as it drew it, identifiers unqualified; nil if it has not drawn.
  let ownTree: ViewNode?
  /// Whether it has work under way (it may not have drawn yet).
  package let isLoading: Bool
  /// Whether work of its is running rather than waiting for time: where a
  /// spinner turns.
  package let isWorking: Bool
  /// Its slots with the children shown in them.
  package let slots: [Slot]

  /// The prefix of its element addresses: empty for the top module.
  package var path: String { slotPath?.text ?? "" }
  /// Its own tree, identifiers qualified; nil if it has not drawn.
  package var tree: ViewNode? { ownTree?.qualified(path) }

  private enum CodingKeys: String, CodingKey {
    case urn, plugin, path, tree, isLoading, isWorking, slots
  }

  /// The fields as before, the path and qualified tree in full (which is
  /// as long as the nesting is deep: the JSON names every address whole).
  package func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(urn, forKey: .urn)
    try container.encode(plugin, forKey: .plugin)
    try container.encode(path, forKey: .path)
    try container.encodeIfPresent(tree, forKey: .tree)
    try container.encode(isLoading, forKey: .isLoading)
    try container.encode(isWorking, forKey: .isWorking)
    try container.encode(slots, forKey: .slots)
  }

  /// A slot and the children shown in it.
  package struct Slot: Encodable, Sendable {
    /// The slot name.
    package let name: String
    /// How it holds children.
    package let kind: SlotKind
    /// The children shown: all, or for tabs the selected one.
    package let children: [ComposedScreen]
    /// How many children it holds, shown or not.
    package let count: Int
    /// For tabs, the index of the child shown.
    package let selected: Int?
    /// For tabs, every child's title (its first heading, else its URN), in order.
    package let tabs: [String]?
  }

  /// Composes `node` and its visible children.
  @MainActor
  package init(_ node: ModuleNode) { self.init(node, slotPath: nil) }

  @MainActor
  private init(_ node: ModuleNode, slotPath: SlotPath?) {
    urn = node.urn
    plugin = node.pluginPath
    self.slotPath = slotPath
    ownTree = node.tree
    isLoading = node.work?.isBusy == true
    isWorking = node.isWorking
    slots = node.slots.map { state in
      let shown = state.visibleChildren
      let children = shown.enumerated().map { index, child in
        ComposedScreen(
          child,
          slotPath: SlotPath(
            parent: slotPath, component: ComposedScreen.component(state.spec.name, index, of: shown.count) + "/"))
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
  package func lines(_ renderer: TextRenderer) -> [String] {
    var output: [String] = []
    draw(renderer, prefix: "", indented: true, into: &output)
    return output
  }

  /// Appends the screen's lines to `output`, each after `prefix` (the margins
  /// of the frames around it). `indented` says whether this module's frame
  /// took two columns from its parent's width.
  private func draw(_ renderer: TextRenderer, prefix: String, indented: Bool, into output: inout [String]) {
    let style = renderer.style
    guard let ownTree else {
      return output.append(prefix + style.dim(isLoading ? "(\(urn): loading…)" : "(\(urn) has not drawn)"))
    }
    // Addresses as long as the nesting is deep are drawn by their end, as
    // frame tops are: what is drawn costs the width, not the depth.
    let addresses = slotPath?.tail(renderer.width)
    let shownPath = addresses.map { $0.whole ? $0.text : "…" + $0.text.dropFirst() } ?? ""
    renderer.draw(ownTree.qualified(shownPath), prefix: prefix, into: &output) { name, width, prefix, output in
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
          prefix
            + style.dim(ComposedScreen.frameTop(child.framePath(width: width), child.urn + tabs, width: width)))
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

extension ComposedScreen {
  /// The slot path a frame top `width` columns wide draws, without its
  /// final `/`: whole, or an end longer than the frame top has room for,
  /// which it cuts as it would the whole path.
  fileprivate func framePath(width: Int) -> Substring {
    guard let tail = slotPath?.tail(width + 2) else { return "" }
    return tail.text.hasSuffix("/") ? tail.text.dropLast() : tail.text[...]
  }
}

/// A module's slot path, `tabs/wallet/`, as a link to its parent's: each
/// child adds its component without copying the path above it.
final class SlotPath: Sendable {
  let parent: SlotPath?
  /// `slot/`, or `slot.N/`.
  let component: String

  init(parent: SlotPath?, component: String) {
    self.parent = parent
    self.component = component
  }

  /// The whole path.
  var text: String { tail(.max).text }

  /// The path's last `count` characters, and whether that is all of it;
  /// costs `count`, not the path's length.
  func tail(_ count: Int) -> (text: String, whole: Bool) {
    var components: [String] = []
    var length = 0
    var link: SlotPath? = self
    while let current = link, length < count {
      components.append(current.component)
      length += current.component.count
      link = current.parent
    }
    let text = components.reversed().joined()
    return length > count ? (String(text.suffix(count)), false) : (text, link == nil)
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
    case .secretField(let id, let label, let length, let placeholder):
      return .secretField(id: path + id, label: label, length: length, placeholder: placeholder)
    case .stack(let axis, let children): return .stack(axis, children.map { $0.qualified(path) })
    default: return self
    }
  }
}

extension ModuleNode {
  /// What a person calls this module: its first heading, else its URN.
  package var title: String { tree?.firstHeading ?? urn }

  /// Whether work of its is in flight rather than waiting (see ``WorkScope/isActive``).
  package var isWorking: Bool { work?.isActive == true }
}

extension ViewNode {
  /// The text of the first heading in this tree, depth first.
  package var firstHeading: String? {
    switch self {
    case .heading(let text): text
    case .stack(_, let children): children.lazy.compactMap(\.firstHeading).first
    default: nil
    }
  }
}

extension HostRuntime {
  /// What the person sees now, or nil when nothing is open.
  package func screen() -> ComposedScreen? { top.map { ComposedScreen($0) } }
}

/// Two compositions are equal when they would be drawn the same: the same
/// modules, trees, slots and work. A tree unchanged since the last compose
/// shares its strings, so comparing it costs its nodes, not its text.
extension ComposedScreen: Equatable {
  /// Whether `lhs` and `rhs` would be drawn the same.
  package static func == (lhs: ComposedScreen, rhs: ComposedScreen) -> Bool {
    lhs.urn == rhs.urn && lhs.plugin == rhs.plugin && lhs.isLoading == rhs.isLoading
      && lhs.isWorking == rhs.isWorking && (lhs.slotPath === rhs.slotPath || lhs.path == rhs.path)
      && lhs.ownTree == rhs.ownTree && lhs.slots == rhs.slots
  }
}

extension ComposedScreen.Slot: Equatable {}
