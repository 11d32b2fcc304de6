import Foundation
import ViperKit
import VivariumApp
import VivariumLoading
import VivariumPluginSide
import VivariumSupport

/// Every subcommand, in the order `vivarium --help` lists them.
let commands: [any Command.Type] = [
  RunCommand.self, ServeCommand.self, PluginsCommand.self, RoutesCommand.self, ServicesCommand.self,
  PermissionsCommand.self, SettingsCommand.self, LogCommand.self,
  RenderCommand.self, CheckCommand.self,
  GraphCommand.self,
  SDKCommand.self, NewCommand.self, ManifestCommand.self,
]

// The plugin processes' fork server must start before anything else runs:
// no thread, no dispatch queue, so that each fork of it is clean.
if ZygoteMain.isZygote(Array(CommandLine.arguments.dropFirst())) {
  ZygoteMain.run(Array(CommandLine.arguments.dropFirst()))
}
// A plugin hosted in a process of its own (the plugin's side of it, which the
// host's PluginSupervisor started), not for people:
// its main thread reads the host's socket and drains the main queue itself.
if PluginServer.isPluginProcess(Array(CommandLine.arguments.dropFirst())) {
  PluginServer.childMain(Array(CommandLine.arguments.dropFirst()))
}
// The child side of PluginProbe, not for people (so not in --help): before
// any task or thread starts, so that it can move into a network namespace
// of its own (ProcessConfinement.isolateNetwork needs one thread).
if CommandLine.arguments.dropFirst().first == PluginProbe.command {
  exit(PluginProbe.childMain(Array(CommandLine.arguments.dropFirst(2))))
}
// A crash report goes to stderr at once: never a screen waiting for keys.
CrashReport.keepTheTerminal()

let console = Console()
let arguments = Array(CommandLine.arguments.dropFirst())

/// `vivarium --help`, laid out when asked for: not at every command's start.
@MainActor func mainHelp() -> String {
  let mainCommands = HelpLayout.table(
    commands.map { ($0.name, $0.summary) } + [("help", "Show help for a command: vivarium help COMMAND")])
  let mainOptions = HelpLayout.table([
    ("--version", "Print the vivarium, ViperKit and Swift compiler versions."), ("--help", "Show this help."),
  ])
  return """
    vivarium: a host for VIPER modules shipped as shared-object plugins.

    Usage: vivarium COMMAND [OPTIONS]

    Commands:
    \(mainCommands)

    Options:
    \(mainOptions)

    Run 'vivarium COMMAND --help' for a command's options and exit codes.
    \(HelpLayout.paragraphs("Exit codes: 0 success; 1 the command failed (reason on stderr); 2 usage error."))
    """
}

/// `unknown command 'WORD'`, with the closest command suggested, else the list.
@MainActor func unknownCommand(_ word: String) -> String {
  let names = commands.map { $0.name } + ["help"] + (word.hasPrefix("-") ? ["--help", "--version"] : [])
  return "unknown \(word.hasPrefix("-") ? "option" : "command") '\(word)'"
    + Suggestion.didYouMean(word, among: names, otherwise: "; commands: \(names.joined(separator: ", "))")
}

/// `message` ended as a sentence, then `next`.
func sentence(_ message: String, then next: String) -> String {
  message + (message.hasSuffix("?") || message.hasSuffix(".") ? " " : ". ") + next
}

@MainActor func runMain() async -> Int32 {
  guard let first = arguments.first else {
    console.out(mainHelp())
    return ExitCode.usage
  }
  switch first {
  case "--help", "-h":
    console.out(mainHelp())
    return ExitCode.success
  case "--version":
    console.out("vivarium \(VivariumVersion.current)\nViperKit \(ViperKitVersion.current)\n\(swiftCompilerIdentity())")
    return ExitCode.success
  case "help":
    // `vivarium help`, `vivarium help --help` and `vivarium help help` all print the main help.
    guard let topic = arguments.dropFirst().first, !["--help", "-h", "help"].contains(topic) else {
      console.out(mainHelp())
      return ExitCode.success
    }
    guard let command = commands.first(where: { $0.name == topic }) else {
      console.error("help", sentence(unknownCommand(topic), then: "Run 'vivarium --help'."))
      return ExitCode.usage
    }
    console.out(command.help)
    return ExitCode.success
  default:
    break
  }
  guard let command = commands.first(where: { $0.name == first }) else {
    console.error("", sentence(unknownCommand(first), then: "Run 'vivarium --help'."))
    return ExitCode.usage
  }
  do {
    let parsed = try OptionParser.parse(
      Array(arguments.dropFirst()), options: command.options + [helpOption])
    if parsed.has(helpOption) {
      console.out(command.help)
      return ExitCode.success
    }
    return try await command.run(parsed, console)
  } catch let error as UsageError {
    console.error(command.name, sentence(error.message, then: "Run 'vivarium \(command.name) --help'."))
    return ExitCode.usage
  } catch {
    console.error(command.name, "\(error)")
    return ExitCode.failure
  }
}

/// Loaded plugins keep their file open for good (PluginFile), so the soft
/// limit on open files is raised to the hard one, as far as it allows.
func raiseOpenFileLimit() {
  var limit = rlimit()
  guard getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur < limit.rlim_max else {
    return
  }
  limit.rlim_cur = limit.rlim_max
  _ = setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit)
}

raiseOpenFileLimit()
// No `await` at the top level, which would make all of this file async and
// start dispatch before the zygote check above.
Task { @MainActor in exit(await runMain()) }
dispatchMain()
