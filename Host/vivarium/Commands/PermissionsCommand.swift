import Foundation
import VivariumLoading
import VivariumRuntime
import VivariumSupport

/// `vivarium permissions`: what each plugin may reach through the host,
/// what the person decided, the decisions changed, and the log of uses.
enum PermissionsCommand: Command {
  static let name = "permissions"
  static let summary = "List, grant, deny and revoke what plugins may reach through the host; --log shows each use."
  static let synopsis =
    "vivarium permissions [grant | deny | revoke PLUGIN [PERMISSION]...] [--log] [--plugins DIR]... [--data DIR] [--json]"
  static let details = """
    A plugin's permissions are what it may reach through the host beyond its own storage: today, each host it \
    may send requests to through the http service (http:HOST). It declares them; you decide. With no action, \
    lists each permission each plugin declares and what you decided: granted, denied, or not decided (the \
    full-screen app asks at its first use; a script or a pipe refuses it unless run with --allow). 'grant', \
    'deny' and 'revoke' (forget the decision) change the decisions for PLUGIN (its file, its file's name without \
    lib and .so, or its declared name), for each PERMISSION given (KIND:SCOPE, such as http:api.open-meteo.com) \
    or all it declares. A decision belongs to the plugin's file and the name it declares: another file claiming \
    the name gets none of it, and a new build asking for a permission never decided stays off until you decide. \
    --log lists every use recorded (plugin, permission, what for, outcome), oldest first. Decisions are kept in \
    permissions.json, uses in permission-uses.jsonl and refusals (those of one kind counted) in \
    permission-refusals.jsonl, in the data directory.
    """
  static let log = FlagOption("log", "List every use of a permission recorded in the data directory, oldest first.")
  static let options: [any CommandOption] = [
    log,
    CommonOptions.plugins, CommonOptions.data, CommonOptions.json, CommonOptions.inProcess, CommonOptions.noCache,
  ]
  static let exitCodes =
    "0 listed, or the decisions saved; 1 PLUGIN names no plugin or several, a PERMISSION is not one it declares, the decisions cannot be saved, or a --plugins path does not exist; 2 usage error."

  /// The actions, each the decision it records.
  static let actions: [(name: String, decision: PermissionDecision)] = [
    ("grant", .granted), ("deny", .denied), ("revoke", .undecided),
  ]

  /// One row of the list.
  struct Row: Encodable {
    let plugin: String
    /// The plugin's file, links resolved: as decisions name it.
    let file: String
    let permission: String
    let decision: PermissionDecision
    /// Whether the plugin declares it (false: a decision about an earlier build's).
    let declared: Bool
    /// Whether the plugin is kept off until this is decided (its build widened its permissions).
    let keptOff: Bool
  }

  static func run(_ arguments: ParsedArguments, _ console: Console) throws -> Int32 {
    let data = RuntimeSetup.dataDirectory(arguments, console)
    if arguments.has(Self.log) {
      guard arguments.positionals.isEmpty else { throw UsageError("--log takes no action; give it alone") }
      return showLog(PermissionLog(dataDirectory: data), arguments, console)
    }
    let (_, catalog) = try PluginCatalogLoader.load(arguments, console, command: name, keepsOff: false)
    let identities = catalog.loaded.map(PluginIdentity.init)
    var store = PermissionStore(dataDirectory: data)
    if let damage = store.damage { console.warning(name, damage) }
    guard let action = arguments.positionals.first else {
      list(identities, store, arguments, console)
      return ExitCode.success
    }
    guard let decision = actions.first(where: { $0.name == action })?.decision else {
      let names = actions.map(\.name)
      throw UsageError(
        "unknown action '\(action)'\(Suggestion.didYouMean(action, among: names)); give \(names.joined(separator: ", ")), or none to list"
      )
    }
    guard arguments.positionals.count > 1 else { throw UsageError("\(action) needs a PLUGIN") }
    let selector = arguments.positionals[1]
    let plugin = try choose(selector, among: identities)
    let permissions = try arguments.positionals.dropFirst(2).map { text in
      guard let permission = PluginPermission(parsing: text) else {
        throw UsageError("'\(text)' is not a permission; write \(PluginPermission.syntax())")
      }
      // A decision an earlier build needed may be forgotten even if this one does not declare it.
      let decidedBefore = decision == .undecided && store.decided(for: plugin).contains { $0.permission == text }
      if !decidedBefore {
        do {
          try PermissionAllowance.check(permission, isDeclaredBy: [plugin])
        } catch {
          throw CommandFailure("\(error)")
        }
      }
      return permission
    }
    let chosen = permissions.isEmpty ? plugin.permissions : permissions
    guard !chosen.isEmpty else {
      throw CommandFailure("\(plugin.name) declares no permission; there is nothing to \(action)")
    }
    do {
      try store.decide(decision, chosen, for: plugin)
    } catch {
      throw CommandFailure("\(error)")
    }
    let done =
      switch decision {
      case .granted: "granted"
      case .denied: "denied"
      case .undecided: "forgot the decision about"
      }
    console.out(
      "\(done) \(chosen.map(\.description).joined(separator: ", ")) for \(plugin.name.oneLineVisible) (\(plugin.path.oneLineVisible))"
    )
    return ExitCode.success
  }

  /// The one plugin `selector` names, or a failure saying which it names.
  private static func choose(_ selector: String, among plugins: [PluginIdentity]) throws -> PluginIdentity {
    do {
      return try PermissionAllowance.plugin(named: selector, among: plugins)
    } catch {
      throw CommandFailure("\(error)")
    }
  }

  private static func list(
    _ plugins: [PluginIdentity], _ store: PermissionStore, _ arguments: ParsedArguments, _ console: Console
  ) {
    let rows = plugins.flatMap { plugin in
      let file = PermissionStore.key(plugin.path)
      let widened = Set(store.widening(plugin))
      let declared = plugin.permissions.map { permission in
        Row(
          plugin: plugin.name, file: file, permission: permission.description,
          decision: store.decision(permission, for: plugin), declared: true, keptOff: widened.contains(permission))
      }
      let names = Set(plugin.permissions.map(\.description))
      let earlier = store.decided(for: plugin).filter { !names.contains($0.permission) }.map {
        Row(
          plugin: plugin.name, file: file, permission: $0.permission, decision: $0.decision, declared: false,
          keptOff: false)
      }
      return declared + earlier
    }
    if arguments.has(CommonOptions.json) { return console.json(rows) }
    console.out("Permissions (decisions in \(store.path))")
    if rows.isEmpty { console.out("  no loaded plugin declares a permission") }
    let pluginWidth = rows.map(\.plugin.oneLineVisible.count).max() ?? 0
    let permissionWidth = rows.map(\.permission.count).max() ?? 0
    for row in rows {
      let plugin = row.plugin.oneLineVisible.padding(toLength: pluginWidth, withPad: " ", startingAt: 0)
      let permission = row.permission.oneLineVisible.padding(toLength: permissionWidth, withPad: " ", startingAt: 0)
      let note =
        row.keptOff
        ? "  (kept off until you decide)" : row.declared ? "" : "  (no longer declared: 'revoke' forgets it)"
      console.out(
        "  \(plugin)  \(permission)  \(row.decision.rawValue.padding(toLength: 11, withPad: " ", startingAt: 0))  \(PathName.lastComponent(row.file))\(note)"
      )
    }
  }

  private static func showLog(_ log: PermissionLog, _ arguments: ParsedArguments, _ console: Console) -> Int32 {
    let (uses, unreadable, problems) = log.uses()
    for problem in problems { console.warning(name, problem) }
    if unreadable > 0 {
      console.warning(
        name, "\(unreadable) lines of \(log.path) or \(log.refusalsPath) could not be read; they are left out")
    }
    if arguments.has(CommonOptions.json) {
      console.json(uses)
      return ExitCode.success
    }
    console.out("Uses of permissions (\(log.path), \(log.refusalsPath))")
    if uses.isEmpty { console.out("  none recorded") }
    for use in uses {
      let time = Date(timeIntervalSince1970: use.time).ISO8601Format()
      // What plugins wrote (their names, their URLs) is shown, never obeyed.
      let said = [use.plugin, use.permission, use.outcome.rawValue, use.what].map(\.oneLineVisible)
      let times = use.count.map { "  (\($0) times, the last)" } ?? ""
      console.out("  \(time)  " + said.joined(separator: "  ") + times)
    }
    return ExitCode.success
  }
}
