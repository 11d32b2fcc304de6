import CViperKit
import Foundation
import Testing
import ViperKit

@testable import VivariumTools

/// The name a descriptor declares keys the plugin's storage (docs/using-the-app.md, "The data directory"),
/// so it must stay the plugin type's name as `String(describing:)` gives it.
@Suite("Plugin names in descriptors")
@MainActor
struct PluginEntryNameTests {
  /// `plugin_name` and `plugin_type` of `library`'s descriptor.
  private func descriptor(of library: String) throws -> (name: String, type: any ViperPlugin.Type) {
    let handle = try #require(dlopen(library, RTLD_NOW | RTLD_LOCAL), "\(String(cString: dlerror()))")
    let symbol = try #require(dlsym(handle, VK_PLUGIN_ENTRY_SYMBOL))
    let descriptor = try #require(unsafeBitCast(symbol, to: VKPluginEntry.self)())
    let name = try #require(descriptor.pointee.plugin_name)
    let type = try #require(descriptor.pointee.plugin_type.flatMap(PluginEntry.pluginType(from:)))
    return (String(cString: name), type)
  }

  @Test(arguments: BuildProducts.pluginNames)
  func aBundledPluginDeclaresItsTypesName(plugin: String) throws {
    let (name, type) = try descriptor(of: "\(BuildProducts.directory)/lib\(plugin).so")
    #expect(name == "\(plugin)Plugin")
    #expect(name == String(describing: type))
    #expect(type.name == name)
    let loaded = BuildProducts.demoCatalog.loaded.first { $0.path.hasSuffix("/lib\(plugin).so") }
    #expect(loaded?.name == name)
  }

  enum Outer {
    enum Inner: ViperPlugin {
      static func factories() -> [any ModuleFactory] { [] }
    }
  }

  enum Generic<Tag>: ViperPlugin {
    static func factories() -> [any ModuleFactory] { [] }
  }

  private func declaredName<P: ViperPlugin>(_ plugin: P.Type) -> String {
    let descriptor = PluginEntry.descriptor(for: plugin).assumingMemoryBound(to: VKPluginDescriptor.self)
    return descriptor.pointee.plugin_name.map { String(cString: $0) } ?? ""
  }

  @Test func nestedAndGenericPluginTypesAreNamedAsBefore() {
    #expect(declaredName(Outer.Inner.self) == String(describing: Outer.Inner.self))
    #expect(declaredName(Outer.Inner.self) == "Inner")
    #expect(declaredName(Generic<Int>.self) == String(describing: Generic<Int>.self))
    #expect(declaredName(Generic<Outer.Inner>.self) == "Generic<Inner>")
    #expect(Generic<Int>.name == String(describing: Generic<Int>.self))
  }
}
