import ViperKit
import VivariumRuntime
import VivariumTerminal

extension TerminalApp {
  /// Handles keys read together, in order, each acting on the screen as the
  /// one before it left it, as ``handle(_:)`` one at a time would; `perform`
  /// carries out each action that is not a plain redraw and returns an exit
  /// status to stop at. Returns the status that stopped it, or nil. What
  /// they cost grows with the keys, not with the keys times the screen:
  ///
  /// - Ctrl-C among them quits at once, before the keys read with it act
  ///   (it quits anyway: whatever came before it need not be waited on);
  /// - a run of text typed or pasted into the field being edited, or onto
  ///   the command line, goes in as one edit (and to the module as one
  ///   `type`), not a character and a frame at a time.
  package func handle(_ keys: [KeyEvent], perform: (Action) -> Int32?) async -> Int32? {
    let quitsAnywhere = keys.contains { key in
      guard case .control = key else { return false }
      return Self.hostAction(of: key) == .quit
    }
    if quitsAnywhere { return perform(.quit) ?? 0 }
    var index = 0
    while index < keys.count {
      var end = index + 1
      while end < keys.count, keys[index].isText, keys[end].isText { end += 1 }
      // Each key is looked at once more at most: a run not taken as text is
      // handled key by key (what is not a key of its own only says so).
      if end - index > 1, takeText(keys[index..<end]) {
        index = end
        continue
      }
      for key in keys[index..<end] {
        let action = await handle(key)
        if action != .redraw, let status = perform(action) { return status }
      }
      index = end
    }
    return nil
  }

  /// Puts the text of `run` (characters and pastes) into the field being
  /// edited or the command line at once; false, doing nothing, when
  /// neither takes text now.
  private func takeText(_ run: ArraySlice<KeyEvent>) -> Bool {
    if stale { _ = frame() }
    var text = ""
    for key in run {
      switch key {
      case .character(let character): text.append(character)
      // A field is one line: a pasted newline or tab becomes a space.
      case .paste(let pasted): text += pasted.oneLine
      default: break
      }
    }
    if commandActive {
      commandLine.editor.insert(text)
      stale = true
      return true
    }
    guard overlay == nil, runtime.notifications.alerts.isEmpty, editing else { return false }
    let spot = focusedSpot
    guard case .field? = spot?.kind else { return false }
    if editor == nil { syncEditor(spot) }
    guard var editor else { return false }
    if editor.insert(text) { type(editor.text, into: spot!.key.address, secret: isSecret(spot)) }
    self.editor = editor
    stale = true
    return true
  }

  /// Handles one key (or paste, or mouse event); returns what the loop does next.
  package func handle(_ key: KeyEvent) async -> Action {
    // Keys read together come before the next frame is drawn: each acts on
    // the screen as the one before it left it.
    if stale { _ = frame() }
    // A key that changes nothing laid out (text where none is taken says
    // so on the message line, drawn afresh each frame) leaves the layout
    // as it is: a burst of such keys costs no frame each.
    var changesLayout = true
    defer { if changesLayout { stale = true } }
    // The app's keys held with Ctrl work wherever the focus is, in a field
    // and on the command line too.
    if case .control = key, let action = Self.hostAction(of: key), let done = hostKey(action) { return done }
    if commandActive { return await commandKey(key) }
    if case .mouse(let mouse) = key { return mouseEvent(mouse) }
    if overlay != nil { return overlayKey(key) }
    if let question = runtime.notifications.alerts.first?.choice {
      // Text only says which keys answer.
      changesLayout = !key.isText
      return questionKey(key, question)
    }
    if runtime.notifications.alerts.first != nil {
      if key == .enter || key == .escape || key == .character(" ") {
        _ = runtime.notifications.acknowledgeAlert()
      } else {
        changesLayout = false
        say("Press Enter to close the alert.", tone: .info)
      }
      return .redraw
    }
    let spot = focusedSpot
    // A field focused by the key before, with no frame between, gets its editor now.
    if case .field? = spot?.kind, editor == nil { syncEditor(spot) }
    if case .field? = spot?.kind, editing {
      if key == .escape {
        editing = false
        return .redraw
      }
      if var editor, FieldEditor.handles(key) {
        if editor.apply(key) { type(editor.text, into: spot!.key.address, secret: isSecret(spot)) }
        self.editor = editor
        return .redraw
      }
    }
    // A module's command key, outside a field; the app's own keys are
    // never one (HostKeys).
    if let name = KeyHelp.commandKey(key), let command = runtime.command(forKey: name) {
      perform { try runtime.run(command: command.id) }
      return .redraw
    }
    if case .character = key, let action = Self.hostAction(of: key), let done = hostKey(action) { return done }
    switch key {
    case .tab: moveFocus(by: 1)
    case .backTab: moveFocus(by: -1)
    case .down: moveFocus(.down)
    case .up: moveFocus(.up)
    case .right: moveFocus(.right)
    case .left: moveFocus(.left)
    case .enter, .character(" "):
      if case .field? = spot?.kind, !editing { editing = true } else { activate(spot) }
    case .pageDown, .pageUp: page(key == .pageDown ? 1 : -1, in: spot)
    case .home, .end: jump(toEnd: key == .end, in: spot)
    case .escape: goBack()
    case .character, .paste:
      changesLayout = false
      if case .field? = spot?.kind {
        say("Press Enter to edit the field (? lists the keys).", tone: .info)
      } else {
        say("Only a field takes text: Tab to one (? lists the keys).", tone: .info)
      }
    default: break
    }
    return .redraw
  }

  /// The app's own key `key` is (``HostKeys``), if it is one.
  static func hostAction(of key: KeyEvent) -> HostKeys.Action? {
    KeyHelp.commandKey(key).flatMap(HostKeys.action(of:))
  }

  /// Carries out the app's own key; nil for one the terminal's bytes
  /// already gave as another key (Ctrl-H is read as Backspace).
  private func hostKey(_ action: HostKeys.Action) -> Action? {
    switch action {
    case .quit: return .quit
    case .suspend: return .suspend
    case .repaint: return .repaint
    case .showKeys:
      (commandActive, overlay, overlayOffset) = (false, .help, 0)
      return .redraw
    case .openCommandLine:
      openCommandLine()
      return .redraw
    case .backspace, .tab, .enter: return nil
    }
  }

  /// `:` or Ctrl-P: the command line, over whatever box is open.
  private func openCommandLine() {
    overlay = nil
    commandActive = true
    commandLine.open()
  }

  private func isSecret(_ spot: Hotspot?) -> Bool {
    guard case .field(_, .some)? = spot?.kind else { return false }
    return true
  }

  /// Sends what the field now holds to its module, as a person typing does.
  func type(_ text: String, into address: String, secret: Bool) {
    if secret { secrets[address] = text }
    perform { try runtime.send(.type(field: address, text: text)) }
  }

  /// A key while a module's question is shown: the arrows and Tab move
  /// between its two answers, Enter gives the focused one, Esc the one
  /// that does not go ahead.
  private func questionKey(_ key: KeyEvent, _ question: HostNotifications.Choice) -> Action {
    switch key {
    case .left, .right, .tab, .backTab: questionConfirms.toggle()
    case .enter, .escape:
      let confirmed = key == .enter && questionConfirms
      questionConfirms = false
      runtime.notifications.acknowledgeAlert(confirmed: confirmed)
    default:
      say(
        "Enter answers '\(question.cancel.oneLineVisible)' or '\(question.confirm.oneLineVisible)', the one marked; the arrows move between them.",
        tone: .info)
    }
    return .redraw
  }

  /// Runs a request to the runtime; its error goes on the message line.
  func perform(_ request: () throws -> Void) {
    do {
      try request()
    } catch {
      sayFailure(error)
    }
  }

  /// Runs a navigation command in its turn: at once when nothing is being
  /// built in a plugin process, else after what is; the keys go on
  /// meanwhile. Its error goes on the message line.
  func performInTurn(_ command: @escaping () async throws -> Void) {
    Task.immediate {
      do {
        try await command()
      } catch {
        sayFailure(error)
      }
    }
  }

  private func sayFailure(_ error: any Error) {
    switch error {
    case let error as ViewEventError:
      say(error.message, tone: .negative)
    case let error as ResolveError: say(error.message, tone: .negative)
    case let error as HostRuntime.NavigationError: say(error.message, tone: .negative)
    default: say("\(error)", tone: .negative)
    }
  }

  private func moveFocus(by step: Int) {
    guard !drawnHotspots.isEmpty || focus != nil else { return scroll(by: step) }
    let spots = allHotspots()
    guard !spots.isEmpty else { return }
    let index = spots.firstIndex { $0.key == focus } ?? (step > 0 ? -1 : 0)
    let next = (index + step + spots.count) % spots.count
    setFocus(spots[next].key, index: next)
  }

  /// An arrow key: the focus to the nearest element that way; Up and Down
  /// with none that way scroll the pane.
  private func moveFocus(_ direction: FocusSearch.Direction) {
    let spots = allHotspots()
    let current = spots.first { $0.key == focus }
    guard let next = focusSearch.target(from: current, among: spots, direction) else {
      if direction == .down || direction == .up { scroll(by: direction == .down ? 1 : -1) }
      return
    }
    setFocus(next.key, index: spots.firstIndex(of: next) ?? 0)
  }

  /// Every hotspot of the interactive pane (the top module: the base
  /// screen, or the modal over it), in order, off screen too.
  func allHotspots() -> [Hotspot] {
    guard let top = runtime.top else { return [] }
    return layout(
      LayoutKey(screen: ComposedScreen(top), width: max(width - 3, 1), focus: nil, editor: nil, spinner: "")
    )
    .hotspots
  }

  func setFocus(_ key: FocusKey, index: Int) {
    focus = key
    focusIndex = index
    focusMoved = true
    editor = nil
    editorDrawn = nil
    editing = true
  }

  /// Enter: tap a button, select a row, go from a field to the next element.
  func activate(_ spot: Hotspot?) {
    guard let spot else { return }
    switch spot.kind {
    case .button: perform { try runtime.send(.tap(button: spot.key.address)) }
    case .row: perform { try runtime.send(.select(list: spot.key.address, row: spot.key.row ?? "")) }
    case .field: moveFocus(by: 1)
    }
  }

  /// PageUp/PageDown: a page of rows in a list, else the screen by a page.
  private func page(_ direction: Int, in spot: Hotspot?) {
    guard let pane = activePane else { return }
    guard let spot, case .row = spot.kind else { return scroll(by: direction * max(pane.rows - 1, 1)) }
    let rows = allHotspots().enumerated().filter { $0.element.key.address == spot.key.address }
    guard let here = rows.firstIndex(where: { $0.element.key == spot.key }) else { return }
    let target = max(0, min(rows.count - 1, here + direction * max(pane.rows - 1, 1)))
    setFocus(rows[target].element.key, index: rows[target].offset)
  }

  /// Home/End: the first or last row of a list, else the first or last element.
  private func jump(toEnd: Bool, in spot: Hotspot?) {
    let spots = Array(allHotspots().enumerated())
    let candidates: [(offset: Int, element: Hotspot)]
    if let spot, case .row = spot.kind {
      candidates = spots.filter { $0.element.key.address == spot.key.address }
    } else {
      candidates = spots
    }
    guard let target = toEnd ? candidates.last : candidates.first else { return }
    setFocus(target.element.key, index: target.offset)
  }

  /// Scrolls the interactive pane by `rows`, the focus staying where it is.
  func scroll(by rows: Int) {
    guard let pane = activePane else { return }
    offsets[pane.id] = max(0, (offsets[pane.id] ?? 0) + rows)
  }

  /// Esc: close the modal on top, else pop the top screen, as shown when
  /// its turn comes (``HostRuntime/backOrDismiss()``).
  private func goBack() {
    performInTurn {
      guard try await self.runtime.backOrDismiss() else {
        return self.say("This is the first screen: there is nothing to go back to (q or Ctrl-C quits).", tone: .info)
      }
    }
  }

  private func overlayKey(_ key: KeyEvent) -> Action {
    guard case .report = overlay else {
      overlay = nil
      return .redraw
    }
    switch key {
    case .down: overlayOffset += 1
    case .up: overlayOffset = max(0, overlayOffset - 1)
    case .pageDown: overlayOffset += max(height - 6, 1)
    case .pageUp: overlayOffset = max(0, overlayOffset - max(height - 6, 1))
    case .home: overlayOffset = 0
    case .end: overlayOffset = .max / 2
    case .escape, .enter, .character("q"): overlay = nil
    default: break
    }
    return .redraw
  }

  private func mouseEvent(_ mouse: MouseEvent) -> Action {
    switch mouse.kind {
    case .wheelUp: overlay != nil ? (overlayOffset = max(0, overlayOffset - 3)) : scroll(by: -3)
    case .wheelDown: overlay != nil ? (overlayOffset += 3) : scroll(by: 3)
    case .press(button: 0):
      guard overlay == nil, runtime.notifications.alerts.isEmpty else { return .redraw }
      guard
        let index = drawnHotspots.firstIndex(where: {
          $0.row == mouse.y && mouse.x >= $0.x && mouse.x < $0.x + $0.width
        })
      else { return .redraw }
      let spot = drawnHotspots[index]
      let all = allHotspots()
      setFocus(spot.key, index: all.firstIndex { $0.key == spot.key } ?? index)
      if case .field = spot.kind { return .redraw }
      focusMoved = false
      activate(spot)
    default: break
    }
    return .redraw
  }
}

extension KeyEvent {
  /// Whether it is text: typed or pasted.
  var isText: Bool {
    switch self {
    case .character, .paste: true
    default: false
    }
  }
}
