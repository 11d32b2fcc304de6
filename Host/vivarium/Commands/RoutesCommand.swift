import ViperKitHosting
import VivariumTools

/// `vivarium routes`: the catalog of every module.
enum RoutesCommand: Command {
  static let name = "routes"
  static let summary = "Show every module: URN pattern, plugin, arguments, outputs, slots, services."
  static let synopsis = "vivarium routes [--plugins DIR]... [--json] [--no-cache] [--data DIR]"
  static let details = """
    Prints the catalog of every module the loaded plugins offer: which screen is where.
    Files that were rejected are named on stderr; 'vivarium plugins' says why.
    """
  static let options: [any CommandOption] = [
    CommonOptions.plugins, CommonOptions.json, CommonOptions.inProcess, CommonOptions.noCache, CommonOptions.data,
  ]
  static let exitCodes = "0 the catalog was printed; 1 a --plugins path does not exist; 2 usage error."

  static func run(_ arguments: ParsedArguments, _ console: Console) throws -> Int32 {
    guard arguments.positionals.isEmpty else {
      throw UsageError("unexpected argument '\(arguments.positionals[0])'")
    }
    let (_, catalog) = try PluginCatalogLoader.load(arguments, console, command: name)
    let report = RoutesReport(catalog: catalog)
    if arguments.has(CommonOptions.json) {
      console.json(report)
    } else {
      console.out(report.text(style: console.style, width: console.width))
    }
    return ExitCode.success
  }
}
