import Foundation
import VivariumLoading
import VivariumRuntime

/// Loads the plugins a command line asks for.
enum PluginCatalogLoader {
  /// The directories chosen from `--plugins`, the environment or the bundled
  /// plugins, and everything loaded from them. Unless `quiet` (the `plugins`
  /// command, which reports every file and directory in its rows), a
  /// `--plugins` path (or one of `plugins`, given instead) that does not
  /// exist fails the command before anything is loaded, and each refused file gets a one-line warning on stderr.
  ///
  /// A plugin the registry cache in the data directory knows (unless
  /// `--no-cache`; `--rescan` forgets what it knows) is not probed again,
  /// and none is loaded until one of its modules is built: with `hosting`,
  /// in a process of its own. With `keepsOff`, the plugins the person
  /// turned off (``PluginSwitches``), and those whose new build asks for
  /// permissions never decided, are kept out of the catalog.
  @MainActor
  static func load(
    _ arguments: ParsedArguments, _ console: Console, command: String, quiet: Bool = false,
    hosting: PluginProcessOptions? = nil, plugins: [String]? = nil, keepsOff: Bool = true
  ) throws -> (PluginDiscovery, PluginCatalog) {
    let paths = plugins ?? arguments.all(CommonOptions.plugins)
    if !quiet, let missing = missingPaths(paths).first { throw CommandFailure(missingMessage(missing)) }
    let discovery = PluginDiscovery(
      commandLine: paths, environment: console.environment, executable: executablePath)
    var registry = PluginRegistry.none
    if !arguments.has(CommonOptions.noCache) {
      let opened = PluginRegistry.open(
        dataDirectory: RuntimeSetup.dataDirectory(arguments, console), rescan: arguments.has(PluginsCommand.rescan))
      registry = opened.0
      if let warning = opened.warning { console.warning(command, warning) }
    }
    var loader = PluginLoader()
    // A build copied over a plugin file in place must not change the code running here.
    loader.loadsCopies = hosting == nil && arguments.has(Watching.watch)
    let probe = arguments.has(CommonOptions.inProcess) ? nil : PluginProbe(executable: executablePath)
    let scanner = PluginScanner(probe: probe, hosting: hosting, loader: loader)
    var outcomes = discovery.scan(with: scanner, registry: &registry)
    // A plugin turned off, or whose new build asks for permissions never
    // decided, stays off.
    if keepsOff {
      let data = RuntimeSetup.dataDirectory(arguments, console)
      let invocation = RuntimeSetup.invocation(arguments, plugins: paths)
      let switches = PluginSwitches(dataDirectory: data)
      if let damage = switches.damage { console.warning(command, damage) }
      outcomes = switches.keepingOffDisabled(outcomes, invocation: invocation)
      outcomes = PermissionStore(dataDirectory: data).keepingOffWidened(
        outcomes, allowances: try HostingOptions.allowances(arguments), invocation: invocation)
    }
    do {
      try registry.save()
    } catch {
      console.warning(command, error.description)
    }
    let catalog = PluginCatalog(outcomes: outcomes)
    // A plugin refused for a name another file claims too ends here.
    for (scanned, kept) in zip(outcomes, catalog.outcomes) {
      if case .loaded(let plugin) = scanned, case .rejected = kept { plugin.process?.terminate() }
    }
    if !quiet {
      var said: Set<String> = []
      for rejection in catalog.rejected where !rejection.isSDKLibrary {
        // Kept off for its permissions or its name: the reason is the person's
        // to act on, here (once, though it names several files).
        let warning =
          [.permissionsWidened, .nameConflict, .disabled].contains(rejection.kind)
          ? rejection.reasons.joined(separator: " ")
          : "skipped \(rejection.path) (\(rejection.kind.rawValue)); run \(RuntimeSetup.invocation(arguments, plugins: paths).command("plugins")) for the reason"
        if said.insert(warning).inserted { console.warning(command, warning) }
      }
      for conflict in catalog.conflicts {
        console.warning(command, conflict.message)
      }
      for overlap in catalog.overlaps {
        console.warning(command, overlap.message)
      }
    }
    return (discovery, catalog)
  }

  /// The one plugin `selector` names (its file, its file's name without
  /// `lib` and `.so`, or its declared name) among those the command line
  /// loads, those turned off included; a failure (exit 1) naming it and
  /// what to do when it names none or several.
  @MainActor
  static func plugin(named selector: String, _ arguments: ParsedArguments, _ console: Console, command: String) throws
    -> PluginIdentity
  {
    let (_, catalog) = try load(arguments, console, command: command, quiet: true, keepsOff: false)
    do {
      return try PermissionAllowance.plugin(named: selector, among: catalog.loaded.map(PluginIdentity.init))
    } catch {
      throw CommandFailure("\(error)")
    }
  }

  /// The plugin paths given (with `--plugins`) that do not exist.
  static func missingPaths(_ paths: [String]) -> [String] {
    paths.filter { !FileManager.default.fileExists(atPath: $0) }
  }

  /// What is said about a `--plugins` path that does not exist.
  static func missingMessage(_ path: String) -> String {
    "there is no plugin directory or file '\(path)' (given with --plugins); check the path"
  }

  /// The running executable, whose directory holds the bundled plugins.
  static var executablePath: String {
    (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
  }
}

/// A command that cannot go on: `main` prints the message on stderr and exits 1.
struct CommandFailure: Error, CustomStringConvertible {
  let description: String
  init(_ description: String) { self.description = description }
}
