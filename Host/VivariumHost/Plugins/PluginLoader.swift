import CViperKit
import Foundation
import Glibc
import ViperKit
import ViperKitTestKit

/// Checks and loads plugin files into this process. A file is read as ELF
/// before it is opened, its descriptor is checked before any of its Swift
/// types is touched, and a loaded plugin is never closed: unloading Swift code
/// leaves dangling pointers in the Swift runtime (DESIGN.md, fact 3).
public struct PluginLoader: Sendable {
  /// Names of the services this host provides to modules.
  public let knownServices: Set<String>
  /// When set, each file is first loaded in a child process.
  public let probe: PluginProbe?
  /// Whether contracts are checked at load; `vivarium check` turns this off
  /// to report contract problems per module instead.
  public let validatesContracts: Bool

  /// A loader for a host that provides `knownServices`; with `probe`, a file
  /// is loaded here only after it loaded cleanly in a child process.
  public init(
    knownServices: Set<String> = HostServices.provided, probe: PluginProbe? = nil, validatesContracts: Bool = true
  ) {
    self.knownServices = knownServices
    self.probe = probe
    self.validatesContracts = validatesContracts
  }

  /// Checks `path` and loads it, or says why not.
  public func load(_ path: String) -> PluginOutcome {
    loadAll([path])[0]
  }

  /// Checks and loads each of `paths`, in order. With a probe, the probe
  /// processes run side by side, one per core, before anything is loaded here.
  public func loadAll(_ paths: [String]) -> [PluginOutcome] {
    var probed = [Rejection?](repeating: nil, count: paths.count)
    if let probe {
      let validating = validatesContracts
      probed = paths.concurrentMap { probe.rejection(for: $0, validatingContracts: validating) }
    }
    return zip(paths, probed).map { path, rejection in rejection.map(PluginOutcome.rejected) ?? loadHere(path) }
  }

  /// Checks `path` and loads it into this process.
  private func loadHere(_ path: String) -> PluginOutcome {
    do {
      return .loaded(try loadChecked(path))
    } catch {
      return .rejected(error)
    }
  }

  /// Whether `path` looks like a plugin (an ELF shared object exporting the
  /// entry symbol), decided from its headers without loading it.
  public static func exportsEntry(_ path: String) -> Bool {
    exportedSymbols(path)?.contains(VK_PLUGIN_ENTRY_SYMBOL) ?? false
  }

  /// The dynamic symbols `path` defines and exports, read from its ELF
  /// headers; nil when it is not a readable ELF file with section headers.
  public static func exportedSymbols(_ path: String) -> Set<String>? {
    guard let bytes = FileManager.default.contents(atPath: path), let elf = try? ELFFile(bytes: bytes) else {
      return nil
    }
    return elf.exportedSymbols
  }

  private func loadChecked(_ path: String) throws(Rejection) -> LoadedPlugin {
    try checkFile(path)
    let start = ContinuousClock.now
    let handle = try open(path)
    guard let symbol = dlsym(handle, VK_PLUGIN_ENTRY_SYMBOL) else {
      throw Rejection(path, .noEntrySymbol, noEntryReason)
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
        "its plugin type is not a ViperPlugin of the host's libViperKit.so; the plugin has its own copy of ViperKit: depend on the ViperKit product (.product(name: \"ViperKit\", package: \"ViperKit\")), not the target, and do not link the Swift standard library statically"
      )
    }
    let factories = plugin.factories()
    guard !factories.isEmpty else {
      throw Rejection(
        path, .noModules, "\(plugin.name).factories() returned no factories; return one per module the plugin offers")
    }
    let problems =
      validatesContracts ? factories.flatMap { ContractCheck.problems($0.contract, knownServices: knownServices) } : []
    guard problems.isEmpty else { throw Rejection(path, .invalidContract, problems) }
    return LoadedPlugin(
      path: path, name: descriptor.pointee.plugin_name.map { String(cString: $0) } ?? plugin.name,
      sdkVersion: DescriptorFields(descriptor.pointee).sdkVersion, factories: factories,
      loadTime: ContinuousClock.now - start)
  }

  private var noEntryReason: String {
    "it exports no '\(VK_PLUGIN_ENTRY_SYMBOL)' symbol, so it is a shared library but not a Vivarium plugin; if it is your plugin, declare @_cdecl(\"\(VK_PLUGIN_ENTRY_SYMBOL)\") public func returning PluginEntry.descriptor(for:)"
  }

  /// Everything that can be said from the file itself, before dlopen.
  private func checkFile(_ path: String) throws(Rejection) {
    var info = stat()
    guard stat(path, &info) == 0 else {
      throw Rejection(path, .unreadable, "cannot read it: \(String(cString: strerror(errno)))")
    }
    guard info.st_mode & S_IFMT == S_IFREG else {
      throw Rejection(path, .notRegularFile, "it is not a regular file; a plugin is a .so file")
    }
    if let problem = FilePermissions.problem(path, isDirectory: false) {
      throw Rejection(path, .unsafePermissions, problem)
    }
    guard let bytes = FileManager.default.contents(atPath: path) else {
      throw Rejection(path, .unreadable, "cannot read it: permission denied or I/O error; check 'ls -l \(path)'")
    }
    let elf: ELFFile
    do {
      elf = try ELFFile(bytes: bytes)
    } catch {
      throw Self.rejection(path, error)
    }
    guard let symbols = elf.exportedSymbols, !symbols.contains(VK_PLUGIN_ENTRY_SYMBOL) else { return }
    if symbols.contains("viperkit_library_version") {
      throw Rejection(
        path, .sdkLibrary,
        "it is the ViperKit SDK library, which the host loads itself, not a plugin; remove it from the plugin directory"
      )
    }
    throw Rejection(path, .noEntrySymbol, noEntryReason)
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
    case .truncated(let expected, let actual):
      Rejection(
        path, .truncated,
        "it is truncated: its headers need at least \(expected) bytes, the file has \(actual); the copy or build was interrupted, rebuild or copy it again"
      )
    }
  }

  private func open(_ path: String) throws(Rejection) -> UnsafeMutableRawPointer {
    if let handle = dlopen(path, RTLD_NOW | RTLD_LOCAL) { return handle }
    let message = dlerror().map { String(cString: $0) } ?? "unknown dlopen error"
    var hint = "rebuild the plugin against this host's ViperKit (\(ViperKitVersion.current)) with the same toolchain"
    if message.contains("undefined symbol") {
      hint =
        "the plugin needs a symbol this host's libraries lack, so it was built against another ViperKit or toolchain; "
        + hint
    }
    throw Rejection(path, .dlopenFailed, "dlopen failed: \(message); \(hint)")
  }
}
