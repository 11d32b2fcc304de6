import Foundation
import VivariumApp
import VivariumLoading
import VivariumRuntime
import VivariumSupport
import VivariumTerminal
import VivariumTools

/// `vivarium run` on a terminal: the full-screen app.
enum FullScreen {
  /// Opens `first` (nil when the screens were resumed, or there is none to
  /// open), then runs the app until the person quits, saying what of the
  /// last session's screens was `lost`; the terminal is put back whatever
  /// happens. With `unconfined` (the option that made it so), the top line
  /// of every screen says that plugins are not confined.
  @MainActor
  static func run(
    runtime: HostRuntime, discovery: PluginDiscovery, manifest: AppManifest?, first start: String?, lost: [String],
    unconfined: String?, _ console: Console
  ) async throws -> Int32 {
    defer { runtime.shutdown() }
    // Reports drawn for the command line's boxes: plain, the grid styles
    // them; as wide as a box's text on this terminal (a box wraps them again
    // in a window made narrower later).
    let width = TerminalApp.reportWidth(windowWidth: console.width)
    let session = Session(
      runtime: runtime, renderer: TextRenderer(width: width, style: .plain),
      plugins: PluginsReport(discovery: discovery, catalog: runtime.catalog).text(style: .plain, width: width),
      routes: RoutesReport(catalog: runtime.catalog).text(style: .plain, width: width),
      scheme: manifest?.scheme, settles: false)
    runtime.asksForPermissionsInAlerts()
    let first = start
    let opened = await session.execute(first.map { "open \($0)" } ?? "screen")
    if let first, runtime.top == nil {
      for warning in lost { console.warning(RunCommand.name, warning) }
      for error in opened.errors { console.error(RunCommand.name, error) }
      console.error(RunCommand.name, "could not open the first screen '\(first)'; fix it or give another with --start")
      return ExitCode.failure
    }
    let mode: TerminalMode
    do {
      mode = try TerminalMode(
        descriptor: STDOUT_FILENO, mouse: TerminalMode.supportsMouse(term: console.environment["TERM"]))
    } catch {
      console.error(RunCommand.name, "\(error.description); use --line for the line-by-line session")
      return ExitCode.failure
    }
    let size = mode.size() ?? (80, 24)
    let name = (manifest?.name ?? "vivarium") + (unconfined.map { " · plugins not confined (\($0))" } ?? "")
    let app = TerminalApp(session: session, name: name, width: size.width, height: size.height)
    for error in opened.errors { app.say(error, tone: .negative) }
    if let notice = opened.notices.last { app.say(notice.text, tone: notice.tone) }
    if !lost.isEmpty { app.say(lost.joined(separator: "\n"), tone: .warning) }
    // A plugin kept off until the person decides about what its new build asks for.
    for widened in runtime.catalog.rejected where widened.kind == .permissionsWidened {
      app.say(widened.reasons.joined(separator: " "), tone: .warning)
    }
    let status = await AppLoop(app: app, terminal: mode, colour: console.style.colour).run(input: STDIN_FILENO)
    mode.close()
    return status
  }
}
