import Foundation
import Testing
import ViperKit
import ViperKitHosting
import ViperKitTestKit
import VivariumLoading
import VivariumRuntime
import VivariumTools

/// A plugin built last month against the previous SDK minor keeps loading; one
/// built against a newer SDK is refused, saying what to rebuild.
@Suite("SDK compatibility")
@MainActor
struct SDKCompatibilityTests {
  /// ViperKit 2.0 (Fixtures/SDK-2.0) built into a directory of its own, with
  /// `minor` written into its header, and a plugin made by `vivarium new`
  /// compiled against it.
  static func pluginAgainstOldSDK(minor: Int, name: String) throws -> (plugin: String, directory: TemporaryDirectory) {
    let directory = try TemporaryDirectory()
    let fixture = BuildProducts.repository + "/Tests/VivariumTests/Fixtures/SDK-2.0"
    let sdk = directory.path + "/sdk"
    try FileManager.default.createDirectory(atPath: sdk, withIntermediateDirectories: true)
    let header = try String(contentsOfFile: fixture + "/CViperKit/ViperKitABI.h", encoding: .utf8)
      .replacingOccurrences(of: "#define VIPERKIT_VERSION_MINOR 0", with: "#define VIPERKIT_VERSION_MINOR \(minor)")
    try Data(header.utf8).write(to: URL(fileURLWithPath: sdk + "/ViperKitABI.h"))
    try FileManager.default.copyItem(atPath: fixture + "/CViperKit/module.modulemap", toPath: sdk + "/module.modulemap")
    let sdkSources = try FileManager.default.contentsOfDirectory(atPath: fixture + "/ViperKit").sorted()
      .map { fixture + "/ViperKit/" + $0 }
    try SwiftPluginBuilder.swiftc(
      [
        "-emit-library", "-emit-module", "-enable-library-evolution", "-parse-as-library", "-swift-version", "6",
        "-module-name", "ViperKit", "-Xcc", "-fmodule-map-file=\(sdk)/module.modulemap", "-I", sdk,
        "-emit-module-path", sdk + "/ViperKit.swiftmodule", "-Xlinker", "-soname", "-Xlinker", "libViperKit.so",
        "-o", sdk + "/libViperKit.so",
      ] + sdkSources)
    let scaffold = try PluginScaffold(name: name, urn: "legacy:note:{noteID}", sdkPath: sdk)
    try scaffold.write(to: directory.path + "/package")
    // As written for ViperKit 2.0, which cannot declare navigation.
    let contractFile = directory.path + "/package/Sources/\(name)/\(name)Contract.swift"
    let contract = try String(contentsOfFile: contractFile, encoding: .utf8)
    let declaration = #"opens: [.push("legacy:note:{noteID}", arguments: ["entry": .int])]"#
    #expect(contract.contains(declaration))
    try Data(contract.replacingOccurrences(of: declaration, with: "guards: []").utf8).write(
      to: URL(fileURLWithPath: contractFile))
    // The module's code and its entry point, as one module: the manifest
    // tool needs ViperKit 2.3, and a 2.0 plugin carries no manifest.
    let sources = scaffold.files().map(\.path).filter {
      $0.hasPrefix("Sources/\(name)/") || $0.hasPrefix("Sources/\(name)EntryPoint/")
    }.map { directory.path + "/package/" + $0 }
    let plugin = try SwiftPluginBuilder.plugin(
      name, sources: sources, into: directory.path, modules: sdk, library: sdk, moduleMap: sdk + "/module.modulemap",
      include: sdk)
    return (plugin, directory)
  }

  @Test func aPluginBuiltAgainstThePreviousMinorLoadsAndWorks() async throws {
    let (plugin, directory) = try Self.pluginAgainstOldSDK(minor: 0, name: "Legacy")
    _ = directory
    guard case .loaded(let loaded) = PluginLoader().load(plugin) else {
      Issue.record("a plugin built against ViperKit 2.0 must load in a \(ViperKitVersion.current) host")
      return
    }
    #expect(loaded.sdkVersion == ViperKitVersion(major: 2, minor: 0, patch: 0))
    #expect(ViperKitVersion.current >= loaded.sdkVersion)
    let runtime = HostRuntime(
      catalog: PluginCatalog(outcomes: [.loaded(loaded)]), services: try TestServices.make())
    try await runtime.open("legacy:note:7")
    guard case .stack(_, let children)? = runtime.top?.tree else {
      Issue.record("the old plugin drew nothing")
      return
    }
    #expect(children.first == .heading("Legacy"))
    #expect(children.contains(.text("noteID: 7", tone: .muted)))
    let factories = try #require(loaded.factoriesInThisProcess, "loaded in this process")
    #expect(
      Conformance.run(
        factories: factories, strictness: 10, skip: ["speed", "leaks.repeated"], sdkVersion: loaded.sdkVersion
      ).failures.isEmpty)
  }

  @Test func aPluginBuiltAgainstANewerMinorIsRefusedSayingWhatToRebuild() throws {
    let (plugin, directory) = try Self.pluginAgainstOldSDK(minor: ViperKitVersion.current.minor + 1, name: "Future")
    _ = directory
    guard case .rejected(let rejection) = PluginLoader().load(plugin) else {
      Issue.record("a plugin built against a newer SDK minor must be refused")
      return
    }
    let current = ViperKitVersion.current
    #expect(rejection.kind == .incompatible)
    #expect(
      rejection.reasons == [
        "SDK version: host has ViperKit \(current), plugin has ViperKit \(current.major).\(current.minor + 1).0, which is newer; rebuild the plugin against ViperKit \(current.major).\(current.minor) or upgrade the host"
      ])
  }
}
