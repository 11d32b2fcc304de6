import CViperKit
import Foundation
import Glibc
import ViperKit
import ViperKitHosting

/// Checks and loads plugin files into this process. A file is opened once,
/// and that open file is what is checked, probed and loaded (``PluginFile``).
/// Its ELF headers are read before any of its code runs, its descriptor is
/// checked before any of its Swift types is touched, and a loaded plugin is
/// never closed: `dlclose` really unmaps a Swift library, and the Swift runtime
/// keeps pointers into it, so the next dynamic cast would crash.
package struct PluginLoader: Sendable {
  /// When set, each file is first loaded in a child process.
  package let probe: PluginProbe?
  /// Whether contracts are checked at load; `vivarium check` turns this off
  /// to report contract problems per module instead.
  package let validatesContracts: Bool
  /// Whether each file is loaded from a private copy (``loadCopy(_:)``),
  /// so that a build written over it in place cannot change the pages this
  /// process runs (`vivarium run --watch --in-process`).
  package var loadsCopies = false
  /// Called with a file's path after its checks (and probe), just before it
  /// is loaded here: for tests that replace the file at that moment.
  let beforeLoading: (@Sendable (String) -> Void)?
  /// Called once the dynamic loader has mapped a file and run its
  /// constructors, just before its entry point is called: a probe tells its
  /// parent, so that a crash before it is known to be in the dynamic loader.
  package var beforeEntry: (@Sendable () -> Void)?
  /// Called once what loading a file needs is made (its tree of links),
  /// just before the dynamic loader maps it and runs its constructors: a
  /// plugin process or a probe confines itself there
  /// (``ProcessConfinement``), so that none of the plugin's code runs
  /// unconfined.
  package var beforeMapping: (@Sendable (PluginMapping) -> Void)?

  /// A loader; with `probe`, a file is loaded here only after it loaded
  /// cleanly in a child process.
  package init(probe: PluginProbe? = nil, validatesContracts: Bool = true) {
    self.init(probe: probe, validatesContracts: validatesContracts, beforeLoading: nil)
  }

  init(probe: PluginProbe? = nil, validatesContracts: Bool = true, beforeLoading: (@Sendable (String) -> Void)?) {
    self.probe = probe
    self.validatesContracts = validatesContracts
    self.beforeLoading = beforeLoading
  }

  /// Checks `path` and loads it, or says why not.
  package func load(_ path: String) -> PluginOutcome {
    loadAll([path])[0]
  }

  /// Checks and loads each of `paths`, in order. Each file is opened once and
  /// everything (the probe included) checks and loads that open file. With a
  /// probe, the files are first probed in batches, one child per core
  /// (``PluginProbe/scan(_:validatingContracts:)``), before anything is
  /// loaded here.
  package func loadAll(_ paths: [String]) -> [PluginOutcome] {
    let files = paths.map { path in Result { () throws(Rejection) in try Self.openChecked(path) } }
    var probed = [Rejection?](repeating: nil, count: paths.count)
    if let probe {
      let opened = files.enumerated().compactMap { index, file in (try? file.get()).map { (index, $0) } }
      let reports = probe.scan(opened.map(\.1), validatingContracts: validatesContracts)
      for ((index, _), report) in zip(opened, reports) {
        if case .failure(let rejection) = report { probed[index] = rejection }
      }
    }
    // Probes that crashed while loading left their load trees behind.
    if probe != nil, !paths.isEmpty { PluginLinks.removeAbandonedTrees() }
    return zip(files, probed).map { file, rejection in
      switch (file, rejection) {
      case (.failure(let rejection), _): return .rejected(rejection)
      case (.success(let file), let rejection?):
        file.close()
        return .rejected(rejection)
      case (.success(let file), nil): return load(file)
      }
    }
  }

  /// Loads the plugin file a parent process handed this one, open as
  /// `descriptor` (``ChildChannel/fileDescriptor``), named `path` in reports.
  package func loadInherited(_ descriptor: Int32, path: String) -> PluginOutcome {
    do {
      return load(try PluginFile.inherited(descriptor, path: path))
    } catch {
      return .rejected(error)
    }
  }

  /// Loads a file already opened and checked by ``openChecked(_:)``. The
  /// descriptor is closed if the file was not loaded, and kept for good if
  /// it was (``PluginFile/descriptor``).
  func load(_ file: PluginFile) -> PluginOutcome {
    var opened = false
    do {
      return .loaded(
        try LoadingGuard.during(file.path) { () throws(Rejection) in try loadChecked(file, opened: &opened) })
    } catch {
      if !opened { file.close() }
      return .rejected(error)
    }
  }

  /// Whether `path` looks like a plugin (an ELF shared object exporting the
  /// entry symbol), decided from its headers without loading it.
  package static func exportsEntry(_ path: String) -> Bool {
    exportedSymbols(path)?.contains(VK_PLUGIN_ENTRY_SYMBOL) ?? false
  }

  /// Whether `path` is a readable ELF shared library that is not a plugin:
  /// one of the other libraries in a build folder.
  static func isOtherLibrary(_ path: String) -> Bool {
    guard let symbols = exportedSymbols(path) else { return false }
    return !symbols.contains(VK_PLUGIN_ENTRY_SYMBOL)
  }

  /// The dynamic symbols `path` defines and exports, read from its ELF
  /// headers; nil when it is not a readable ELF file with section headers.
  package static func exportedSymbols(_ path: String) -> Set<String>? {
    let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    return exportedSymbols(descriptor: fd)
  }

  /// The dynamic symbols the regular file open at `fd` exports; nil as for
  /// ``exportedSymbols(_:)``.
  package static func exportedSymbols(descriptor fd: Int32) -> Set<String>? {
    var info = stat()
    guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
    return (try? ELFFile(fd: fd, size: Int(info.st_size)))?.exportedSymbols ?? nil
  }

  /// Opens `path` and runs every check that needs no plugin code: the file
  /// and the directories above it, then its ELF headers.
  static func openChecked(_ path: String) throws(Rejection) -> PluginFile {
    let file = try PluginFile.open(path)
    do {
      try checkHeaders(file)
    } catch {
      file.close()
      throw error
    }
    return file
  }

  private func loadChecked(_ file: PluginFile, opened: inout Bool) throws(Rejection) -> LoadedPlugin {
    let path = file.path
    beforeLoading?(path)
    let start = ContinuousClock.now
    let handle = try open(file)
    opened = true
    beforeEntry?()
    guard let symbol = dlsym(handle, VK_PLUGIN_ENTRY_SYMBOL) else {
      throw Rejection(path, .noEntrySymbol, Self.noEntryReason)
    }
    let entry = unsafeBitCast(symbol, to: VKPluginEntry.self)
    guard let descriptor = entry() else {
      throw Rejection(
        path, .nullDescriptor,
        "\(VK_PLUGIN_ENTRY_SYMBOL) returned NULL; it must return PluginEntry.descriptor(for: YourPlugin.self)")
    }
    if let rejection = DescriptorCheck.rejection(path, DescriptorFields(descriptor.pointee)) {
      throw rejection
    }
    guard let typePointer = descriptor.pointee.plugin_type, let plugin = PluginEntry.pluginType(from: typePointer)
    else {
      throw Rejection(
        path, .foreignSDKCopy,
        "its plugin type is not a ViperPlugin of the host's libViperKit.so; the plugin has its own copy of ViperKit: depend on the ViperKit product (.product(name: \"ViperKit\", package: \"SDK\")), not the target, and do not link the Swift standard library statically"
      )
    }
    let factories = plugin.factories()
    guard !factories.isEmpty else {
      throw Rejection(
        path, .noModules, "\(plugin.name).factories() returned no factories; return one per module the plugin offers")
    }
    if let tooMany = PluginLimits.rejection(path, count: factories.count) { throw tooMany }
    let problems = validatesContracts ? factories.flatMap { ContractCheck.problems($0.contract) } : []
    guard problems.isEmpty else { throw Rejection(path, .invalidContract, problems) }
    var loaded = LoadedPlugin(
      path: path, name: descriptor.pointee.plugin_name.map { String(cString: $0) } ?? plugin.name,
      sdkVersion: DescriptorFields(descriptor.pointee).sdkVersion, factories: factories,
      loadTime: ContinuousClock.now - start)
    loaded.fileDescriptor = file.descriptor
    loaded.version = plugin.version
    let provided = plugin.providers.map { $0.provision.service }
    if let twice = provided.first(where: { service in provided.filter { $0 == service }.count > 1 }) {
      throw Rejection(
        path, .invalidContract,
        "\(plugin.name).providers lists two providers of the service '\(twice)'; list one provider per service")
    }
    loaded.provides = plugin.provides
    loaded.providerTypes = plugin.providers
    loaded.hosts = plugin.hosts
    loaded.topics = PluginTopics(plugin)
    return loaded
  }

  private static var noEntryReason: String {
    "it exports no '\(VK_PLUGIN_ENTRY_SYMBOL)' symbol, so it is a shared library but not a Vivarium plugin; if it is your plugin, declare @_cdecl(\"\(VK_PLUGIN_ENTRY_SYMBOL)\") package func returning PluginEntry.descriptor(for:)"
  }

  /// What the ELF headers say, read from the open file without loading it.
  @discardableResult
  static func checkHeaders(_ file: PluginFile) throws(Rejection) -> ELFFile {
    let elf: ELFFile
    do {
      elf = try ELFFile(fd: file.descriptor, size: file.size)
    } catch {
      throw rejection(file.path, error)
    }
    guard let symbols = elf.exportedSymbols, !symbols.contains(VK_PLUGIN_ENTRY_SYMBOL) else { return elf }
    if let library = SDKLibrary(exporting: symbols) {
      throw Rejection(
        file.path, .sdkLibrary,
        "it is \(library.description), which the host loads itself, not a plugin; nothing to do in a build folder, otherwise remove it from the plugin directory"
      )
    }
    throw Rejection(file.path, .noEntrySymbol, noEntryReason)
  }

  private static func rejection(_ path: String, _ problem: ELFFile.Problem) -> Rejection {
    switch problem {
    case .empty:
      Rejection(path, .empty, "the file is empty (0 bytes); rebuild the plugin or remove the file")
    case .notELF(let firstBytes):
      Rejection(
        path, .notELF,
        "it is not an ELF shared object (it starts with \"\(firstBytes)\"); only compiled plugins belong in a plugin directory"
      )
    case .unsupported(let why):
      Rejection(path, .wrongPlatform, "\(why); rebuild the plugin on this platform")
    case .notSharedObject(let typeName):
      Rejection(
        path, .notSharedObject,
        "it is \(typeName), not a shared library; build the plugin as a .dynamic library product")
    case .implausible(let what):
      Rejection(
        path, .implausible, "\(what), far more than any plugin; it is not a plugin, or it is damaged: rebuild it")
    case .manifestTooLarge(let bytes):
      Rejection(path, .tooManyModules, PluginLimits.problem(bytes: bytes, as: "its manifest section"))
    case .truncated(let expected, let actual):
      Rejection(
        path, .truncated,
        "it is truncated: its headers need at least \(expected) bytes, the file has \(actual); the copy or build was interrupted, rebuild or copy it again"
      )
    }
  }

  private func open(_ file: PluginFile) throws(Rejection) -> UnsafeMutableRawPointer {
    let message: String
    switch PluginLinks.open(file, beforeMapping: beforeMapping) {
    case .success(let handle): return handle
    case .failure(let error): message = error.message
    }
    var hint = "rebuild the plugin against this host's ViperKit (\(ViperKitVersion.current)) with the same toolchain"
    if message.contains("undefined symbol") {
      hint =
        "the plugin needs a symbol this host's libraries lack, so it was built against another ViperKit or toolchain; "
        + hint
    } else if message.contains("cannot open shared object file") {
      hint =
        "a library it needs is not found: keep the libraries a plugin needs next to it (with $ORIGIN in its run path, as SwiftPM links) or in the system's library path"
    }
    throw Rejection(file.path, .dlopenFailed, "dlopen failed: \(message); \(hint)")
  }
}

/// The SDK's own libraries, recognised by the Swift symbols they define.
private enum SDKLibrary: CustomStringConvertible {
  case viperKit, testKit, hosting

  init?(exporting symbols: Set<String>) {
    if symbols.contains("viperkit_library_version") {
      self = .viperKit
    } else if symbols.contains(where: { $0.hasPrefix("$s012ViperKitTestB0") }) {  // the module ViperKitTestKit, mangled
      self = .testKit
    } else if symbols.contains(where: { $0.hasPrefix("$s15ViperKitHosting") }) {  // the module ViperKitHosting
      self = .hosting
    } else {
      return nil
    }
  }

  var description: String {
    switch self {
    case .viperKit: "the ViperKit SDK library"
    case .testKit: "the ViperKit test kit library (ViperKitTestKit, for plugin tests)"
    case .hosting: "the ViperKit hosting library (ViperKitHosting: the rules host and test kit share)"
    }
  }
}
