import Foundation
import Testing
import VivariumApp
import VivariumLoading
import VivariumRuntime
import VivariumTerminal
import VivariumTools
import VivariumWire

/// Which files of a plugin directory get a row, and how the SDK's own
/// libraries are told apart from broken plugins.
@Suite("Finding plugins")
@MainActor
struct PluginDiscoveryTests {
  @Test func theBundledFolderPassesOverOtherLibrariesButNotJunk() throws {
    let dir = try TemporaryDirectory()
    try dir.copy(BuildProducts.itemsList, as: "libItemsList.so")
    _ = try CPluginBuilder.libraryWithoutEntry(named: "libhelper.so", in: dir)
    try dir.write("junk.so", Data(repeating: 0, count: 4096))
    // The bundled plugins are those next to the executable.
    let discovery = PluginDiscovery(commandLine: [], environment: [:], executable: dir.path + "/vivarium")
    let rows = discovery.load(with: PluginLoader()).map { outcome -> String in
      switch outcome {
      case .loaded(let plugin): "loaded \((plugin.path as NSString).lastPathComponent)"
      case .rejected(let rejection): "\(rejection.kind.rawValue) \((rejection.path as NSString).lastPathComponent)"
      }
    }
    #expect(rows == ["not-elf junk.so", "loaded libItemsList.so"])
  }

  @Test func theSDKLibrariesInABuildFolderAreRecognised() {
    let outcomes = PluginDiscovery(
      commandLine: [BuildProducts.directory], environment: [:], executable: BuildProducts.vivarium
    ).load(with: PluginLoader())
    var kinds: [String: Rejection.Kind] = [:]
    for case .rejected(let rejection) in outcomes {
      kinds[(rejection.path as NSString).lastPathComponent] = rejection.kind
    }
    // The build also makes -tool copies of the SDK libraries for the
    // sample-manifests tool it runs.
    #expect(Set(kinds.values) == [.sdkLibrary], "\(kinds)")
    #expect(Set(kinds.keys).isSuperset(of: ["libViperKit.so", "libViperKitHosting.so", "libViperKitTestKit.so"]))
  }
}

/// A plugin is loaded from the file that was checked, and still finds the
/// libraries it needs next to it.
@Suite("Plugins with libraries of their own")
@MainActor
struct PluginLibraryTests {
  @Test(arguments: [false, true])
  func aLibraryInThePluginsFolderIsFound(probed: Bool) throws {
    let dir = try TemporaryDirectory()
    let plugin = try CPluginBuilder.pluginNeedingALibrary(in: dir)
    let probe = probed ? PluginProbe(executable: BuildProducts.vivarium, timeout: .seconds(30)) : nil
    guard case .rejected(let rejection) = PluginLoader(probe: probe).load(plugin) else {
      Issue.record("a C plugin without a Swift type cannot load")
      return
    }
    // Refused only after dlopen and its entry ran: the library was found.
    #expect(rejection.kind == .foreignSDKCopy, "\(rejection)")
  }

  @Test func aLibraryInASiblingFolderIsFoundThroughItsOwnRunPath() throws {
    let dir = try TemporaryDirectory()
    let plugin = try CPluginBuilder.pluginNeedingALibrary(in: dir, runPath: "$ORIGIN/../lib", libraryFolder: "lib")
    let inPlugins = dir.path + "/plugins/libUser.so"
    try FileManager.default.createDirectory(atPath: dir.path + "/plugins", withIntermediateDirectories: false)
    try FileManager.default.moveItem(atPath: plugin, toPath: inPlugins)
    let outcome = PluginLoader().load(inPlugins)
    guard case .rejected(let rejection) = outcome else {
      Issue.record("a C plugin without a Swift type cannot load: \(outcome)")
      return
    }
    #expect(rejection.kind == .foreignSDKCopy, "\(rejection)")
  }

  @Test func aRunPathClimbingOutOfTheLoadTreeIsRefused() throws {
    let dir = try TemporaryDirectory()
    let climb = "$ORIGIN" + String(repeating: "/..", count: 20) + "/lib"
    let plugin = try CPluginBuilder.pluginNeedingALibrary(in: dir, runPath: climb)
    let outcome = PluginLoader().load(plugin)
    guard case .rejected(let rejection) = outcome else {
      Issue.record("a run path climbing out of the load tree was followed: \(outcome)")
      return
    }
    #expect(rejection.kind == .dlopenFailed)
    #expect(rejection.reasons[0].contains("'\(climb)'"), "the run path entry: \(rejection)")
  }
}
