import ViperKit
import ViperKitHosting
import VivariumLoading
import VivariumSupport

/// What every session in one host process shares: the catalog of plugins
/// (and through it their processes), the business services' graph and
/// router, and the host services (storage and settings with their single
/// writer, permissions, http, the log and the clock) over one data
/// directory. Each session (``HostRuntime``) owns its navigation: layers,
/// modals, focus, problems, notices and the work its modules started.
///
/// Modules of every session of a plugin live in that plugin's one process;
/// a reload or a restart of a plugin is recovered in place in every session
/// that shows its modules (``reload(_:)``, ``HostRuntime/restartPlugin(of:)``).
@MainActor
package final class SharedHost {
  /// Where modules come from.
  package internal(set) var catalog: PluginCatalog {
    didSet {
      catalogVersion += 1
      resolvedServices = nil
      serviceRouter.catalogChanged()
      services.settingOwnership = catalog.settingOwnership
    }
  }
  /// How many times ``catalog`` changed: the modules resolved before a
  /// reload are those of an earlier version (``ModuleNode/catalogVersion``).
  private(set) var catalogVersion = 0
  /// The plugin to use for each business service several plugins provide
  /// (the app manifest's `providers`).
  package var serviceProviders: [String: String] = [:] {
    didSet {
      resolvedServices = nil
      serviceRouter.catalogChanged()
    }
  }
  /// The catalog's business services, resolved when a module first needs them.
  private var resolvedServices: ServiceGraph?
  /// The catalog's business services, resolved (``ServiceGraph``).
  package var serviceGraph: ServiceGraph {
    if let resolvedServices { return resolvedServices }
    let graph = catalog.services(chosen: serviceProviders)
    resolvedServices = graph
    return graph
  }
  /// The services handed to modules.
  package let services: HostServices
  /// Loads a plugin file while the app runs, as its plugins are hosted:
  /// how a plugin turned on comes back (``turnOn(_:)``); nil when this
  /// host loads none after its start.
  package var reloader: PluginReloader?
  /// The plugins the person turned off, as this host last read them.
  var switches: PluginSwitches
  /// What the plugin processes cost at the last sample (``sampleProcesses()``).
  let sampler = ProcessSampler()
  /// Whether a sample of the plugin processes is under way (``showActivity()``).
  var lookUnderWay = false
  /// The last change of ``switches`` asked, which the next one waits for.
  var switchTurn: Task<Void, Never>?
  /// Plugins in the host's process turned off, by file: taken back as they
  /// are when turned on (code loaded in a process is never unloaded).
  var parkedPlugins: [String: LoadedPlugin] = [:]
  /// The plugins screens open, in every session: redrawn each second.
  var pluginsScreens = WeakRegistry<PluginsScreen.Presenter>()
  /// The log screens open, in every session: redrawn each second when new lines came.
  var logScreens = WeakRegistry<LogScreen.Presenter>()
  /// The host's own screens (``PluginsScreen``, ``SettingsScreen``), by URN.
  private lazy var hostScreens: [String: Route] = {
    var screens: [String: Route] = [:]
    screens[PluginsScreen.urn] = PluginsScreen.route(for: self)
    screens[SettingsScreen.urn] = SettingsScreen.route(for: self)
    screens[LogScreen.urn] = LogScreen.route(for: self)
    return screens
  }()

  /// Resolves `urn` to one of the host's own screens, else to a module of
  /// the catalog (``PluginCatalog/resolve(_:arguments:invocation:)``).
  package func resolve(_ urn: String, arguments: [(name: String, value: String)], invocation: Invocation)
    throws(ResolveError) -> ResolvedModule
  {
    if let screen = hostScreens[urn], arguments.isEmpty {
      return ResolvedModule(urn: urn, route: screen, arguments: Arguments([:]))
    }
    return try catalog.resolve(urn, arguments: arguments, invocation: invocation)
  }
  /// Where business service calls go.
  private(set) lazy var serviceRouter = ServiceRouter(host: self)
  /// The sessions open on this host, in the order they were opened; a
  /// session leaves the list when it shuts down or is released.
  private var openSessions = WeakRegistry<HostRuntime>()
  /// The sessions' askers in the order they became able to ask, the
  /// first still able the host's (``PermissionGate/askerForTheHost``):
  /// those gone or no longer able are dropped as they reach the front, so
  /// finding it costs the same however many sessions are open.
  private var askers = FIFO<WeakAsker>()

  private struct WeakAsker {
    weak var asker: PermissionAsker?
  }

  /// A host over `catalog` with `services`.
  package init(catalog: PluginCatalog, services: HostServices) {
    self.catalog = catalog
    self.services = services
    switches = PluginSwitches(dataDirectory: services.dataDirectory)
    services.settingOwnership = catalog.settingOwnership
    // Events go to the plugins of the catalog as it is when they are published.
    services.events.plugins = { [weak self] in self?.catalog.loaded ?? [] }
    // A provider serves every session: its uses are asked where a person can be.
    services.permissions.askerForTheHost = { [weak self] in self?.firstAbleAsker() }
  }

  private func firstAbleAsker() -> PermissionAsker? {
    while let first = askers.first {
      if let asker = first.asker, asker.ask != nil { return asker }
      _ = askers.popFirst()
    }
    return nil
  }

  /// The sessions open on this host, oldest first.
  package var sessions: [HostRuntime] { openSessions.objects }

  /// Opens a new session on this host, with nothing on screen yet.
  package func openSession() -> HostRuntime { HostRuntime(host: self) }

  /// Adds `session` to ``sessions`` (its initializer calls this).
  func register(_ session: HostRuntime) {
    openSessions.add(session)
    session.permissionAsker.becameAble = { [weak self] asker in self?.askers.append(WeakAsker(asker: asker)) }
    services.announcements.listen(session.notifications)
  }

  /// Removes `session` from ``sessions`` (its ``HostRuntime/shutdown()`` calls this).
  func unregister(_ session: HostRuntime) {
    openSessions.remove(session)
    // A session that ended asks nobody.
    session.permissionAsker.ask = nil
    services.announcements.stopListening(session.notifications)
  }

  /// What carries the business service calls of a consumer `urn` of the
  /// plugin `plugin` that requires `requires`, as a module's do: for
  /// benchmarks and tools that call services without a module.
  package func serviceCalls(as urn: String, in plugin: String, requiring requires: [ServiceRequirement])
    -> (any ServiceCalling)?
  {
    serviceRouter.calls(of: .module(urn), named: urn, in: plugin, requiring: requires)
  }

  /// Runs `question`, which waits for the person (a permission asked), with
  /// every business service call's deadline stopped meanwhile: the time the
  /// person takes to answer is not held against a provider.
  package func waitingForThePerson<Answer: Sendable>(_ question: () async -> Answer) async -> Answer {
    serviceRouter.deadlines.hold()
    defer { serviceRouter.deadlines.release() }
    return await question()
  }
}
