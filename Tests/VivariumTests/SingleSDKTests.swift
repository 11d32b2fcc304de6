import CViperKit
import Foundation
import Testing
import ViperKit
import ViperKitHosting
import VivariumApp

/// Host, plugins and this test bundle must share one libViperKit.so, or
/// casts across dlopen fail and SDK globals are duplicated: a type from one
/// copy of ViperKit is a different type from the same one in another copy.
@Suite("One ViperKit per process")
@MainActor
struct SingleSDKTests {
  @Test func pluginFactoryCastsToTheHostsProtocol() throws {
    let handle = try #require(dlopen(BuildProducts.itemsList, RTLD_NOW | RTLD_LOCAL))
    let symbol = try #require(dlsym(handle, "vivarium_plugin_entry"))
    let descriptor = try #require(unsafeBitCast(symbol, to: VKPluginEntry.self)())
    let pluginType = try #require(descriptor.pointee.plugin_type)
    let plugin = try #require(PluginEntry.pluginType(from: pluginType))
    let factories: [any ModuleFactory] = plugin.factories()
    #expect(factories.map(\.contract.urn) == ["items:list"])
  }

  @Test func roleObjectsBuiltByAPluginAreInTheHostsCensus() throws {
    let factory = try #require(BuildProducts.sampleCatalog.loaded.first?.factoriesInThisProcess?.first)
    let scheduler = WorkScheduler(clock: ModuleClock(.real))
    let module = try factory.build(
      ModuleContext(
        urn: "items:list", arguments: Arguments(), router: NullRouter(), canvas: NullCanvas(), messages: NullRouter(),
        work: scheduler.scope(for: "items:list")))
    let census = ModuleCensus.liveRoles()
    for role in module.roles {
      #expect(census.contains { $0 === role }, "\(role.typeName) built by the plugin is missing from the host's census")
    }
  }

  @Test func exactlyOneLibViperKitIsMapped() throws {
    _ = BuildProducts.sampleCatalog
    // /proc files report size 0, so read to the end rather than by size.
    let handle = try #require(FileHandle(forReadingAtPath: "/proc/self/maps"))
    let maps = String(decoding: handle.readDataToEndOfFile(), as: UTF8.self)
    let paths = Set(
      maps.split(separator: "\n").compactMap { line in
        line.split(separator: " ", omittingEmptySubsequences: true).last.map(String.init)
      }.filter { $0.hasSuffix("/libViperKit.so") })
    #expect(paths.count == 1, "\(paths)")
    #expect(maps.contains("/libItemsList.so"), "the sample plugin should be mapped")
  }
}

final class NullCanvas: Canvas {
  func draw(_ tree: ViewNode) {}
}

final class NullRouter: AppRouter, MessagePort {
  func push(_ urn: String) {}
  func present(_ urn: String) {}
  func replace(_ urn: String) {}
  func pop() {}
  func popToRoot() {}
  func dismiss() {}
  func embed(_ urn: String, in slot: String) {}
  func removeChildren(in slot: String) {}
  func showChild(at index: Int, in slot: String) {}
  func emit(_ message: Message) {}
  func send(_ message: Message, toSlot slot: String) {}
}
