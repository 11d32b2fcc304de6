import VivariumLoading
import VivariumTools

/// `vivarium services`: the business services the plugins provide, and
/// who uses them.
enum ServicesCommand: Command {
  static let name = "services"
  static let summary = "Show each business service: version, provider plugin, consumers and the versions they accept."
  static let synopsis = "vivarium services [--plugins DIR]... [--json] [--no-cache] [--data DIR]"
  static let details = """
    Resolves the services the loaded plugins provide and require, from their manifests, before any of their \
    modules runs: a required service no plugin provides, a provider outside the versions a consumer accepts, \
    services that require each other, and two providers of one service are errors; an optional service no \
    plugin provides is a note. When several plugins provide one service, the app manifest beside them \
    (vivarium-app.json) names the one to use: {"providers": {"SERVICE": "PLUGIN"}}.
    """
  static let options: [any CommandOption] = [
    CommonOptions.plugins, CommonOptions.json, CommonOptions.inProcess, CommonOptions.noCache, CommonOptions.data,
  ]
  static let exitCodes =
    "0 the services resolve; 1 a finding is an error (listed), or a --plugins path does not exist; 2 usage error."

  static func run(_ arguments: ParsedArguments, _ console: Console) throws -> Int32 {
    guard arguments.positionals.isEmpty else {
      throw UsageError("unexpected argument '\(arguments.positionals[0])'")
    }
    let (discovery, catalog) = try PluginCatalogLoader.load(arguments, console, command: name)
    // The app manifest beside the plugins chooses among several providers of one service.
    let manifest = try? AppManifest.find(in: discovery.directories)?.get()
    let report = ServicesReport(catalog: catalog, chosen: manifest?.providers ?? [:])
    if arguments.has(CommonOptions.json) {
      console.json(report)
    } else {
      console.out(report.text(style: console.style, width: console.width))
    }
    return report.hasErrors ? ExitCode.failure : ExitCode.success
  }
}
