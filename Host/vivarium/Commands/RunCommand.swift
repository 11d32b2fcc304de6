import Foundation
import ViperKitHosting
import VivariumLoading
import VivariumRuntime
import VivariumSupport
import VivariumTools

/// `vivarium run`: the interactive session, or the same driven by a script.
enum RunCommand: Command {
  static let name = "run"
  static let summary = "Start the app: an interactive session, or one driven by a script."
  static let synopsis =
    "vivarium run [--plugins DIR]... [--start URN] [--fresh] [--watch [--build PACKAGE_DIR]] [--script FILE] [--line] [--data DIR] [--json] [--in-process | --no-sandbox] [--allow PLUGIN[:PERMISSION]]..."
  static let details = """
    Resumes where the last session on the same plugin directories was (every stack,
    modal and shown tab, saved in the data directory whenever it changes); --fresh forgets
    it. Otherwise, or with --start, opens the first screen (--start, else the app
    manifest vivarium-app.json in a plugin directory, else nothing: the catalog is shown). On a terminal (stdin and stdout) it is
    a full-screen app driven by the keyboard and the mouse: Tab and the arrows move the
    focus, Enter acts, Esc goes back, ':' opens a command line, '?' lists the keys, 'q'
    quits. With --line, from --script FILE or from a pipe it reads commands instead:
    \(SessionCommand.names.joined(separator: ", "));
    on a terminal it prompts and redraws when a module's work draws; from a script or a
    pipe it echoes each command and the screen after it, once no module has work in
    flight, so a session can be recorded and replayed. Errors go to stderr and
    the session goes on. Set VIVARIUM_NOW (ISO 8601) to make the clock virtual for
    repeatable sessions: it starts there and moves only with 'wait DURATION'. With --watch,
    a plugin file that is rebuilt is checked and swapped in while the app runs: its modules
    are rebuilt where they are, with their state, and a notice says so (or why the new build
    was refused, the running one kept); --build PACKAGE_DIR also runs 'swift build' there
    whenever its sources change, and the notice gives the time from the save.
    """
  static let start = ValueOption(
    "start", "URN", "Open URN (or a deep link) first, instead of the app manifest's start.")
  static let script = ValueOption("script", "FILE", "Read commands from FILE instead of standard input.")
  static let line = FlagOption("line", "On a terminal, keep the line-by-line session instead of the full-screen app.")
  static let fresh = FlagOption(
    "fresh", "Start from the first screen, forgetting where the last session on these plugins was.")
  static let options: [any CommandOption] =
    [
      CommonOptions.plugins, start, script, line, fresh, Watching.watch, Watching.build, CommonOptions.data,
      CommonOptions.noCache, CommonOptions.json,
    ] + HostingOptions.all
  static let exitCodes = """
    0 the session ended with every command carried out (full screen: the person quit); 1 a command or a module request failed, the first screen could not be opened, a --plugins path does not exist, or the --build package does not build; 2 usage error; full screen only, 128+N ended by signal N (130 SIGINT, 143 SIGTERM, 129 SIGHUP), the terminal put back.
    """

  /// Restores the screens the last session on these plugins showed, unless
  /// `--start` or `--fresh` says otherwise, and saves them from now on
  /// whenever they change; whether something was restored, and what could
  /// not be (logged too), for the person.
  @MainActor
  private static func resume(
    _ runtime: HostRuntime, directories: [String], _ arguments: ParsedArguments
  ) async -> (resumed: Bool, lost: [String]) {
    let store = NavigationStore(dataDirectory: runtime.services.dataDirectory, directories: directories)
    if arguments.has(fresh) { store.remove() }
    var lost: [String] = []
    if arguments.all(start).isEmpty, !arguments.has(fresh) { lost = await runtime.restore(from: store) }
    runtime.keepSaving(to: store)
    return (runtime.top != nil, lost)
  }

  static func run(_ given: ParsedArguments, _ console: Console) async throws -> Int32 {
    guard given.positionals.isEmpty else { throw UsageError("unexpected argument '\(given.positionals[0])'") }
    let (arguments, builder) = try Watching.prepare(given, console, command: name)
    let input: FileHandle
    if let script = arguments.all(Self.script).last {
      guard let handle = FileHandle(forReadingAtPath: script) else {
        throw UsageError("cannot read the script '\(script)'; check the path")
      }
      input = handle
    } else {
      input = .standardInput
    }
    let interactive = arguments.all(Self.script).isEmpty && isatty(STDIN_FILENO) == 1
    let fullScreen =
      interactive && isatty(STDOUT_FILENO) == 1 && !arguments.has(Self.line) && !arguments.has(CommonOptions.json)
      && console.environment["TERM"] != "dumb"
    guard let app = try RuntimeSetup.app(arguments, console, command: name) else { return ExitCode.failure }
    let (hosting, discovery, manifest, runtime) = (app.hosting, app.discovery, app.manifest, app.runtime)
    let (resumed, lost) = await resume(runtime, directories: discovery.directories, arguments)
    let first = resumed ? nil : arguments.all(start).last ?? manifest?.start
    let watching =
      arguments.has(Watching.watch)
      ? Watching(host: runtime.host, directories: discovery.directories, hosting: hosting, builder: builder) {
        [weak runtime] text, tone in
        runtime?.notifications.notice(text, tone: tone)
        runtime?.onScreenChanged()
      } : nil
    defer { watching?.stop() }
    if fullScreen {
      return try await FullScreen.run(
        runtime: runtime, discovery: discovery, manifest: manifest, first: first, lost: lost,
        unconfined: HostingOptions.unconfinedBy(hosting), console)
    }
    for warning in lost { console.warning(name, warning) }
    // Hints name the session's own commands ('routes').
    runtime.services.invocation.place = .session
    let session = Session(
      runtime: runtime, renderer: TextRenderer(width: console.width, style: console.style),
      plugins: PluginsReport(discovery: discovery, catalog: runtime.catalog).text(
        style: console.style, width: console.width),
      routes: RoutesReport(catalog: runtime.catalog).text(style: console.style, width: console.width),
      scheme: manifest?.scheme, settles: !interactive)
    let transcript = Transcript(console: console, json: arguments.has(CommonOptions.json), echo: !interactive)
    defer { runtime.shutdown() }

    if let name = manifest?.name, !arguments.has(CommonOptions.json) { console.out(console.style.bold(name)) }
    if interactive { console.out(console.style.dim("Type 'help' for the commands, 'quit' to leave.")) }
    if interactive && hosting == nil {
      console.warning(name, "plugins are not confined (--in-process): each may do whatever you may")
    }
    transcript.show(
      await session.execute(first.map { "open \($0)" } ?? (runtime.top == nil ? "routes" : "screen")), line: nil)
    if let first, runtime.top == nil {
      console.error(name, "could not open the first screen '\(first)'; fix it or give another with --start")
      return ExitCode.failure
    }
    let events = SessionEvents(input: input)
    if interactive || watching != nil {
      // A module that draws after an `await` (or on a timer), or a reload, is on screen at once.
      runtime.onScreenChanged = { events.screenChanged() }
    }
    var number = 0
    if interactive { console.out("vivarium> ", terminator: "") }
    loop: for await event in events.stream where events.wanted(event) {
      switch event {
      case .end:
        break loop
      case .screenChanged:
        let step = await session.execute("screen")
        console.out("")
        transcript.show(step, line: nil)
      case .line(let line):
        number += 1
        let step: Session.Step
        var given: String?
        switch line {
        case .text(let text):
          step = await session.execute(text)
          given = text
        case .tooLong(let bytes): step = session.skippedLine(bytes: bytes, limit: SessionLineReader.defaultLimit)
        }
        events.drawn()
        transcript.show(step, line: interactive ? nil : number, given: given)
        if step.quit { break loop }
      }
      if interactive { console.out("vivarium> ", terminator: "") }
    }
    if interactive { console.out("") }
    return transcript.failures == 0 ? ExitCode.success : ExitCode.failure
  }
}
