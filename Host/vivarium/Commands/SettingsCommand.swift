import VivariumLoading
import VivariumRuntime
import VivariumSupport

/// `vivarium settings`: the settings plugins declare for the person, listed,
/// read, set and reset in the data directory.
enum SettingsCommand: Command {
  static let name = "settings"
  static let summary = "List, read, set or reset the settings plugins declare for the person."
  static let synopsis =
    "vivarium settings [PLUGIN [KEY [VALUE | --reset]]] [--plugins DIR]... [--json] [--no-cache] [--data DIR]"
  static let details = """
    Lists the settings the loaded plugins declare with a type, each with its value, its default, the values \
    it takes and what it changes; with PLUGIN (its file, its file's name without lib and .so, or its declared \
    name), only that plugin's. With KEY, prints the setting's value; with VALUE, sets it, and with --reset, \
    sets it back to its default. A value is checked against the setting's declaration: one of another type, \
    out of its range or not among its choices is refused, naming the declaration. The settings are kept in \
    settings.json in the data directory; an app running on it takes a change within a second, and its \
    modules showing the setting redraw.
    """
  static let reset = FlagOption("reset", "With PLUGIN KEY: set the setting back to its default.")
  static let options: [any CommandOption] = [
    CommonOptions.plugins, CommonOptions.json, CommonOptions.inProcess, CommonOptions.noCache, CommonOptions.data,
    reset,
  ]
  static let exitCodes = """
    0 the settings were listed, read, set or reset; 1 PLUGIN names no plugin or several, KEY is not a setting \
    of it, VALUE is not one the setting takes, or the settings cannot be saved; 2 usage error.
    """

  static func run(_ arguments: ParsedArguments, _ console: Console) throws -> Int32 {
    let positionals = arguments.positionals
    guard positionals.count <= 3 else { throw UsageError("unexpected argument '\(positionals[3])'") }
    if arguments.has(reset) {
      guard positionals.count == 2 else { throw UsageError("--reset takes a PLUGIN and a KEY, and no VALUE") }
    }
    let (_, catalog) = try PluginCatalogLoader.load(arguments, console, command: name, keepsOff: false)
    let editor = SettingsEditor(
      dataDirectory: RuntimeSetup.dataDirectory(arguments, console),
      ownership: SettingOwnership(catalog.loaded)
    ) { problem in console.warning(name, problem) }
    guard let selector = positionals.first else {
      show(editor.rows(), arguments, console)
      return ExitCode.success
    }
    let plugin: PluginIdentity
    do {
      plugin = try PermissionAllowance.plugin(named: selector, among: catalog.loaded.map(PluginIdentity.init))
    } catch {
      throw CommandFailure("\(error)")
    }
    let rows = editor.rows(of: plugin.name)
    guard positionals.count > 1 else {
      show(rows, arguments, console)
      return ExitCode.success
    }
    let key = positionals[1]
    guard rows.contains(where: { $0.key == key }) else {
      let keys = rows.map(\.key)
      throw CommandFailure(
        "\(plugin.name.oneLineVisible) declares no setting '\(key.oneLineVisible)' a person may change"
          + Suggestion.didYouMean(
            key, among: keys,
            otherwise: keys.isEmpty ? "; it declares none" : "; it declares \(keys.joined(separator: ", "))"))
    }
    do {
      if positionals.count == 3 {
        try editor.set(key, to: positionals[2])
      } else if arguments.has(reset) {
        try editor.reset(key)
      }
      let row = try editor.row(key)
      if arguments.has(CommonOptions.json) {
        console.json(row)
      } else if positionals.count == 2, !arguments.has(reset) {
        console.out(row.value.oneLineVisible)
      } else {
        let now = row.isDefault ? "its default, \(row.value)" : row.value
        console.out("\(key.oneLineVisible) is now \(now.oneLineVisible)")
      }
    } catch {
      throw CommandFailure(error.description)
    }
    return ExitCode.success
  }

  /// Lists `rows`, as JSON or as text grouped by plugin.
  private static func show(_ rows: [SettingsEditor.Row], _ arguments: ParsedArguments, _ console: Console) {
    if arguments.has(CommonOptions.json) { return console.json(rows) }
    guard !rows.isEmpty else { return console.out("No plugin loaded declares a setting a person may change.") }
    let style = console.style
    var lines: [String] = []
    var plugin: String?
    for row in rows {
      if row.plugin != plugin {
        if plugin != nil { lines.append("") }
        plugin = row.plugin
        lines.append(style.bold(row.plugin.oneLineVisible))
      }
      let value = row.isDefault ? "\(row.value) (default)" : "\(row.value) (default \(row.defaultValue))"
      lines.append("  \(row.key.oneLineVisible) = \(value.oneLineVisible)")
      lines.append("      " + style.dim("\(row.description) Takes \(row.values).".oneLineVisible))
    }
    console.out(lines.joined(separator: "\n"))
  }
}
