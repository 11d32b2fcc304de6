import ViperKitHosting
import VivariumLoading
import VivariumRuntime

/// Exit codes, the same for every command (docs/reference.md, "Exit codes").
enum ExitCode {
  /// The command did what was asked.
  static let success: Int32 = 0
  /// It could not: an unknown URN, an invalid argument, a module that failed.
  static let failure: Int32 = 1
  /// The command line itself is wrong.
  static let usage: Int32 = 2
}

/// A `vivarium` subcommand. It runs on the main actor, where modules live.
@MainActor
protocol Command {
  static var name: String { get }
  /// One line for `vivarium --help`.
  static var summary: String { get }
  /// `vivarium NAME …` synopsis.
  static var synopsis: String { get }
  /// What it does, in a few sentences, for `vivarium NAME --help`.
  static var details: String { get }
  /// Options besides `--help`.
  static var options: [any CommandOption] { get }
  /// What each exit code means for this command.
  static var exitCodes: String { get }
  static func run(_ arguments: ParsedArguments, _ console: Console) async throws -> Int32
}

/// `--help`, which every command accepts.
let helpOption = FlagOption("help", "Show this help and exit.")

extension Command {
  /// `vivarium NAME --help`: usage, what it does, options and exit codes,
  /// no line over ``HelpLayout/width`` columns.
  static var help: String {
    let all = options + [helpOption]
    let rows = all.map { ($0.spelling + ($0.valueName.map { " \($0)" } ?? ""), $0.help) }
    return """
      \(HelpLayout.usage(synopsis))

      \(HelpLayout.paragraphs(details))

      Options:
      \(HelpLayout.table(rows))

      \(HelpLayout.paragraphs("Exit codes: " + exitCodes))
      """
  }
}

/// Options shared by the commands that load plugins.
enum CommonOptions {
  static let plugins = ValueOption(
    "plugins", "DIR",
    "Load plugins from DIR, or the one plugin file DIR names (repeatable). Default: $VIVARIUM_PLUGIN_PATH (colon-separated), else the bundled plugins."
  )
  static let data = ValueOption(
    "data", "DIR",
    "Keep storage, settings, the log and the plugin registry cache in DIR. Default: $VIVARIUM_DATA_DIR, else $XDG_DATA_HOME/vivarium, else ~/.local/share/vivarium."
  )
  static let json = FlagOption("json", "Print machine-readable JSON on stdout.")
  static let noCache = FlagOption(
    "no-cache",
    "Do not use or update the plugin registry cache in the data directory: probe every plugin file again."
  )
  /// Also in `run` and `render` (``HostingOptions/inProcess``) and `check`,
  /// described for what it does there.
  static let inProcess = FlagOption(
    "in-process",
    "Load plugins straight into this process, without first trying each in a child process. Faster, and for debuggers; a plugin that crashes while loading then takes the host down."
  )
}

/// Options of the commands that run modules (`run`, `render`), where each
/// plugin file runs in a process of its own unless `--in-process`.
enum HostingOptions {
  static let inProcess = CommonOptions.inProcess.described(
    "Run every plugin in this one process instead of one process per plugin file: faster to start, and for debuggers, but a module that crashes then ends the whole app."
  )
  static let responseLimit = ValueOption(
    "response-limit", "SECONDS",
    "How long a module may take to answer before it is shown as not responding, with the choice to wait or stop it (default 3)."
  )
  static let pluginMemory = ValueOption(
    "plugin-memory", "MiB",
    "The most memory each plugin process may allocate; one that wants more is stopped and reported (default 1024)."
  )
  static let noSandbox = FlagOption(
    "no-sandbox",
    "Do not confine plugin processes (docs/what-a-plugin-can-do.md): each may then do whatever you may. For comparing, and for a kernel without seccomp."
  )
  static let allow = ValueOption(
    "allow", "PLUGIN[:PERMISSION]",
    "Grant PLUGIN (its file, its file's name without lib and .so, or its declared name) PERMISSION (KIND:SCOPE, such as http:api.open-meteo.com), or all it declares, for this session only; repeat for more. Nothing else is granted that you did not grant with 'vivarium permissions' or in the full-screen app."
  )
  static let all: [any CommandOption] = [inProcess, responseLimit, pluginMemory, noSandbox, allow]

  /// What `--allow` grants for the session.
  static func allowances(_ arguments: ParsedArguments) throws -> [PermissionAllowance] {
    try arguments.all(allow).map { text in
      switch PermissionAllowance.parse(text) {
      case .success(let allowance): return allowance
      case .failure(let error): throw UsageError(error.description)
      }
    }
  }

  /// The option that leaves plugins unconfined with `hosting` (nil: in
  /// the host's process), as spelt on the command line; nil when they are
  /// confined.
  static func unconfinedBy(_ hosting: PluginProcessOptions?) -> String? {
    hosting == nil ? inProcess.spelling : hosting?.confined == false ? noSandbox.spelling : nil
  }

  /// The options for plugin processes, or nil with `--in-process`. Says
  /// on stderr, as `command`, when `--no-sandbox` leaves them unconfined.
  static func processes(_ arguments: ParsedArguments, executable: String, _ console: Console, command: String) throws
    -> PluginProcessOptions?
  {
    guard !arguments.has(inProcess) else { return nil }
    if arguments.has(noSandbox) {
      console.warning(command, "plugins are not confined (--no-sandbox): each may do whatever you may")
    } else if case let missing = SandboxSupport.current.missing, !missing.isEmpty {
      throw CommandFailure(
        "this kernel cannot confine plugin processes: it lacks \(missing.joined(separator: "; and ")). Run with --no-sandbox to run plugins unconfined (each may then do whatever you may), or on a kernel that has it"
      )
    }
    var options = PluginProcessOptions(executable: executable)
    if let text = arguments.all(responseLimit).last {
      guard let seconds = Double(text), seconds > 0, seconds <= 3600 else {
        throw UsageError(
          "--response-limit takes a number of seconds above 0 and at most 3600, like 3 or 0.5; got '\(text)'")
      }
      options.responseLimit = .milliseconds(Int((seconds * 1000).rounded(.up)))
    }
    if let text = arguments.all(pluginMemory).last {
      guard let mebibytes = Int(text), mebibytes >= 64, mebibytes <= 1 << 20 else {
        throw UsageError("--plugin-memory takes a number of MiB from 64 up, like 512; got '\(text)'")
      }
      options.memoryLimit = mebibytes << 20
    }
    options.confined = !arguments.has(noSandbox)
    options.prepare()
    return options
  }
}
