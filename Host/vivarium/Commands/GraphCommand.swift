import ViperKitHosting
import VivariumLoading
import VivariumTools

/// `vivarium graph`: the route catalog or a live module tree as Graphviz DOT.
enum GraphCommand: Command {
  static let name = "graph"
  static let summary = "Print the app's flow, or the module tree of a deep link, as Graphviz DOT."
  static let synopsis = "vivarium graph [--urn LINK] [--plugins DIR]... [--data DIR]"
  static let details = """
    Without --urn: the app's flow as the contracts declare it: every module, grouped by
    plugin, with an edge for each push, present (dashed), replace (bold) and embed (slot
    name) it declares; the app manifest's start marked, and modules it does not reach
    dashed and labelled as check --app names them (deep-link-only, unreachable). 'vivarium check --app DIR' proves the same links.
    With --urn: opens the URN or deep link and prints the live tree of modules it builds
    (children under parents, pushed screens to the right).

    Render it with Graphviz: vivarium graph | dot -Tsvg > modules.svg
    """
  static let urn = ValueOption("urn", "LINK", "Build LINK (a URN or deep link) and draw its live module tree.")
  static let options: [any CommandOption] = [
    urn,
    CommonOptions.plugins, CommonOptions.data, CommonOptions.noCache, CommonOptions.inProcess,
  ]
  static let exitCodes =
    "0 printed; 1 the URN could not be opened, or a --plugins path does not exist (reason on stderr); 2 usage error."

  static func run(_ arguments: ParsedArguments, _ console: Console) async throws -> Int32 {
    guard arguments.positionals.isEmpty else { throw UsageError("unexpected argument '\(arguments.positionals[0])'") }
    let (discovery, catalog) = try PluginCatalogLoader.load(arguments, console, command: name)
    guard let link = arguments.all(urn).last else {
      var manifest: AppManifest?
      switch AppManifest.find(in: discovery.directories) {
      case .success(let found): manifest = found
      case .failure(let error): console.warning(name, "\(error.description); the start is not marked")
      case nil: manifest = nil
      }
      console.out(GraphvizReport.flow(AppFlow(catalog: catalog, manifest: manifest)))
      return ExitCode.success
    }
    let runtime = try RuntimeSetup.runtime(catalog, arguments, console, command: name)
    defer { runtime.shutdown() }
    do {
      let scheme = try? AppManifest.find(in: discovery.directories)?.get().scheme
      try await runtime.open(link, scheme: scheme)
    } catch {
      console.error(name, error.message)
      return ExitCode.failure
    }
    // Modules in plugin processes embed their children when they answer;
    // a process that does not is marked not responding at its limit first.
    await runtime.settleCalls(limit: RenderCommand.renderLimit)
    console.out(GraphvizReport.tree(runtime))
    return ExitCode.success
  }
}
