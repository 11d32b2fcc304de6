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

  @Test func twoLoadedPluginsDeclaringOneNameConflictAndNeitherGetsStorage() throws {
    let plugins = try TemporaryDirectory()
    let first = try plugins.copy(BuildProducts.itemsList, as: "libFirst.so")
    let second = try plugins.copy(BuildProducts.itemsList, as: "libSecond.so")
    let discovery = PluginDiscovery(commandLine: [plugins.path], environment: [:], executable: "/x")
    let catalog = PluginCatalog(outcomes: discovery.load(with: PluginLoader()))
    #expect(catalog.identityConflicts.count == 1)
    let message = try #require(catalog.identityConflicts.first?.message)
    #expect(message.contains(first) && message.contains(second) && message.contains("'ItemsListPlugin'"))
    #expect(catalog.routes.count == 2)
    for route in catalog.routes {
      #expect(route.identity.storageRefusal == message)
      #expect {
        try store(route.identity).set("x", forKey: "k")
      } throws: { error in
        "\(error)" == message
      }
    }
    let report = PluginsReport(discovery: discovery, catalog: catalog)
    #expect(report.text(style: .plain).contains("Identity conflicts"))
    #expect(report.identityConflicts.map(\.plugins) == [[first, second]])
    let encoder = JSONEncoder()
    encoder.outputFormatting = .sortedKeys
    let json = String(decoding: try encoder.encode(report), as: UTF8.self)
    #expect(json.contains(#""identityConflicts":[{"identity":"ItemsListPlugin""#))
  }

  @Test func distinctPluginsHaveNoIdentityConflict() {
    #expect(BuildProducts.demoCatalog.identityConflicts.isEmpty)
    #expect(Set(BuildProducts.demoCatalog.routes.map(\.identity.name)).count == BuildProducts.builtPluginNames.count)
  }
}
