import ViperKit
import VivariumSupport
import VivariumTerminal

extension TerminalApp {
  /// Checks the focus against the hotspots just laid out for `node`'s pane;
  /// true if the focus or the field editor changed (lay out again). A new
  /// screen gets the focus it had when it was left, else its first element;
  /// an element that went gives its place to the one now there.
  func resolveFocus(node: ObjectIdentifier, hotspots: [Hotspot]) -> Bool {
    let before = (focus, editor)
    if focusOwner != node {
      if let owner = focusOwner, let focus { focusMemory[owner] = focus }
      // What is kept for modules gone goes with them: a new module may be
      // given the identifier of one freed, and must start afresh.
      let live = Set(runtime.nodes.map(ObjectIdentifier.init))
      focusMemory = focusMemory.filter { live.contains($0.key) }
      offsets = offsets.filter { live.contains($0.key) }
      focusOwner = node
      focus = focusMemory[node]
      focusIndex = 0
      focusMoved = true
    }
    if let index = hotspots.firstIndex(where: { $0.key == focus }) {
      focusIndex = index
    } else {
      focus = hotspots.isEmpty ? nil : hotspots[min(focusIndex, hotspots.count - 1)].key
      focusMoved = true
    }
    syncEditor(hotspots.first { $0.key == focus })
    // A field focused anew takes the keys typed.
    if before.0 != focus { editing = true }
    return before.0 != focus || before.1 != editor
  }

  /// The focused field's editor: made when focus arrives on a field, and
  /// given the module's text when the module changes what it draws there.
  func syncEditor(_ spot: Hotspot?) {
    guard let spot, case .field(let value, let secretLength) = spot.kind else {
      (editor, editorDrawn) = (nil, nil)
      return
    }
    let drawn = secretLength.map { String(repeating: "•", count: $0) } ?? value
    if let editor, editorDrawn != nil {
      guard drawn != editorDrawn else { return }
      editorDrawn = drawn
      // The module changed the field itself (cleared it, say): show that.
      let typed = secretLength == nil ? editor.text : String(repeating: "•", count: editor.text.count)
      if drawn != typed { self.editor = FieldEditor(secretLength == nil ? value : "") }
      return
    }
    editorDrawn = drawn
    if let secretLength {
      let remembered = secrets[spot.key.address] ?? ""
      editor = FieldEditor(remembered.count == secretLength ? remembered : "")
    } else {
      editor = FieldEditor(value)
    }
  }

  /// The hotspot focused, as drawn last.
  var focusedSpot: Hotspot? { drawnHotspots.first { $0.key == focus } }

  /// The line above the status line: the command line while it is open,
  /// else the message, wrapped upwards over the screen when it is longer
  /// than a line (at most half the body; what is cut there says where the
  /// rest is).
  func messageLine(_ grid: inout Grid) {
    let row = height - 2
    if commandActive {
      let column = grid.put(":", x: 0, y: row, style: Palette.key)
      let window = FieldEditor.window(
        commandLine.editor.text, cursor: commandLine.editor.cursor, columns: width - column - 1)
      grid.put(window.text, x: column, y: row)
      grid.cursor = Grid.Point(x: column + window.cursorColumn, y: row)
      return
    }
    guard let message else { return }
    let lines = messageRows(message)
    for (index, line) in lines.enumerated() {
      let y = row - lines.count + 1 + index
      grid.clear(x: 0, y: y, width: width)
      grid.put(line, x: 0, y: y, style: Palette.tone(message.tone))
    }
  }

  /// The rows `message` takes: its text wrapped to the window, every line
  /// of it, or as many as half the body holds, the last saying the log has it all.
  func messageRows(_ message: Message) -> [String] {
    let text = TextRenderer.noticeMark(message.tone) + " " + TerminalText.visible(message.text, keepingNewlines: true)
    let lines = TextWrap.lines(text, width: width - 1)
    let most = max((height - TerminalApp.chrome.top - TerminalApp.chrome.bottom) / 2, 1)
    guard lines.count > most else { return lines }
    let more = " … (the rest: ':log')"
    return lines.prefix(most - 1) + [TextWrap.truncate(lines[most - 1], to: width - 1 - more.count) + more]
  }

  /// The last row: the focused element's address and the keys that apply,
  /// or the completions the command line found.
  func statusLine(_ grid: inout Grid) {
    let row = height - 1
    grid.clear(x: 0, y: row, width: width, style: Palette.bar)
    if commandActive {
      let text =
        commandLine.candidates.isEmpty
        ? "Enter run · ↑↓ history · Tab complete · Esc cancel" : commandLine.candidates.joined(separator: "  ")
      grid.put(" " + TextWrap.truncate(text, to: width - 2), x: 0, y: row, style: Palette.bar)
      return
    }
    let alert = runtime.notifications.alerts.first
    // A question or an alert over the screen: its keys, not the element behind it.
    let spot = alert == nil ? focusedSpot : nil
    var place = alert.map { TerminalText.visible($0.title) } ?? ""
    if let spot {
      switch spot.kind {
      case .button: place = spot.key.address
      // As `select` takes it: the list's address and the row's id.
      case .row(let index, let count):
        place = "\(spot.key.address) \(spot.key.row ?? "") · row \(index + 1) of \(count)"
      case .field: place = spot.key.address
      }
    }
    if let pane = activePane, pane.height > pane.rows {
      let first = (offsets[pane.id] ?? 0) + 1
      place +=
        (place.isEmpty ? "" : " · ") + "lines \(first)–\(min(first + pane.rows - 1, pane.height)) of \(pane.height)"
    }
    let hints =
      if overlay != nil { "Esc close · ↑↓ PgUp PgDn scroll" } else if let choice = alert?.choice {
        "←→ move · Enter answer · Esc \(choice.cancel.oneLineVisible)"
      } else if alert != nil { "Enter close" } else { KeyHelp.hints(for: spot?.kind, editing: editing) }
    // Where the person is comes first; the hints get the rest.
    let shown = TextWrap.truncate(TerminalText.visible(place), to: max(width - 2, 0))
    let column = grid.put(" " + shown + " ", x: 0, y: row, style: CellStyle(bold: true, reverse: true))
    let hintsText = Self.fitting(hints, in: max(width - column - 2, 0))
    grid.put(hintsText, x: width - 1 - DisplayWidth.of(hintsText), y: row, style: Palette.bar)
  }
}

extension TerminalApp {
  /// The hints (`A · B · C`) that fit in `room` columns, each whole: the
  /// last ones are left out first, but never the one leading to every key
  /// (`? keys`); cut only if that one alone does not fit.
  static func fitting(_ hints: String, in room: Int) -> String {
    var parts = hints.components(separatedBy: " · ")
    while DisplayWidth.of(parts.joined(separator: " · ")) > room,
      let last = parts.lastIndex(where: { !$0.hasSuffix(" keys") }), parts.count > 1
    {
      parts.remove(at: last)
    }
    return TextWrap.truncate(parts.joined(separator: " · "), to: room)
  }
}

extension String {
  /// This text on one line: line breaks and tabs as spaces.
  var oneLine: String { String(map { $0.isNewline || $0 == "\t" ? " " : $0 }) }
}
