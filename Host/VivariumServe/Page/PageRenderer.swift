import ViperKit
import VivariumRuntime

/// The screens a session shows as the page's elements (``PageNode``):
/// each view node becomes the semantic HTML element for it, as the
/// terminal app draws it as text.
///
/// - a module's first heading is `h2` (`h3` in a child module, `h4` below
///   that), a later heading of the same module, wherever it is in the
///   module's tree, one level below its first (down to `h5`), text a paragraph,
///   a notice a paragraph with `role=status` (`role=alert` when it warns);
/// - a button is a `<button>`, a field a labelled `<input>`, a secret
///   field `type=password` whose text is never sent to the page (only how
///   long it is);
/// - a list is a `listbox` of `option`s, each row's title, detail and
///   marker as text, named by the heading above it (by its id when none);
/// - a stack is a flex box, a slot a named `region` holding its children's
///   modules, each a `section` named by its URN;
/// - a modal layer is an open `<dialog>` (`aria-modal`), the layers under
///   it inert.
enum PageRenderer {
  /// The page for `layers`: each layer's top screen, bottom first.
  static func page(_ layers: [ComposedScreen]) -> PageNode {
    PageNode(
      .div, [.class: "layers"],
      layers.enumerated().map { index, screen in
        var section = module(screen, depth: 0)
        if index < layers.count - 1 { section.attributes[.inert] = "" }
        guard index > 0 else { return section }
        return PageNode(
          .dialog, [.open: "", .ariaModal: "true", .ariaLabel: screen.urn, .class: "modal"], [section])
      })
  }

  /// A module's screen: its tree, its children in their slots.
  static func module(_ screen: ComposedScreen, depth: Int) -> PageNode {
    var attributes: [PageNode.Attribute: String] = [.class: "module", .ariaLabel: screen.urn]
    if screen.isWorking { attributes[.ariaBusy] = "true" }
    guard let tree = screen.tree else {
      let note = screen.isLoading ? "Loading…" : "(\(screen.urn) has not drawn)"
      return PageNode(.section, attributes, [PageNode(.p, [.class: "muted"], text: note)])
    }
    let slots = Dictionary(screen.slots.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
    return PageNode(.section, attributes, [node(tree, depth: depth, slots: slots)])
  }

  /// `node`, drawn in a module `depth` levels down, its slots' children
  /// from `slots`; `heading` is the last heading drawn before it in its
  /// module, which names a list.
  static func node(
    _ node: ViewNode, depth: Int = 0, slots: [String: ComposedScreen.Slot] = [:], heading: String? = nil,
    headings: ModuleHeadings = ModuleHeadings()
  ) -> PageNode {
    switch node {
    case .text(let text, let tone):
      return PageNode(.p, [.class: tone.rawValue], text: text)
    case .heading(let text):
      // The first heading titles its module; one after it heads a part of it.
      let first: [PageNode.Tag] = [.h2, .h3, .h4]
      let level = first[min(depth, first.count - 1)]
      defer { headings.drawn = true }
      return PageNode(headings.drawn ? Self.levelBelow(level) : level, text: text)
    case .notice(let tone, let text):
      let role = tone == .warning || tone == .negative ? "alert" : "status"
      return PageNode(.p, [.class: "notice " + tone.rawValue, .role: role], text: text)
    case .button(let id, let title):
      return PageNode(.button, [.type: "button", .dataAddress: id], text: title)
    case .field(let id, let label, let value, let placeholder):
      return labelled(
        label,
        PageNode(
          .input,
          [.type: "text", .dataAddress: id, .value: value, .placeholder: placeholder, .autocomplete: "off"]))
    case .secretField(let id, let label, let length, let placeholder):
      return labelled(
        label,
        PageNode(
          .input,
          [
            .type: "password", .dataAddress: id, .dataLength: String(length), .placeholder: placeholder,
            .autocomplete: "off",
          ]))
    case .list(let id, let rows):
      return PageNode(
        .ul, [.role: "listbox", .ariaLabel: heading ?? id, .tabindex: "0", .dataAddress: id],
        rows.map { row in
          var parts = [PageNode(.span, [.class: "title"], text: row.title)]
          if !row.detail.isEmpty { parts.append(PageNode(.span, [.class: "muted"], text: row.detail)) }
          if let marker = row.marker {
            parts.append(PageNode(.span, [.class: marker.tone.rawValue], text: marker.label))
          }
          return PageNode(
            .li, [.role: "option", .id: "row:" + id + ":" + row.id, .dataRow: row.id, .ariaSelected: "false"], parts)
        })
    case .stack(let axis, let children):
      var heading = heading
      return PageNode(
        .div, [.class: "stack " + axis.rawValue],
        children.map { child in
          let drawn = Self.node(child, depth: depth, slots: slots, heading: heading, headings: headings)
          if case .heading(let text) = child { heading = text }
          return drawn
        })
    case .slot(let name):
      return region(name, slots[name], depth: depth)
    @unknown default:
      // An element of a newer ViperKit than the host's.
      return PageNode(.p, [.class: "muted"], text: "(an element this host cannot show)")
    }
  }

  /// The heading level one below `level`.
  private static func levelBelow(_ level: PageNode.Tag) -> PageNode.Tag {
    switch level {
    case .h2: .h3
    case .h3: .h4
    default: .h5
    }
  }

  /// Whether a module's tree has drawn a heading yet: its first titles it.
  /// One per module, shared by every stack of its tree.
  final class ModuleHeadings {
    var drawn = false
    init() {}
  }

  private static func labelled(_ label: String, _ input: PageNode) -> PageNode {
    PageNode(.label, [.class: "field"], [PageNode(.span, text: label), input])
  }

  private static func region(_ name: String, _ slot: ComposedScreen.Slot?, depth: Int) -> PageNode {
    var children: [PageNode] = []
    if let slot, let selected = slot.selected, let titles = slot.tabs, titles.indices.contains(selected) {
      children.append(
        PageNode(.p, [.class: "tabs muted"], text: "Tab \(selected + 1) of \(slot.count): \(titles[selected])"))
    }
    let shown = slot?.children ?? []
    if shown.isEmpty { children.append(PageNode(.p, [.class: "muted"], text: "(empty)")) }
    children += shown.map { module($0, depth: depth + 1) }
    return PageNode(.div, [.role: "region", .ariaLabel: name, .class: "slot"], children)
  }
}
