import ViperKit

/// Finds out what each plugin file offers while running as little plugin
/// code as it can, and loads none of it into this process unless asked to:
///
/// 1. every file's permissions, and its directories', are checked every
///    time;
/// 2. a file the registry cache knows, unchanged, is taken from the cache:
///    nothing of it is read beyond its `lstat` (``PluginFile/peek``);
/// 3. any other file has its ELF headers checked; one carrying a manifest
///    (``PluginManifest``) is taken at its word, none of its code run; the
///    others are probed in batches (``PluginProbe``), or loaded into this
///    process without a probe (`--in-process`). What that found is
///    remembered in the registry.
///
/// A plugin taken from the cache or a probe is returned not loaded: its
/// factories load it when one of its modules is first built
/// (``PluginActivation``), into this process or, with ``hosting``, into a
/// process of its own.
package struct PluginScanner: Sendable {
  /// Probes the files the cache does not know; nil loads them into this
  /// process instead.
  package var probe: PluginProbe?
  /// Where plugins are activated: nil for this process, else in processes
  /// of their own with these options.
  package var hosting: PluginProcessOptions?
  /// Loads plugins into this process (without a probe of its own).
  package var loader: PluginLoader

  /// A scanner probing with `probe`, activating with `hosting` or `loader`.
  package init(probe: PluginProbe?, hosting: PluginProcessOptions?, loader: PluginLoader = PluginLoader()) {
    self.probe = probe
    self.hosting = hosting
    self.loader = loader
  }

  /// The outcome for each of `paths`, in order, using and updating `registry`.
  package func scanAll(_ paths: [String], registry: inout PluginRegistry) -> [PluginOutcome] {
    scanAll(paths, registry: &registry, directories: DirectoryChecks())
  }

  /// ``scanAll(_:registry:)``, with what this scan already learned of the
  /// files and their directories.
  func scanAll(_ paths: [String], registry: inout PluginRegistry, directories: DirectoryChecks) -> [PluginOutcome] {
    var outcomes = [PluginOutcome?](repeating: nil, count: paths.count)
    var unknown: [(index: Int, file: PluginFile)] = []
    for (index, path) in paths.enumerated() {
      if let key = PluginFile.peek(path, directories: directories), let entry = registry.entry(for: key) {
        outcomes[index] = outcome(path, entry)
        continue
      }
      let file: PluginFile
      do {
        file = try PluginFile.open(path, directories: directories)
      } catch {
        outcomes[index] = .rejected(error)
        continue
      }
      if let entry = registry.entry(for: file.key) {
        file.close()
        outcomes[index] = outcome(path, entry)
        continue
      }
      let elf: ELFFile
      do {
        elf = try PluginLoader.checkHeaders(file)
      } catch {
        file.close()
        outcomes[index] = .rejected(error)
        continue
      }
      guard let manifest = elf.manifest else {
        unknown.append((index, file))
        continue
      }
      // The plugin says what it offers: nothing of it runs until it is needed.
      file.close()
      outcomes[index] = remember(
        file, PluginManifest.record(manifest, path: path, validatingContracts: loader.validatesContracts),
        source: .manifest, in: &registry)
    }
    if let probe {
      let reports = probe.scan(unknown.map(\.file), validatingContracts: loader.validatesContracts)
      for ((index, file), report) in zip(unknown, reports) {
        file.close()
        outcomes[index] = remember(file, report, source: .probe, in: &registry)
      }
      // Probes that crashed while loading left their load trees behind.
      if !unknown.isEmpty { PluginLinks.removeAbandonedTrees() }
    } else {
      for (index, file) in unknown {
        let outcome = loader.load(file)
        switch outcome {
        case .loaded(var plugin):
          registry.remember(file.key, .success(PluginRecord(plugin)))
          plugin.source = .loaded
          outcomes[index] = .loaded(plugin)
        case .rejected(let rejection):
          if rejection.isRemembered { registry.remember(file.key, .failure(rejection)) }
          outcomes[index] = outcome
        }
      }
    }
    return outcomes.map { $0! }
  }

  /// The outcome a registry entry gives.
  private func outcome(_ path: String, _ entry: PluginRegistry.Entry) -> PluginOutcome {
    switch entry.outcome {
    case .success(let record): notLoaded(path, record, source: .cache)
    case .failure(let rejection): .rejected(rejection)
    }
  }

  private func remember(
    _ file: PluginFile, _ report: Result<PluginRecord, Rejection>, source: ScanSource,
    in registry: inout PluginRegistry
  ) -> PluginOutcome {
    switch report {
    case .success(let record):
      registry.remember(file.key, report)
      return notLoaded(file.path, record, source: source)
    case .failure(let rejection):
      if rejection.isRemembered { registry.remember(file.key, report) }
      return .rejected(rejection)
    }
  }

  /// A plugin known from `record`, loaded when one of its modules is built.
  private func notLoaded(_ path: String, _ record: PluginRecord, source: ScanSource) -> PluginOutcome {
    let activation = PluginActivation(path: path, record: record, source: source, hosting: hosting, loader: loader)
    var plugin = LoadedPlugin(
      path: path, name: record.name, sdkVersion: record.sdkVersion,
      modules: record.contracts.enumerated().map { .activation(activation, index: $0, $1) })
    plugin.activation = activation
    plugin.source = source
    plugin.version = record.version
    plugin.provides = record.provides
    plugin.hosts = record.hosts
    plugin.topics = record.topics
    return .loaded(plugin)
  }
}
