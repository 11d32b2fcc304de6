import VivariumLoading
import VivariumRuntime
import VivariumSupport
import VivariumTools

/// `vivarium plugins`: scan, check and load, one row per file.
enum PluginsCommand: Command {
  static let name = "plugins"
  static let summary = "List every plugin file found, loaded or rejected with the reason; turn one off or on."
  static let synopsis =
    "vivarium plugins [disable | enable PLUGIN] [--plugins DIR]... [--json] [--rescan | --no-cache] [--data DIR] | --live [--sort COLUMN] [--times N] [--json] [--data DIR]"
  static let details = """
    Scans each plugin directory for .so files, checks each one (ELF headers, entry symbol,
    descriptor magic, plugin ABI, SDK and Swift compiler versions, contracts) and loads
    the good ones. Prints one row per file: loaded with its URNs, or rejected with what
    is wrong and what to do. Patterns from two plugins that match the same URNs are
    reported as conflicts, and neither is routed. Two patterns that overlap partly
    (items:{kind}:7 and items:detail:{itemID}) are reported as an overlap, naming a URN
    both answer and the one it goes to (a literal segment wins over a placeholder); both
    are routed.

    What each file offers is kept in the plugin registry cache in the data directory, so a
    file that has not changed (same path, size, modification time and inode) is not loaded
    again, nor is one that crashed or hung its probe. A file the cache does not know is
    probed: loaded, with others, in a child process per core. --rescan scans every file
    again and rewrites the cache; --no-cache neither reads nor writes it.

    'disable PLUGIN' turns a plugin off (PLUGIN is its file, its file's name without lib and
    .so, or its declared name) and 'enable PLUGIN' turns it back on; the choice is kept in
    plugins.json in the data directory. A plugin turned off is listed as disabled, and nothing
    of it runs: its modules, routes and services are not offered. An app running on the data
    directory takes the change at once: its modules on screen say the plugin is off, and
    come back when it is turned on.

    --live shows what each plugin of the app running on the data directory is doing, as the
    app publishes it each second while asked (state/plugins-live.json): its state, its process
    id, its share of a core in the last second, its resident and proportional memory, its
    modules live in every session, the host and business service calls and the http requests
    its process made in the last minute, and its restarts. On a terminal it redraws each second
    until Ctrl-C; with --json it writes a JSON line each second.
    """ + "\n\nStates: " + PluginActivity.State.allCases.map(\.rawValue).joined(separator: ", ") + "."
  /// Read where the cache is opened (PluginCatalogLoader).
  static let rescan = FlagOption(
    "rescan", "Forget what the plugin registry cache knows and scan every plugin file again; the cache is rewritten.")
  static let live = FlagOption(
    "live",
    "Show what each plugin of the app running on the data directory is doing, each second: state, process, CPU, memory, modules, calls, restarts."
  )
  static let sort = ValueOption(
    "sort", "COLUMN",
    "With --live: sort by \(PluginActivity.SortKey.allCases.map(\.rawValue).joined(separator: ", ")) (cpu unless given)."
  )
  static let times = ValueOption("times", "N", "With --live: show N times, then end (until Ctrl-C unless given).")
  static let options: [any CommandOption] = [
    CommonOptions.plugins, CommonOptions.json, CommonOptions.inProcess, CommonOptions.noCache, CommonOptions.data,
    rescan, live, sort, times,
  ]
  static let exitCodes = """
    0 the scan ran, even if files were rejected (see each row), the plugin was turned off or on, or --live \
    showed what it was asked to; 1 a directory or file given with --plugins does not exist (it still gets its \
    row), PLUGIN names no plugin or several, the choice cannot be saved, or no app runs on the data directory \
    (--live); 2 usage error.
    """

  /// The actions, each whether it turns the plugin on.
  static let actions: [(name: String, enables: Bool)] = [("disable", false), ("enable", true)]

  static func run(_ arguments: ParsedArguments, _ console: Console) throws -> Int32 {
    if arguments.has(live) {
      guard arguments.positionals.isEmpty else { throw UsageError("--live takes no action; give it alone") }
      return try Self.live(arguments, console)
    }
    if let action = arguments.positionals.first {
      guard let enables = actions.first(where: { $0.name == action })?.enables else {
        let names = actions.map(\.name)
        throw UsageError(
          "unknown action '\(action)'\(Suggestion.didYouMean(action, among: names)); give \(names.joined(separator: " or ")) and a PLUGIN, or none to list (plugin directories go after --plugins)"
        )
      }
      guard arguments.positionals.count == 2 else {
        throw UsageError("\(action) takes one PLUGIN: its file, its file's name without lib and .so, or its name")
      }
      return try turn(arguments.positionals[1], on: enables, arguments, console)
    }
    let (discovery, catalog) = try PluginCatalogLoader.load(arguments, console, command: name, quiet: true)
    let report = PluginsReport(discovery: discovery, catalog: catalog)
    if arguments.has(CommonOptions.json) {
      console.json(report)
    } else {
      console.out(report.text(style: console.style, width: console.width))
    }
    let missing = PluginCatalogLoader.missingPaths(arguments.all(CommonOptions.plugins))
    for path in missing { console.error(name, PluginCatalogLoader.missingMessage(path)) }
    return missing.isEmpty ? ExitCode.success : ExitCode.failure
  }
}

extension PluginsCommand {
  /// Turns the plugin `selector` names on or off, in the data directory's
  /// ``PluginSwitches``.
  fileprivate static func turn(_ selector: String, on: Bool, _ arguments: ParsedArguments, _ console: Console) throws
    -> Int32
  {
    var switches = PluginSwitches(dataDirectory: RuntimeSetup.dataDirectory(arguments, console))
    // A name turned off is turned on even if no file declares it any more.
    if on, switches.isDisabled(selector) {
      return try save(selector, on: true, in: &switches, console)
    }
    let plugin = try PluginCatalogLoader.plugin(named: selector, arguments, console, command: name)
    return try save(plugin.name, on: on, in: &switches, console)
  }

  /// Turns the plugin `name` on or off in `switches`, and says so.
  private static func save(_ name: String, on: Bool, in switches: inout PluginSwitches, _ console: Console) throws
    -> Int32
  {
    let changed: Bool
    do {
      changed = try switches.set(name, enabled: on)
    } catch {
      throw CommandFailure("\(error)")
    }
    let state = on ? "on" : "off"
    console.out("\(name.oneLineVisible) is \(changed ? "now" : "already") \(state) (\(switches.path))")
    return ExitCode.success
  }
}
