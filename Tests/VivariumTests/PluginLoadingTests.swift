import Foundation
import Testing
import ViperKit
import VivariumLoading

@Suite("Loading the sample plugins")
@MainActor
struct PluginLoadingTests {
  @Test func bothSamplePluginsLoadWithTheirURNs() throws {
    let catalog = BuildProducts.sampleCatalog
    #expect(catalog.rejected.isEmpty, "\(catalog.rejected)")
    #expect(catalog.loaded.map(\.name) == ["ItemsListPlugin", "ItemsDetailPlugin"])
    #expect(catalog.loaded.allSatisfy { $0.sdkVersion == .current })
    #expect(catalog.routes.map(\.pattern.text) == ["items:list", "items:detail:{itemID}"])
    #expect(catalog.conflicts.isEmpty)
  }

  @Test func bundledDiscoveryFindsOnlyPluginsInTheBuildFolder() {
    let discovery = PluginDiscovery(commandLine: [], environment: [:], executable: BuildProducts.vivarium)
    #expect(discovery.source == .bundled)
    let paths = discovery.load(with: PluginLoader()).map(\.path)
    #expect(Set(paths) == Set(BuildProducts.builtPluginNames.map { "\(BuildProducts.directory)/lib\($0).so" }))
  }

  @Test func commandLineBeatsEnvironmentBeatsBundled() {
    let env = ["VIVARIUM_PLUGIN_PATH": "/a:/b"]
    #expect(PluginDiscovery(commandLine: ["/c"], environment: env, executable: "/x/vivarium").directories == ["/c"])
    let fromEnv = PluginDiscovery(commandLine: [], environment: env, executable: "/x/vivarium")
    #expect(fromEnv.directories == ["/a", "/b"])
    #expect(fromEnv.source == .environment)
    #expect(PluginDiscovery(commandLine: [], environment: [:], executable: "/x/vivarium").directories == ["/x"])
  }

  @Test func loadingTheSameFileTwiceIsHarmless() {
    let first = PluginLoader().load(BuildProducts.itemsList)
    let second = PluginLoader().load(BuildProducts.itemsList)
    guard case .loaded(let a) = first, case .loaded(let b) = second else {
      Issue.record("both loads should succeed")
      return
    }
    #expect(a.contracts == b.contracts)
  }
}
