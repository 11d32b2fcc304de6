import ViperKitHosting
import VivariumHost

/// `vivarium graph`: the route catalog or a live module tree as Graphviz DOT.
enum GraphCommand: Command {
  static let name = "graph"
  static let summary = "Print the route catalog, or the module tree of a deep link, as Graphviz DOT."
  static let synopsis = "vivarium graph [--urn LINK] [--plugins DIR]... [--data DIR]"
  static let details = """
    Without --urn: every module grouped by plugin, with an edge from each module to those
    its slots accept. With --urn: opens the URN or deep link and prints the live tree of
    modules it builds (children under parents, pushed screens to the right).

    Render it with Graphviz: vivarium graph | dot -Tsvg > modules.svg
    """
  static let options = [
    OptionSpec.value("urn", "LINK", "Build LINK (a URN or deep link) and draw its live module tree."),
    CommonOptions.plugins, RuntimeSetup.data, CommonOptions.noCache, CommonOptions.inProcess,
  ]
  static let exitCodes =
    "0 printed; 1 the URN could not be opened, or a --plugins path does not exist (reason on stderr); 2 usage error."

  static func run(_ arguments: ParsedArguments, _ console: Console) throws -> Int32 {
    guard arguments.positionals.isEmpty else { throw UsageError("unexpected argument '\(arguments.positionals[0])'") }
    let (discovery, catalog) = try PluginCatalogLoader.load(arguments, console, command: name)
    guard let link = arguments.all("urn").last else {
      console.out(GraphvizReport.catalog(catalog))
      return ExitCode.success
    }
    let runtime = try RuntimeSetup.runtime(catalog, arguments, console, command: name)
    defer { runtime.shutdown() }
    do {
      let scheme = try? AppManifest.find(in: discovery.directories)?.get().scheme
      try runtime.open(link, scheme: scheme)
    } catch {
      console.error(name, error.message)
      return ExitCode.failure
    }
    console.out(GraphvizReport.tree(runtime))
    return ExitCode.success
  }
}
