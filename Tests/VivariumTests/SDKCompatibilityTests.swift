import Foundation
import Testing
import ViperKit
import ViperKitHosting
import ViperKitTestKit
import VivariumLoading
import VivariumRuntime
import VivariumTools

/// A plugin built against the previous SDK major is refused, saying what
/// to rebuild, and so is one built against a newer minor of this major.
@Suite("SDK compatibility")
@MainActor
struct SDKCompatibilityTests {
  /// Where a plugin finds the SDK it is compiled against.
  struct SDK {
    let modules: String
    let library: String
    let moduleMap: String
    let include: String
  }

  /// ViperKit 2.0 (Fixtures/SDK-2.0), built into `directory`/sdk.
  static func previousMajor(in directory: TemporaryDirectory) throws -> SDK {
    let fixture = BuildProducts.repository + "/Tests/VivariumTests/Fixtures/SDK-2.0"
    return try build(sources: fixture + "/ViperKit", header: fixture + "/CViperKit/ViperKitABI.h", in: directory)
  }

  /// This host's ViperKit built again into `directory`/sdk, its header
  /// saying `minor` instead of its own.
  static func thisMajor(minor: Int, in directory: TemporaryDirectory) throws -> SDK {
    let sdk = BuildProducts.repository + "/Host/SDK/Sources"
    return try build(
      sources: sdk + "/ViperKit", header: sdk + "/CViperKit/include/ViperKitABI.h", in: directory,
      minor: (ViperKitVersion.current.minor, minor))
  }

  /// This host's ViperKit as the build made it.
  static var thisSDK: SDK {
    let bin = BuildProducts.directory
    return SDK(
      modules: bin + "/Modules", library: bin, moduleMap: "\(bin)/CViperKit.build/module.modulemap",
      include: BuildProducts.repository + "/Host/SDK/Sources/CViperKit/include")
  }

  /// The ViperKit whose Swift sources are in `sources`, with `header`
  /// (its minor version replaced, `minor.from` by `minor.to`), built into
  /// `directory`/sdk.
  static func build(
    sources: String, header: String, in directory: TemporaryDirectory, minor: (from: Int, to: Int)? = nil
  ) throws -> SDK {
    let sdk = directory.path + "/sdk"
    try FileManager.default.createDirectory(atPath: sdk, withIntermediateDirectories: true)
    var text = try String(contentsOfFile: header, encoding: .utf8)
    if let minor {
      let own = "#define VIPERKIT_VERSION_MINOR \(minor.from)"
      #expect(text.contains(own))
      text = text.replacingOccurrences(of: own, with: "#define VIPERKIT_VERSION_MINOR \(minor.to)")
    }
    try Data(text.utf8).write(to: URL(fileURLWithPath: sdk + "/ViperKitABI.h"))
    try Data("module CViperKit {\n  header \"ViperKitABI.h\"\n  export *\n}\n".utf8).write(
      to: URL(fileURLWithPath: sdk + "/module.modulemap"))
    let files = try FileManager.default.contentsOfDirectory(atPath: sources).filter { $0.hasSuffix(".swift") }.sorted()
      .map { sources + "/" + $0 }
    try SwiftPluginBuilder.swiftc(
      [
        "-emit-library", "-emit-module", "-enable-library-evolution", "-parse-as-library", "-swift-version", "6",
        "-module-name", "ViperKit", "-Xcc", "-fmodule-map-file=\(sdk)/module.modulemap", "-I", sdk,
        "-emit-module-path", sdk + "/ViperKit.swiftmodule", "-Xlinker", "-soname", "-Xlinker", "libViperKit.so",
        "-o", sdk + "/libViperKit.so",
      ] + files)
    return SDK(modules: sdk, library: sdk, moduleMap: sdk + "/module.modulemap", include: sdk)
  }

  /// A plugin made by `vivarium new`, its module and entry point compiled
  /// as one module against `sdk`; `edit` changes its contract's source first.
  static func plugin(
    _ name: String, against sdk: SDK, in directory: TemporaryDirectory, edit: (String) -> String = { $0 }
  ) throws -> String {
    let scaffold = try PluginScaffold(name: name, urn: "legacy:note:{noteID}", sdkPath: directory.path + "/sdk")
    try scaffold.write(to: directory.path + "/package")
    let contractFile = directory.path + "/package/Sources/\(name)/\(name)Contract.swift"
    let contract = try String(contentsOfFile: contractFile, encoding: .utf8)
    try Data(edit(contract).utf8).write(to: URL(fileURLWithPath: contractFile))
    // The module's code and its entry point, as one module: the manifest
    // tool is a package of its own.
    let sources = scaffold.files().map(\.path).filter {
      $0.hasPrefix("Sources/\(name)/") || $0.hasPrefix("Sources/\(name)EntryPoint/")
    }.map { directory.path + "/package/" + $0 }
    return try SwiftPluginBuilder.plugin(
      name, sources: sources, into: directory.path, modules: sdk.modules, library: sdk.library,
      moduleMap: sdk.moduleMap, include: sdk.include)
  }

  @Test func aPluginBuiltAgainstThePreviousMajorIsRefusedSayingWhatToRebuild() throws {
    let directory = try TemporaryDirectory()
    let sdk = try Self.previousMajor(in: directory)
    // As written for ViperKit 2.0, which cannot declare navigation.
    let declaration = #"opens: [.push("legacy:note:{noteID}", arguments: ["entry": .int])]"#
    let plugin = try Self.plugin("Legacy", against: sdk, in: directory) { contract in
      #expect(contract.contains(declaration))
      return contract.replacingOccurrences(of: declaration, with: "guards: []")
    }
    guard case .rejected(let rejection) = PluginLoader().load(plugin) else {
      Issue.record("a plugin built against ViperKit 2.0 must be refused by a \(ViperKitVersion.current) host")
      return
    }
    // It needs what ViperKit 3 removed: the loader cannot even map it.
    #expect(rejection.kind == .dlopenFailed)
    #expect(rejection.reasons.count == 1)
    #expect(rejection.reasons.first?.contains("ViperKit (\(ViperKitVersion.current))") == true, "\(rejection.reasons)")
  }

  @Test func aPluginBuiltAgainstANewerMinorIsRefusedSayingWhatToRebuild() throws {
    let directory = try TemporaryDirectory()
    let current = ViperKitVersion.current
    let sdk = try Self.thisMajor(minor: current.minor + 1, in: directory)
    let plugin = try Self.plugin("Future", against: sdk, in: directory)
    guard case .rejected(let rejection) = PluginLoader().load(plugin) else {
      Issue.record("a plugin built against a newer SDK minor must be refused")
      return
    }
    #expect(rejection.kind == .incompatible)
    #expect(
      rejection.reasons == [
        "SDK version: host has ViperKit \(current), plugin has ViperKit \(current.major).\(current.minor + 1).0, which is newer; rebuild the plugin against ViperKit \(current.major).\(current.minor) or upgrade the host"
      ])
  }

  @Test func aPluginBuiltAgainstThisSDKThroughTheSameStepsLoadsAndWorks() async throws {
    let directory = try TemporaryDirectory()
    let plugin = try Self.plugin(
      "Current", against: Self.thisSDK, in: directory)
    guard case .loaded(let loaded) = PluginLoader().load(plugin) else {
      Issue.record("a plugin built against this SDK must load")
      return
    }
    #expect(loaded.sdkVersion == ViperKitVersion.current)
    let runtime = HostRuntime(
      catalog: PluginCatalog(outcomes: [.loaded(loaded)]), services: try TestServices.make())
    try await runtime.open("legacy:note:7")
    guard case .stack(_, let children)? = runtime.top?.tree else {
      Issue.record("the plugin drew nothing")
      return
    }
    #expect(children.first == .heading("Current"))
    #expect(children.contains(.text("noteID: 7", tone: .muted)))
  }
}
