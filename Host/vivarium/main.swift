import Foundation
import ViperKit
import VivariumHost

/// Every subcommand, in the order `vivarium --help` lists them.
let commands: [any Command.Type] = [
  RunCommand.self, PluginsCommand.self, RoutesCommand.self, RenderCommand.self, CheckCommand.self, GraphCommand.self,
  SDKCommand.self, NewCommand.self,
]

let console = Console()
let arguments = Array(CommandLine.arguments.dropFirst())

let mainHelp = """
  vivarium: a host for VIPER modules shipped as shared-object plugins.

  Usage: vivarium COMMAND [OPTIONS]

  Commands:
  \(commands.map { "  " + $0.name.padding(toLength: 10, withPad: " ", startingAt: 0) + $0.summary }.joined(separator: "\n"))
    help      Show help for a command: vivarium help COMMAND

  Options:
    --version  Print the vivarium, ViperKit and Swift compiler versions.
    --help     Show this help.

  Run 'vivarium COMMAND --help' for a command's options and exit codes.
  Exit codes: 0 success; 1 the command failed (reason on stderr); 2 usage error.
  """

@MainActor func runMain() -> Int32 {
  guard let first = arguments.first else {
    console.out(mainHelp)
    return ExitCode.usage
  }
  switch first {
  case "--help", "-h":
    console.out(mainHelp)
    return ExitCode.success
  case "--version":
    console.out("vivarium \(VivariumVersion.current)\nViperKit \(ViperKitVersion.current)\n\(swiftCompilerIdentity())")
    return ExitCode.success
  case PluginProbe.command:
    // The child side of PluginProbe: not for people, so not in --help.
    return PluginProbe.childMain(Array(arguments.dropFirst()))
  case PluginChecker.command:
    // The child side of an isolated check: not for people, so not in --help.
    return PluginChecker.childMain(Array(arguments.dropFirst()))
  case "help":
    guard let topic = arguments.dropFirst().first else {
      console.out(mainHelp)
      return ExitCode.success
    }
    guard let command = commands.first(where: { $0.name == topic }) else {
      console.error("help", "unknown command '\(topic)'; commands: \(commands.map { $0.name }.joined(separator: ", "))")
      return ExitCode.usage
    }
    console.out(command.help)
    return ExitCode.success
  default:
    break
  }
  guard let command = commands.first(where: { $0.name == first }) else {
    console.error(
      first, "unknown command; commands: \(commands.map { $0.name }.joined(separator: ", ")). Run 'vivarium --help'.")
    return ExitCode.usage
  }
  do {
    let parsed = try OptionParser.parse(
      Array(arguments.dropFirst()), options: command.options + [helpOption])
    if parsed.has("help") {
      console.out(command.help)
      return ExitCode.success
    }
    return try command.run(parsed, console)
  } catch let error as UsageError {
    console.error(command.name, "\(error.message). Run 'vivarium \(command.name) --help'.")
    return ExitCode.usage
  } catch {
    console.error(command.name, "\(error)")
    return ExitCode.failure
  }
}

exit(runMain())
