import Foundation
import ViperKit
import ViperKitHosting
import VivariumLoading
import VivariumSupport

/// An interactive session over a ``HostRuntime``: runs the person's commands
/// and draws the screen after each one. The same object serves a terminal,
/// a script file and a pipe; only the caller's echo and prompt differ.
@MainActor
package final class Session {
  /// What one command produced.
  package struct Step: Encodable, Sendable {
    /// The command line as given, except that the text of a `type` into a
    /// secret field is replaced by a dot per character: safe to show and to
    /// record (``SessionCommand/secretType(_:length:)``).
    package let command: String
    /// Text for stdout: the screen or the report asked for.
    package let output: [String]
    /// The screen after the command, when it is one that draws it.
    package let screen: ComposedScreen?
    /// Notices modules raised.
    package let notices: [HostNotifications.Notice]
    /// The alert waiting to be acknowledged, if any.
    package let alert: HostNotifications.Alert?
    /// Failures, for stderr: the command's own, and requests modules made.
    package let errors: [String]
    /// Whether the session should end.
    package let quit: Bool
    /// For `tree --link` only: the deep link of what is shown
    /// (``HostRuntime/link(scheme:)``), nil when nothing is. Other steps do
    /// not carry it, so that a step's size does not grow with the stack.
    package let link: String?
    /// The screens on the main stack after the command.
    package let depth: Int
    /// The modal presentations over the main stack after the command.
    package let modals: Int

    private enum CodingKeys: String, CodingKey {
      case command, output, screen, notices, alert, errors, quit, link, depth, modals
    }

    /// Every field; ``link`` only in the step of `tree --link` (null there
    /// when nothing is shown).
    package func encode(to encoder: any Encoder) throws {
      var container = encoder.container(keyedBy: CodingKeys.self)
      try container.encode(command, forKey: .command)
      try container.encode(output, forKey: .output)
      try container.encodeIfPresent(screen, forKey: .screen)
      try container.encode(notices, forKey: .notices)
      try container.encodeIfPresent(alert, forKey: .alert)
      try container.encode(errors, forKey: .errors)
      try container.encode(quit, forKey: .quit)
      if asksForLink { try container.encode(link, forKey: .link) }
      try container.encode(depth, forKey: .depth)
      try container.encode(modals, forKey: .modals)
    }

    /// Whether the command was `tree --link`, whose step carries the link.
    let asksForLink: Bool

    @MainActor
    init(
      command: String, output: [String], screen: ComposedScreen?, notices: [HostNotifications.Notice],
      alert: HostNotifications.Alert?, errors: [String], quit: Bool, runtime: HostRuntime, link: String?? = nil
    ) {
      self.command = command
      self.output = output
      self.screen = screen
      self.notices = notices
      self.alert = alert
      self.errors = errors
      self.quit = quit
      self.asksForLink = link != nil
      self.link = link ?? nil
      depth = runtime.layers.first?.count ?? 0
      modals = max(runtime.layers.count - 1, 0)
    }
  }

  /// The runtime the session drives.
  package let runtime: HostRuntime
  private let renderer: TextRenderer
  private let reports: (plugins: String, routes: String)
  private let scheme: String?
  /// How long, in real seconds, a command waits for modules' work to settle
  /// before the screen is drawn anyway, with an error naming the work.
  package let settleLimit: Double
  /// Whether each command waits for work to settle before the screen is
  /// drawn: scripts and pipes do, so their transcripts repeat exactly; a
  /// person at a terminal does not, and sees the screen redrawn when the work
  /// draws.
  package let settles: Bool

  /// A session over `runtime`; `plugins` and `routes` are the texts those
  /// commands print; `scheme` is the app's URL scheme for deep links.
  package init(
    runtime: HostRuntime, renderer: TextRenderer, plugins: String, routes: String, scheme: String?,
    settleLimit: Double = 10, settles: Bool = true
  ) {
    self.runtime = runtime
    self.renderer = renderer
    self.reports = (plugins, routes)
    self.scheme = scheme
    self.settleLimit = settleLimit
    self.settles = settles
  }

  /// Runs one line, waits (when ``settles``) until no module has work in flight (or
  /// ``settleLimit``), and returns what to show.
  package func execute(_ given: String) async -> Step {
    let command: SessionCommand
    do {
      guard let parsed = try SessionCommand.parse(given, commands: runtime.commandIDs) else {
        return quietStep(given, quit: false)
      }
      command = parsed
    } catch {
      return finish(given, errors: [error.message], draws: false)
    }
    // What is typed into a secret field is never shown or recorded, not even as the command.
    var line = given
    if case .type(let address, let text) = command, runtime.isSecretField(address) {
      line = SessionCommand.secretType(address, length: text.count)
    }
    if runtime.notifications.alerts.first != nil,
      ![.ok, .cancel, .quit, .help, .screen].contains(command), !command.isWait
    {
      let what =
        runtime.notifications.alerts.first?.choice == nil
        ? "an alert is open; type 'ok' to close it" : "a question is open; type 'ok' or 'cancel' to answer it"
      return finish(line, errors: [what], draws: true)
    }
    var output: [String] = []
    var draws = true
    var errors: [String] = []
    var asksForLink = false
    do {
      switch command {
      case .tap(let address): try runtime.send(.tap(button: address))
      case .select(let address, let row): try runtime.send(.select(list: address, row: row))
      case .type(let address, let text): try runtime.send(.type(field: address, text: text))
      case .run(let id): try runtime.run(command: id)
      case .open(let link): try await runtime.open(link, scheme: scheme)
      case .wait(let seconds): await runtime.letTimePass(seconds, settleLimit: settleLimit)
      case .back: try await runtime.back()
      case .dismiss: try await runtime.dismissModal()
      case .ok:
        if !runtime.notifications.acknowledgeAlert() { errors.append("there is no alert to acknowledge") }
      case .cancel:
        guard runtime.notifications.alerts.first?.choice != nil else {
          errors.append("there is no question to answer; 'cancel' answers one a module asks")
          break
        }
        runtime.notifications.acknowledgeAlert(confirmed: false)
      case .screen: break
      case .tree(let link): (output, draws, asksForLink) = (link ? linkLines() : treeLines(), false, link)
      case .routes: (output, draws) = ([reports.routes], false)
      case .plugins: (output, draws) = ([reports.plugins], false)
      case .log(let plugin, let level): (output, draws) = (try logLines(of: plugin, at: level), false)
      case .help: (output, draws) = ([SessionCommand.commandList + screenCommandList()], false)
      case .quit: return quietStep(line, quit: true)
      }
    } catch let error as ViewEventError {
      errors.append(error.message)
    } catch let error as ResolveError {
      errors.append(error.message)
    } catch let error as HostRuntime.NavigationError {
      errors.append(error.message)
    } catch {
      errors.append("\(error)")
    }
    if settles { errors += await settle() }
    return finish(line, output: output, errors: errors, draws: draws, asksForLink: asksForLink)
  }

  /// The commands the modules on screen offer, after the help's list:
  /// each id, its key and what it does, and why it does not run if it
  /// does not; empty when there are none.
  private func screenCommandList() -> String {
    let commands = runtime.screenCommands()
    guard !commands.isEmpty else { return "" }
    return "\n\nCommands the modules on this screen offer (type the id, or press the key):\n"
      + commands.map { command in
        let key = command.key.map { " (\($0))" } ?? ""
        let conflict = command.conflictText.map { "; conflict: \($0)" } ?? ""
        return TerminalText.visible("  \(command.id)\(key)  \(command.title), \(command.plugin)\(conflict)")
      }.joined(separator: "\n")
  }

  /// The latest 20 lines of the log, of the plugin `selector` names (as
  /// `vivarium log --plugin` takes it, or a name the log holds) and at
  /// `level` and above when given.
  private func logLines(of selector: String?, at level: LogLevel?) throws -> [String] {
    var entries = runtime.services.recentEntries
    if let level { entries = entries.filter { $0.level >= level } }
    var plugin: String?
    if let selector {
      let name: String
      do {
        name = try PermissionAllowance.plugin(named: selector, among: runtime.catalog.loaded.map(PluginIdentity.init))
          .name
      } catch {
        // A plugin turned off or gone since is still named by its lines.
        guard entries.contains(where: { $0.plugin == selector }) else { throw error }
        name = selector
      }
      plugin = TerminalText.visible(name)
      entries = entries.filter { $0.plugin == plugin }
    }
    guard entries.isEmpty, selector != nil || level != nil else { return entries.suffix(20).map(\.text) }
    let of = plugin.map { " of \($0)" } ?? ""
    let at = level.map { " at \($0.rawValue) and above" } ?? ""
    return ["no log line\(of)\(at) in this run's latest \(HostServices.recentEntriesKept)"]
  }

  /// Waits for modules' work to settle: nothing, or the error naming what
  /// is still running at the limit.
  package func settle() async -> [String] {
    let busy = await runtime.settleWork(limit: settleLimit)
    // A module this command closed is checked for leaks now, so that what
    // it left alive is told under this command, not the next.
    await runtime.awaitLeakChecks(limit: .seconds(min(settleLimit, 5)))
    guard !busy.isEmpty else { return [] }
    return [
      "still busy after \(SessionHeader.seconds(settleLimit)): \(busy.joined(separator: ", ")); the screen is drawn as it is"
    ]
  }

  /// The step for a line the reader skipped as longer than `limit` bytes
  /// (``SessionLineReader``): nothing is run, and the error says why.
  package func skippedLine(bytes: Int, limit: Int) -> Step {
    Step(
      command: "(a line of \(SessionHeader.grouped(bytes)) bytes)", output: [], screen: nil, notices: [], alert: nil,
      errors: [
        "the line is \(SessionHeader.grouped(bytes)) bytes long, over the \(SessionHeader.grouped(limit))-byte limit of a session line; it was skipped, nothing was run"
      ], quit: false, runtime: runtime)
  }

  /// The step of a line that shows nothing: a comment, or `quit`.
  private func quietStep(_ line: String, quit: Bool) -> Step {
    Step(command: line, output: [], screen: nil, notices: [], alert: nil, errors: [], quit: quit, runtime: runtime)
  }

  /// The step after a command: its output, the screen when it `draws`,
  /// and its `errors`, which are logged too (where a person can read them
  /// again, whole); the link of what is shown when it `asksForLink`.
  private func finish(
    _ line: String, output: [String] = [], errors: [String], draws: Bool, asksForLink: Bool = false
  ) -> Step {
    for error in errors { runtime.services.logLine(.error, module: "session", error) }
    let problems = runtime.takeProblems().map(\.description)
    let screen = draws ? runtime.screen() : nil
    var lines = output
    if draws { lines += screen.map(screenLines) ?? ["Nothing is open. Type 'open URN' ('routes' lists them)."] }
    let notices = runtime.notifications.takeNotices()
    let alert = runtime.notifications.alerts.first
    if draws {
      lines += notices.map { renderer.lines(.notice($0.tone, $0.text)) }.joined()
      if let alert { lines += alertBox(alert) }
    }
    return Step(
      command: line, output: lines, screen: screen, notices: notices, alert: alert, errors: errors + problems,
      quit: false, runtime: runtime, link: asksForLink ? .some(runtime.link(scheme: scheme)) : nil)
  }

  /// The header (where the person is) and the composed screen.
  private func screenLines(_ screen: ComposedScreen) -> [String] {
    let header = SessionHeader.line(runtime.layers, width: renderer.width) { $0.urn }
    return [renderer.style.dim(header)] + screen.lines(renderer)
  }

  private func alertBox(_ alert: HostNotifications.Alert) -> [String] {
    let inner = TextRenderer(width: renderer.width - 4, style: renderer.style)
    let body = inner.lines(.stack(.vertical, [.heading(alert.title), .text(alert.message)]))
    let answer =
      alert.choice.map {
        "╚ type 'ok': \($0.confirm.oneLineVisible) · 'cancel': \($0.cancel.oneLineVisible)"
      } ?? "╚ type 'ok' to close"
    return ["╔" + String(repeating: "═", count: renderer.width - 2)] + body.map { "║ " + $0 } + [answer]
  }

  /// What `tree` says when nothing is shown.
  private static let nothingOpen = "No modules are open."

  /// The live module tree, one line per module, children indented.
  func treeLines() -> [String] {
    guard !runtime.layers.isEmpty else { return [Self.nothingOpen] }
    var lines: [String] = []
    for (index, layer) in runtime.layers.enumerated() {
      lines.append(index == 0 ? "navigation stack" : "modal \(index)")
      for node in layer { lines += Session.treeLines(node, indent: "  ") }
    }
    return lines
  }

  /// `tree --link`: the deep link of what is shown and, when some modals
  /// cannot be in it, which of their screens it leaves out.
  func linkLines() -> [String] {
    guard let link = runtime.link(scheme: scheme) else { return [Self.nothingOpen] }
    let modals = runtime.linkLeavesOut.map(\.urn)
    guard !modals.isEmpty else { return [link.oneLineVisible] }
    let named =
      modals.count == 1
      ? "The modal \(modals[0]) is not" : "The modal screens \(modals.joined(separator: ", ")) are not"
    return [link.oneLineVisible, "\(named) part of the link.".oneLineVisible]
  }

  private static func treeLines(_ node: ModuleNode, indent: String) -> [String] {
    let plugin = PathName.lastComponent(node.pluginPath)
    let slot = node.slotName.map { "[\($0)] " } ?? ""
    let state = node.isAppeared ? "visible" : "hidden"
    var lines = ["\(indent)\(slot)\(node.urn)  \(plugin), \(state)".oneLineVisible]
    for child in node.allChildren { lines += treeLines(child, indent: indent + "  ") }
    return lines
  }
}
