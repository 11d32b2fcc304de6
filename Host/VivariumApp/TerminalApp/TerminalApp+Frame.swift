import ViperKit
import VivariumRuntime
import VivariumSupport
import VivariumTerminal

extension TerminalApp {
  /// Rows above the body (the header) and below it (message, status).
  static let chrome = (top: 1, bottom: 2)

  /// The frame to show now. Takes the notices and problems modules raised
  /// since the last frame onto the message line.
  package func frame() -> Grid {
    stale = false
    collectNews()
    var grid = Grid(width: width, height: height)
    guard width >= TerminalApp.minimumSize.width, height >= TerminalApp.minimumSize.height else {
      let text =
        "Window too small (\(width)×\(height)); make it at least \(TerminalApp.minimumSize.width)×\(TerminalApp.minimumSize.height)."
      for (row, line) in TextWrap.lines(text, width: width).prefix(height).enumerated() { grid.put(line, x: 0, y: row) }
      drawnHotspots = []
      return grid
    }
    header(&grid)
    let body = Box.Rect(
      x: 0, y: TerminalApp.chrome.top, width: width, height: height - TerminalApp.chrome.top - TerminalApp.chrome.bottom
    )
    let layers = runtime.layers
    if let base = layers.first?.last {
      let modal = layers.count > 1 ? layers.last?.last : nil
      pane(base, in: body, active: modal == nil, into: &grid)
      if let modal {
        for row in body.y..<body.y + body.height { grid.restyle(x: 0, y: row, width: width) { $0.dim = true } }
        // As tall as the modal's content, at most the body less a row above and below.
        let boxWidth = min(width - 6, 76)
        let content = layout(ComposedScreen(modal), width: boxWidth - 5, active: false).height
        let box = Box.centred(width: boxWidth, height: min(content + 2, body.height - 2), in: body)
        let inner = Box.draw(&grid, box, title: modal.title, style: Palette.bold)
        pane(modal, in: inner, active: true, into: &grid)
      }
    } else {
      grid.put("Nothing is open. Press : and type 'open URN' (Tab completes).", x: 2, y: body.y + 1, style: Palette.dim)
      drawnHotspots = []
      activePane = nil
    }
    if let alert = runtime.notifications.alerts.first { alertBox(alert, in: body, into: &grid) }
    if let overlay { self.overlay(overlay, in: body, into: &grid) }
    messageLine(&grid)
    statusLine(&grid)
    return grid
  }

  /// Notices and problems become the message line; the newest wins, so
  /// they do not pile up.
  func collectNews() {
    for problem in runtime.takeProblems() { say(problem.description, tone: .negative) }
    if let notice = runtime.notifications.takeNotices().last { say(notice.text, tone: notice.tone) }
    if let message, now() - message.shown >= seconds(showing: message) { self.message = nil }
  }

  /// Row 0: the app's name and where the person is (each screen of the
  /// stack by its title, a modal after ▸), elided at the front; a spinner
  /// while any module works.
  private func header(_ grid: inout Grid) {
    grid.clear(x: 0, y: 0, width: width, style: Palette.bar)
    var trail: [String] = []
    for (index, layer) in runtime.layers.enumerated() {
      for (position, node) in layer.enumerated() {
        trail.append((position > 0 ? "› " : index > 0 ? "▸ " : "") + TerminalText.visible(node.title))
      }
    }
    let busy = isWorking
    let room = width - DisplayWidth.of(name) - 4 - (busy ? 2 : 0)
    var text = trail.joined(separator: " ")
    while DisplayWidth.of(text) > room, trail.count > 1 {
      trail.removeFirst()
      text = "… " + trail.joined(separator: " ")
    }
    let column = grid.put(" \(name) ", x: 0, y: 0, style: CellStyle(bold: true, reverse: true))
    grid.put(" " + TextWrap.truncate(text, to: max(room, 1)), x: column, y: 0, style: Palette.bar)
    if busy { grid.put(spinner, x: width - 2, y: 0, style: Palette.bar) }
  }

  /// Lays `node` out and shows the part of it that fits `rect`, scrolled to
  /// the focus when it moved; for the `active` pane, focus is resolved
  /// and the hotspots kept for keys and the mouse.
  private func pane(_ node: ModuleNode, in rect: Box.Rect, active: Bool, into grid: inout Grid) {
    let id = ObjectIdentifier(node)
    // A module rebuilt in place (its plugin restarted or reloaded) keeps the focus and scroll it had.
    if let old = node.rebuiltFrom, focusOwner == old {
      focusOwner = id
      offsets[id] = offsets[old]
    }
    let screen = ComposedScreen(node)
    let pageWidth = rect.width - 3
    var page = layout(screen, width: pageWidth, active: active)
    if active, resolveFocus(node: id, hotspots: page.hotspots) {
      page = layout(screen, width: pageWidth, active: true)
    }
    var offset = offsets[id] ?? 0
    if active, focusMoved, let spot = page.hotspots.first(where: { $0.key == focus }) {
      if spot.row < offset { offset = spot.row }
      if spot.row >= offset + rect.height { offset = spot.row - rect.height + 1 }
      if focusIndex == 0 { offset = 0 }
    }
    offset = max(0, min(offset, page.height - rect.height))
    offsets[id] = offset
    for row in 0..<min(rect.height, page.height - offset) {
      let source = page.rows[offset + row]
      for x in 0..<min(source.width, rect.width - 3) where !source[x: x, y: 0].isContinuation || x == 0 {
        grid.put(source[x: x, y: 0].text, x: rect.x + 2 + x, y: rect.y + row, style: source[x: x, y: 0].style)
      }
    }
    if page.height > rect.height { scrollbar(&grid, rect: rect, offset: offset, total: page.height) }
    guard active else { return }
    drawnHotspots = page.hotspots.compactMap { spot in
      let row = spot.row - offset
      guard row >= 0, row < rect.height else { return nil }
      return Hotspot(key: spot.key, kind: spot.kind, row: rect.y + row, x: rect.x + 2 + spot.x, width: spot.width)
    }
    activePane = (id, rect.y, rect.height, page.height)
    if let spot = drawnHotspots.first(where: { $0.key == focus }) {
      grid.put("▶", x: rect.x, y: spot.row, style: Palette.key)
    }
    if let cursor = page.cursor, cursor.y - offset >= 0, cursor.y - offset < rect.height, overlay == nil, !commandActive
    {
      grid.cursor = Grid.Point(x: rect.x + 2 + cursor.x, y: rect.y + cursor.y - offset)
    }
    focusMoved = false
  }

  private func layout(_ screen: ComposedScreen, width: Int, active: Bool) -> Page {
    layout(
      LayoutKey(
        screen: screen, width: width, focus: active ? focus : nil, editor: active && editing ? editor : nil,
        spinner: spinner))
  }

  /// `key.screen` laid out as `key` says: the page laid out last for the
  /// same key when there is one. A key that only scrolls, or says
  /// something, or moves nothing a page shows, lays nothing out again, so
  /// keys on a screen of a long text cost the window, not the text.
  func layout(_ key: LayoutKey) -> Page {
    if let index = layouts.firstIndex(where: { $0.key == key }) { return layouts[index].page }
    layoutsMade += 1
    var layout = ScreenLayout(width: key.width, focus: key.focus, editor: key.editor, spinner: key.spinner)
    layout.module(key.screen, x: 0, width: key.width)
    // The base pane, a modal over it and the hotspots Tab walks: a few kept.
    layouts.append((key, layout.page))
    if layouts.count > TerminalApp.layoutsKept { layouts.removeFirst() }
    return layout.page
  }

  /// The right column: where the window is in a page taller than it.
  private func scrollbar(_ grid: inout Grid, rect: Box.Rect, offset: Int, total: Int) {
    let x = rect.x + rect.width - 1
    let thumb = max(1, rect.height * rect.height / total)
    let start = (rect.height - thumb) * offset / max(total - rect.height, 1)
    for row in 0..<rect.height {
      let inThumb = row >= start && row < start + thumb
      grid.put(inThumb ? "┃" : "│", x: x, y: rect.y + row, style: inThumb ? Palette.bold : Palette.dim)
    }
  }

  private func alertBox(_ alert: HostNotifications.Alert, in body: Box.Rect, into grid: inout Grid) {
    let width = min(self.width - 10, 60)
    let lines = TextWrap.lines(TerminalText.visible(alert.message, keepingNewlines: true), width: width - 4)
    let box = Box.centred(width: width, height: lines.count + 4, in: body)
    let inner = Box.draw(&grid, box, title: alert.title, style: Palette.tone(.warning))
    for (row, line) in lines.enumerated() {
      grid.put(line, x: inner.x + 1, y: inner.y + row, limit: inner.x + inner.width)
    }
    let y = inner.y + inner.height - 1
    guard let choice = alert.choice else {
      let ok = "[ OK ]"
      grid.put(ok, x: inner.x + (inner.width - ok.count) / 2, y: y, style: Palette.focus)
      return
    }
    // The answer that does not go ahead first, and focused first.
    let answers = [(choice.cancel, !questionConfirms), (choice.confirm, questionConfirms)].map { label, focused in
      (
        text: "\(focused ? "▶" : " ")[ \(TextWrap.truncate(label.oneLineVisible, to: inner.width / 2 - 6)) ]",
        focused: focused
      )
    }
    var x = inner.x + max(0, (inner.width - answers.map { DisplayWidth.of($0.text) }.reduce(2, +)) / 2)
    for answer in answers {
      grid.put(answer.text, x: x, y: y, style: answer.focused ? Palette.focus : .plain)
      x += DisplayWidth.of(answer.text) + 2
    }
  }

  /// The columns of text in a box over a window `windowWidth` wide: all
  /// but its two edges and a column of margin.
  package static func reportWidth(windowWidth: Int) -> Int { max(windowWidth - 3, 1) }

  private func overlay(_ overlay: Overlay, in body: Box.Rect, into grid: inout Grid) {
    let (title, lines) =
      switch overlay {
      case .help: ("Keys", KeyHelp.lines(with: runtime.screenCommands()))
      case .report(let title, let lines): (title, lines)
      }
    // As wide as the window: no cut-off text of the screen beside it. Text
    // runs from a column in from the left edge to the column before the
    // right edge, where the scroll bar goes; longer lines wrap.
    let textWidth = TerminalApp.reportWidth(windowWidth: width)
    let rows = lines.flatMap { Box.wrap($0, width: textWidth) }
    let box = Box.centred(width: width, height: min(rows.count + 2, body.height), in: body)
    let inner = Box.draw(&grid, box, title: title, style: Palette.bold)
    overlayOffset = max(0, min(overlayOffset, rows.count - inner.height))
    for row in 0..<min(inner.height, rows.count - overlayOffset) {
      grid.put(rows[overlayOffset + row], x: inner.x + 1, y: inner.y + row, limit: inner.x + inner.width)
    }
    if rows.count > inner.height {
      scrollbar(
        &grid, rect: Box.Rect(x: inner.x, y: inner.y, width: inner.width + 1, height: inner.height),
        offset: overlayOffset, total: rows.count)
    }
  }
}
