import Foundation
import Testing
import ViperKit

@testable import VivariumApp
@testable import VivariumLoading
@testable import VivariumRuntime
@testable import VivariumSupport
@testable import VivariumTools

/// Storage belongs to the name a plugin declares, not to its file name.
@Suite("Plugin identity")
@MainActor
struct PluginIdentityTests {
  let data: TemporaryDirectory

  init() throws {
    data = try TemporaryDirectory()
  }

  private func store(_ plugin: PluginIdentity, in host: HostServices? = nil) throws -> any KeyValueStore {
    try #require(
      (host ?? TestServices.make(in: data)).services(for: ServicesTests.storage, plugin: plugin, urn: "shop:cart")
        .storage)
  }

  @Test func aPluginCopiedUnderAnotherPluginsFileNameDoesNotGetItsStorage() throws {
    try store(ServicesTests.shop).set("3,7", forKey: "favourites")
    let impostor = PluginIdentity(name: "OtherPlugin", path: "/elsewhere/libShop.so")
    #expect(try store(impostor).value(forKey: "favourites") == nil)
    #expect(FileContents.exists(data.path + "/storage/ShopPlugin.json"))
  }

  @Test func storageKeptUnderTheFileNameMovesToTheDeclaredNameOnce() throws {
    try FileManager.default.createDirectory(atPath: data.path + "/storage", withIntermediateDirectories: true)
    let old = try data.write("storage/Shop.json", Data(#"{"favourites":"3,7"}"#.utf8))
    let host = TestServices.make(in: data)
    #expect(try store(ServicesTests.shop, in: host).value(forKey: "favourites") == "3,7")
    #expect(!FileContents.exists(old))
    #expect(FileContents.exists(data.path + "/storage/ShopPlugin.json"))
    #expect(host.recentLog.contains { $0.contains(old) && $0.contains("\(data.path)/storage/ShopPlugin.json") })
  }

  @Test func theFileNameStoreIsLeftAloneOnceTheDeclaredOneExists() throws {
    try FileManager.default.createDirectory(atPath: data.path + "/storage", withIntermediateDirectories: true)
    let old = try data.write("storage/Shop.json", Data(#"{"favourites":"old"}"#.utf8))
    try data.write("storage/ShopPlugin.json", Data(#"{"favourites":"new"}"#.utf8))
    #expect(try store(ServicesTests.shop).value(forKey: "favourites") == "new")
    #expect(FileManager.default.contents(atPath: old) == Data(#"{"favourites":"old"}"#.utf8))
  }

  @Test(arguments: ["", "..", ".", "../Shop", "a/b", ".hidden", "bell\u{7}", "new\nline"])
  func aNameThatCannotBeAFileNameGetsNoStorage(name: String) throws {
    let plugin = PluginIdentity(name: name, path: "/p/libOdd.so")
    #expect(plugin.storageRefusal?.contains("/p/libOdd.so") == true, "the file: \(plugin.storageRefusal ?? "")")
    let odd = try store(plugin)
    #expect(throws: SaveRefused.self) { try odd.set("x", forKey: "k") }
    #expect(!FileContents.exists(data.path + "/storage"))
  }

  @Test(arguments: ["ProductSearchPlugin", "Outer.Inner", "Box<Int>", "Ünïcode"])
  func ordinaryTypeNamesGetStorage(name: String) {
    #expect(PluginIdentity(name: name, path: "/p/x.so").storageRefusal == nil)
  }

  /// A plugin name is a claim: two files claiming one are refused, both,
  /// each naming the other, so that nothing granted, stored or set for the
  /// name goes to the wrong file.
  @Test func twoPluginsDeclaringOneNameAreBothRefusedNamingEachOther() throws {
    let plugins = try TemporaryDirectory()
    let first = try plugins.copy(BuildProducts.itemsList, as: "libFirst.so")
    let second = try plugins.copy(BuildProducts.itemsList, as: "libSecond.so")
    let discovery = PluginDiscovery(commandLine: [plugins.path], environment: [:], executable: "/x")
    let catalog = PluginCatalog(outcomes: discovery.load(with: PluginLoader()))
    #expect(catalog.loaded.isEmpty && catalog.routes.isEmpty, "neither runs")
    #expect(catalog.rejected.map(\.kind) == [.nameConflict, .nameConflict])
    for rejection in catalog.rejected {
      let reason = rejection.reasons.joined()
      #expect(reason.contains(first) && reason.contains(second) && reason.contains("'ItemsListPlugin'"), "\(reason)")
    }
    #expect(catalog.identityConflicts.map(\.paths) == [[first, second]])
    let report = PluginsReport(discovery: discovery, catalog: catalog)
    #expect(report.text(style: .plain).contains("Identity conflicts"))
    #expect(report.identityConflicts.map(\.plugins) == [[first, second]])
    let encoder = JSONEncoder()
    encoder.outputFormatting = .sortedKeys
    let json = String(decoding: try encoder.encode(report), as: UTF8.self)
    #expect(json.contains(#""identityConflicts":[{"identity":"ItemsListPlugin""#))
    // From the command line: refused, said once, and nothing is routed.
    let run = try ProcessRunner.vivarium(["routes", "--plugins", plugins.path, "--data", data.path])
    #expect(run.stderr.components(separatedBy: "'ItemsListPlugin'").count - 1 == 1, "\(run.stderr)")
    #expect(!run.stdout.contains("items:list"), "\(run.stdout)")
  }

  @Test func distinctPluginsHaveNoIdentityConflict() {
    #expect(BuildProducts.demoCatalog.identityConflicts.isEmpty)
    #expect(Set(BuildProducts.demoCatalog.routes.map(\.identity.name)).count == BuildProducts.builtPluginNames.count)
  }
}
