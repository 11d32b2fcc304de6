import ViperKit
import VivariumRuntime
import VivariumTerminal

extension TerminalApp {
  /// A key while the `:` command line is open.
  func commandKey(_ key: KeyEvent) async -> Action {
    switch key {
    case .escape:
      commandActive = false
    case .up: commandLine.previous()
    case .down: commandLine.next()
    case .tab: commandLine.complete(completions)
    case .enter:
      let line = commandLine.editor.text.trimmingCharacters(in: .whitespaces)
      commandActive = false
      guard !line.isEmpty else { return .redraw }
      commandLine.remember(line)
      return await run(line)
    case .mouse: break
    default:
      var editor = commandLine.editor
      if key == .backspace, editor.text.isEmpty {
        commandActive = false
      } else if editor.apply(key) || FieldEditor.handles(key) {
        commandLine.editor = editor
      }
    }
    return .redraw
  }

  /// Runs a command line as the session does; reports open in a box, errors
  /// go on the message line. A command that waits for a plugin process
  /// (`open` of a module built there) does so in its own task: the keys
  /// and the screen go on, and what it shows comes when it is done.
  private func run(_ line: String) async -> Action {
    if case .quit? = try? SessionCommand.parse(line) { return .quit }
    Task.immediate {
      show(await session.execute(line), of: line)
      runtime.onScreenChanged()
    }
    return .redraw
  }

  /// Shows what the command `line` did.
  private func show(_ step: Session.Step, of line: String) {
    for error in step.errors { say(error, tone: .negative) }
    if let notice = step.notices.last { say(notice.text, tone: notice.tone) }
    if step.screen == nil, !step.output.isEmpty {
      let word = line.split(separator: " ").first.map(String.init) ?? line
      overlay = .report(
        title: word,
        lines: step.output.flatMap { $0.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) })
      overlayOffset = 0
    }
    focusMoved = true
  }

  /// What completes `word` after `before` on the command line: command
  /// names first; after `open`, the URNs the catalog routes (up to their
  /// first variable part); after `tap`, `select` or `type`, the addresses
  /// of the buttons, lists or fields on screen; after `log`, the plugins
  /// loaded and the levels, then the levels; the ids of the commands the
  /// modules on screen offer, as a command and after `run`.
  func completions(_ before: [Substring], _ word: Substring) -> [String] {
    guard let command = before.first else {
      let names = Set(SessionCommand.names)
      return SessionCommand.names + runtime.commandIDs.filter { !names.contains($0) }
    }
    if SessionCommand.Name(spelling: String(command)) == .log, before.count <= 2 {
      let levels = LogLevel.allCases.map(\.rawValue)
      return before.count == 1 ? runtime.catalog.loaded.map(\.name) + levels : levels
    }
    guard before.count == 1 else { return [] }
    /// The addresses of the hotspots on screen of a kind.
    func addresses(_ isTarget: (Hotspot.Kind) -> Bool) -> [String] {
      Array(Set(allHotspots().filter { isTarget($0.kind) }.map(\.key.address)))
    }
    switch SessionCommand.Name(spelling: String(command)) {
    case .open:
      return Array(
        Set(
          patterns.map { pattern in
            pattern.firstIndex(of: "{").map { String(pattern[..<$0]) } ?? pattern
          }))
    case .tap:
      return addresses { if case .button = $0 { true } else { false } }
    case .select:
      return addresses { if case .row = $0 { true } else { false } }
    case .type:
      return addresses { if case .field = $0 { true } else { false } }
    case .run:
      return runtime.commandIDs
    case nil, .back, .dismiss, .ok, .cancel, .wait, .screen, .tree, .routes, .plugins, .log, .help, .quit:
      return []
    }
  }
}
