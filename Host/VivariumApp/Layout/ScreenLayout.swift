import ViperKit
import VivariumRuntime
import VivariumSupport
import VivariumTerminal

/// Lays a composed screen out on a ``Page``: its elements without their
/// identifiers (focus and the status line say where you are), embedded
/// modules in frames, a tabs slot with its tab strip, the focused element
/// marked, the field being edited showing the editor's text and cursor.
struct ScreenLayout {
  /// What is focused, and the editor of a focused field.
  let focus: FocusKey?
  let editor: FieldEditor?
  /// The spinner's frame, drawn where a module has work in flight.
  let spinner: String
  private(set) var page: Page

  /// Levels narrower than this are not indented further.
  static let minimumIndentedWidth = 20

  init(width: Int, focus: FocusKey?, editor: FieldEditor?, spinner: String) {
    self.focus = focus
    self.editor = editor
    self.spinner = spinner
    page = Page(width: width)
  }

  /// Lays out `screen` from column `x`, `width` columns wide.
  mutating func module(_ screen: ComposedScreen, x: Int, width: Int) {
    guard let tree = screen.tree else {
      let row = page.addRow()
      let text = screen.isLoading ? "\(spinner) loading \(screen.urn)…" : "(\(screen.urn) has not drawn)"
      page.put(text, x: x, row: row, style: Palette.dim)
      return
    }
    // Plugin text follows TerminalText's one rule (tabs to tab stops,
    // controls shown escaped), as line mode draws it.
    node(tree.terminalSafeText, in: screen, x: x, width: width)
  }

  private mutating func node(_ node: ViewNode, in screen: ComposedScreen, x: Int, width: Int) {
    switch node {
    case .stack(.vertical, let children):
      for child in children { self.node(child, in: screen, x: x, width: width) }
    case .stack(.horizontal, let children):
      // Elements that share lines flow onto as few as they fit in, as words
      // wrap; a stack holding one that does not (or one wider than the
      // whole line) is laid out one child under another.
      let widths = children.compactMap(ScreenLayout.inlineWidth)
      guard !children.isEmpty, widths.count == children.count, widths.allSatisfy({ $0 <= width }) else {
        for child in children { self.node(child, in: screen, x: x, width: width) }
        return
      }
      var row = page.addRow()
      var column = x
      for (child, childWidth) in zip(children, widths) {
        if column > x, column + childWidth > x + width {
          row = page.addRow()
          column = x
        }
        column = inline(child, x: column, row: row, limit: x + width) + 2
      }
    case .slot(let name):
      slot(name, in: screen, x: x, width: width)
    case .heading(let text):
      page.put(TextWrap.truncate(text, to: width), x: x, row: page.addRow(), style: Palette.heading)
    case .text(let text, let tone):
      for line in TextWrap.lines(text, width: width) {
        page.put(line, x: x, row: page.addRow(), style: Palette.tone(tone))
      }
    case .notice(let tone, let text):
      for (index, line) in TextWrap.lines(text, width: width - 2).enumerated() {
        page.put(
          (index == 0 ? TextRenderer.noticeMark(tone) + " " : "  ") + line, x: x, row: page.addRow(),
          style: Palette.tone(tone))
      }
    case .list(let id, let rows):
      list(id, rows, x: x, width: width)
    case .button, .field, .secretField:
      inline(node, x: x, row: page.addRow(), limit: x + width)
    @unknown default:
      page.put("(an element this host cannot draw)", x: x, row: page.addRow(), style: Palette.dim)
    }
  }

  /// The columns an element takes on a line shared with others, or nil if
  /// it does not share lines.
  static func inlineWidth(_ node: ViewNode) -> Int? {
    switch node {
    case .button(_, let title): DisplayWidth.of(title) + 4
    case .field(_, let label, let value, let placeholder):
      DisplayWidth.of(label) + 2 + fieldBoxWidth(value.isEmpty ? placeholder : value) + 2
    case .secretField(_, let label, let length, let placeholder):
      DisplayWidth.of(label) + 2 + fieldBoxWidth(length == 0 ? placeholder : String(repeating: "•", count: length)) + 2
    case .text(let text, _) where !text.contains("\n"): DisplayWidth.of(text)
    default: nil
    }
  }

  /// The inside width of a field's box showing `text`.
  static func fieldBoxWidth(_ text: String) -> Int { min(max(DisplayWidth.of(text) + 2, 16), 40) }

  /// Draws an element that can share a line at `x` on `row`; returns the
  /// column after it.
  @discardableResult
  private mutating func inline(_ node: ViewNode, x: Int, row: Int, limit: Int) -> Int {
    switch node {
    case .button(let id, let title):
      let key = FocusKey(id)
      // Focused, the brackets point at the title: visible without colour or attributes.
      let text = key == focus ? "[›\(title)‹]" : "[ \(title) ]"
      let end = page.put(text, x: x, row: row, style: key == focus ? Palette.focus : Palette.bold, limit: limit)
      page.add(Hotspot(key: key, kind: .button(title: title), row: row, x: x, width: end - x))
      return end
    case .field(let id, let label, let value, let placeholder):
      return field(
        FocusKey(id), label: label, value: value, secretLength: nil, placeholder: placeholder, x: x, row: row,
        limit: limit)
    case .secretField(let id, let label, let length, let placeholder):
      return field(
        FocusKey(id), label: label, value: "", secretLength: max(0, min(length, 1_000)), placeholder: placeholder, x: x,
        row: row, limit: limit)
    case .text(let text, let tone):
      return page.put(text, x: x, row: row, style: Palette.tone(tone), limit: limit)
    default:
      return x
    }
  }

  /// `Label: [text    ]`, the text the editor's while focused; a secret
  /// shows dots only.
  mutating func field(
    _ key: FocusKey, label: String, value: String, secretLength: Int?, placeholder: String, x: Int, row: Int,
    limit: Int
  ) -> Int {
    let focused = key == focus
    let editing = focused ? editor : nil
    let text = editing?.text ?? (secretLength.map { String(repeating: "•", count: $0) } ?? value)
    let shown = secretLength == nil ? text : String(repeating: "•", count: text.count)
    let boxX = page.put(label + ": [", x: x, row: row, limit: limit)
    let box = min(ScreenLayout.fieldBoxWidth(shown.isEmpty ? placeholder : shown), max(limit - boxX - 1, 1))
    let window = FieldEditor.window(shown, cursor: editing?.cursor ?? shown.count, columns: box)
    let inside = CellStyle(underline: true, reverse: focused)
    page.put(String(repeating: " ", count: box), x: boxX, row: row, style: inside, limit: boxX + box)
    if shown.isEmpty {
      page.put(
        placeholder, x: boxX, row: row, style: CellStyle(dim: true, underline: true, reverse: focused),
        limit: boxX + box)
    } else {
      page.put(window.text, x: boxX, row: row, style: inside, limit: boxX + box)
    }
    if editing != nil { page.cursor = Grid.Point(x: boxX + window.cursorColumn, y: row) }
    let end = page.put("]", x: boxX + box, row: row, limit: limit)
    page.add(Hotspot(key: key, kind: .field(value: value, secretLength: secretLength), row: row, x: boxX, width: box))
    return end
  }

  private mutating func list(_ id: String, _ rows: [ListRow], x: Int, width: Int) {
    guard !rows.isEmpty else {
      page.put("(empty)", x: x, row: page.addRow(), style: Palette.dim)
      return
    }
    for (index, item) in rows.enumerated() {
      let row = page.addRow()
      let key = FocusKey(id, row: item.id)
      let focused = key == focus
      let base = focused ? Palette.focus : CellStyle.plain
      page.put(String(repeating: " ", count: width), x: x, row: row, style: base, limit: x + width)
      var right = x + width
      if let marker = item.marker {
        let text = "[\(marker.label)]"
        right -= DisplayWidth.of(text)
        var style = Palette.tone(marker.tone)
        style.reverse = focused
        page.put(text, x: right, row: row, style: style, limit: x + width)
        right -= 1
      }
      if !item.detail.isEmpty {
        let detail = TextWrap.truncate(item.detail, to: max(width / 2, 8))
        right -= DisplayWidth.of(detail)
        page.put(detail, x: right, row: row, style: CellStyle(dim: !focused, reverse: focused), limit: x + width)
        right -= 2
      }
      page.put(
        TextWrap.truncate(item.title, to: max(right - x - 2, 4)), x: x + 2, row: row, style: base,
        limit: max(right, x + 6))
      page.add(Hotspot(key: key, kind: .row(index: index, count: rows.count), row: row, x: x, width: width))
    }
  }

  private mutating func slot(_ name: String, in screen: ComposedScreen, x: Int, width: Int) {
    guard let slot = screen.slots.first(where: { $0.name == name }), !slot.children.isEmpty else {
      page.put("(nothing in \(name))", x: x, row: page.addRow(), style: Palette.dim)
      return
    }
    let indents = width - 2 >= ScreenLayout.minimumIndentedWidth
    for child in slot.children {
      let top = page.addRow()
      var column = page.put("┌─", x: x, row: top, style: Palette.dim)
      if let tabs = slot.tabs, let selected = slot.selected, tabs.indices.contains(selected) {
        column = shownTab(tabs[selected], position: selected, of: tabs.count, x: column + 1, row: top, limit: x + width)
      }
      if child.isWorking { page.put(" \(spinner)", x: column, row: top, style: Palette.tone(.info), limit: x + width) }
      module(child, x: indents ? x + 2 : x, width: indents ? width - 2 : width)
      if indents {
        for row in top + 1..<page.height { page.put("│", x: x, row: row, style: Palette.dim) }
      }
      page.put("└─", x: x, row: page.addRow(), style: Palette.dim)
    }
  }

  /// Which tab is shown, in the frame's top: its title, bold and in
  /// brackets (visible without colour), and its place. The module draws the
  /// control that switches tabs; this names what it shows. Returns the
  /// column after it.
  private mutating func shownTab(_ title: String, position: Int, of count: Int, x: Int, row: Int, limit: Int) -> Int {
    let column = page.put("[\(TerminalText.visible(title))]", x: x, row: row, style: Palette.tab, limit: limit)
    return page.put(" tab \(position + 1) of \(count)", x: column, row: row, style: Palette.dim, limit: limit)
  }
}
