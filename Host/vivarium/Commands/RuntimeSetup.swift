import Foundation
import VivariumLoading
import VivariumRuntime
import VivariumSupport

/// Builds the runtime a command runs modules in: the services container over
/// the data directory, with the clock virtual when `VIVARIUM_NOW` is set.
@MainActor
enum RuntimeSetup {
  /// The data directory: `--data`, else the environment's default.
  static func dataDirectory(_ arguments: ParsedArguments, _ console: Console) -> String {
    arguments.all(CommonOptions.data).last ?? HostServices.defaultDataDirectory(console.environment)
  }

  /// How a hint names a command that sees what this one does: the plugin
  /// directories given (`plugins`, else each `--plugins`) and the data
  /// directory given.
  static func invocation(_ arguments: ParsedArguments, plugins: [String]? = nil) -> Invocation {
    Invocation(plugins: plugins ?? arguments.all(CommonOptions.plugins), data: arguments.all(CommonOptions.data).last)
  }

  /// The runtime over `catalog`. Warns once on stderr when the session is
  /// read-only (another session holds the data directory) and for each pair
  /// of plugins declaring one identity, which get no storage.
  static func runtime(_ catalog: PluginCatalog, _ arguments: ParsedArguments, _ console: Console, command: String)
    throws -> HostRuntime
  {
    let directory = dataDirectory(arguments, console)
    var now: Double?
    if let fixed = console.environment["VIVARIUM_NOW"], !fixed.isEmpty {
      guard let date = try? Date(fixed, strategy: .iso8601) else {
        throw UsageError("VIVARIUM_NOW is '\(fixed)'; give a time like 2026-01-31T12:00:00Z, or unset it")
      }
      now = date.timeIntervalSince1970
    }
    let httpSetting = console.environment["VIVARIUM_HTTP"]
    guard let httpMode = HTTPMode(environment: httpSetting) else {
      throw UsageError(
        "VIVARIUM_HTTP is '\(httpSetting ?? "")'; give record:DIR to save each response, replay:DIR to answer from saved ones, or unset it"
      )
    }
    let services = HostServices(dataDirectory: directory, now: now)
    services.invocation = invocation(arguments)
    services.httpMode = httpMode
    services.permissions.allowances = try checkedAllowances(arguments, catalog)
    services.logCrashes()
    if let refusal = services.saveRefusal { console.warning(command, refusal) }
    return HostRuntime(catalog: catalog, services: services)
  }

  /// What `run` and `serve` start an app with: the plugin processes'
  /// options, the plugins found and loaded, the app manifest among them,
  /// and the runtime with the manifest's service providers, following the
  /// plugins turned off and on while it runs.
  struct App {
    let hosting: PluginProcessOptions?
    let discovery: PluginDiscovery
    let manifest: AppManifest?
    let runtime: HostRuntime
  }

  /// Loads the plugins `arguments` name and sets up an app's runtime on
  /// them, as `command`; nil when the app manifest cannot be read (said on
  /// stderr).
  static func app(_ arguments: ParsedArguments, _ console: Console, command: String) throws -> App? {
    let hosting = try HostingOptions.processes(
      arguments, executable: PluginCatalogLoader.executablePath, console, command: command)
    let (discovery, catalog) = try PluginCatalogLoader.load(arguments, console, command: command, hosting: hosting)
    var manifest: AppManifest?
    switch AppManifest.find(in: discovery.directories) {
    case .success(let found)?: manifest = found
    case .failure(let error)?:
      console.error(command, error.description)
      return nil
    case nil: break
    }
    let runtime = try Self.runtime(catalog, arguments, console, command: command)
    runtime.host.serviceProviders = manifest?.providers ?? [:]
    // A plugin turned on while the app runs is loaded as the others were;
    // one turned off or on by `vivarium plugins` beside it is followed, and
    // what each plugin does is published for `vivarium plugins --live`.
    runtime.host.reloader = PluginReloader(hosting: hosting)
    runtime.host.keepHouse()
    return App(hosting: hosting, discovery: discovery, manifest: manifest, runtime: runtime)
  }

  /// What `--allow` grants, each naming a loaded plugin and, when it names
  /// a permission, one that plugin declares; else why not.
  private static func checkedAllowances(_ arguments: ParsedArguments, _ catalog: PluginCatalog) throws
    -> [PermissionAllowance]
  {
    let plugins = catalog.loaded.map(PluginIdentity.init)
    let allowances = try HostingOptions.allowances(arguments)
    do {
      for allowance in allowances {
        let named = try PermissionAllowance.plugins(named: allowance.plugin, among: plugins)
        if let permission = allowance.permission { try PermissionAllowance.check(permission, isDeclaredBy: named) }
      }
    } catch {
      throw CommandFailure("--allow: \(error)")
    }
    return allowances
  }
}
