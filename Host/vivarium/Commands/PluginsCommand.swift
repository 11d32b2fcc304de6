import VivariumTools

/// `vivarium plugins`: scan, check and load, one row per file.
enum PluginsCommand: Command {
  static let name = "plugins"
  static let summary = "List every plugin file found, loaded or rejected with the reason."
  static let synopsis = "vivarium plugins [--plugins DIR]... [--json] [--rescan | --no-cache] [--data DIR]"
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
    """
  /// Read where the cache is opened (PluginCatalogLoader).
  static let rescan = FlagOption(
    "rescan", "Forget what the plugin registry cache knows and scan every plugin file again; the cache is rewritten.")
  static let options: [any CommandOption] = [
    CommonOptions.plugins, CommonOptions.json, CommonOptions.inProcess, CommonOptions.noCache, CommonOptions.data,
    rescan,
  ]
  static let exitCodes = """
    0 the scan ran, even if files were rejected (see each row); 1 a directory or file given with --plugins does \
    not exist (it still gets its row); 2 usage error.
    """

  static func run(_ arguments: ParsedArguments, _ console: Console) throws -> Int32 {
    guard arguments.positionals.isEmpty else {
      throw UsageError("unexpected argument '\(arguments.positionals[0])'; plugin directories go after --plugins")
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
