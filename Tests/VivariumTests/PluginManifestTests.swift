import Foundation
import Testing
import ViperKit
import ViperKitHosting

@testable import VivariumLoading
@testable import VivariumRuntime
@testable import VivariumSupport
@testable import VivariumTools

/// Plugin manifests (issue 13): contracts carried in an ELF section, read
/// without running the plugin, checked against its code when it is loaded,
/// and made by the build of every sample plugin.
@Suite("Plugin manifests")
@MainActor
struct PluginManifestTests {
  /// libManifested.so carrying `manifest`, in a directory of its own.
  private func manifested(_ manifest: PluginManifest) throws -> (TemporaryDirectory, String) {
    let dir = try TemporaryDirectory()
    let source = try dir.write("Manifest.swift", Data(manifest.swiftSource.utf8))
    return (dir, try SwiftPluginBuilder.build("Manifested", adding: [source], into: dir.path))
  }

  private let note = Contract(urn: "manifested:note", summary: "One note.")

  /// The manifest of a plugin named `name` built by this host's SDK and compiler.
  private func manifest(_ name: String, _ contracts: [Contract]) -> PluginManifest {
    PluginManifest(name: name, contracts: contracts, sdkVersion: .current, compiler: swiftCompilerIdentity())
  }

  @Test func aPluginWithAManifestIsRoutedWithoutRunningAndWithAnotherIsRefusedNamingBoth() async throws {
    let (dir, good) = try manifested(
      manifest("ManifestedPlugin", [note]))
    var other = note
    other.summary = "Two notes."
    let (otherDir, stale) = try manifested(
      manifest("ManifestedPlugin", [other, Contract(urn: "manifested:ghost", summary: "Gone.")]))
    _ = (dir, otherDir)
    let scanner = PluginScanner(
      probe: PluginProbe(executable: BuildProducts.vivarium), hosting: nil, loader: PluginLoader())
    var registry = PluginRegistry.none
    // Each in a catalog of its own: both declare one plugin name.
    let catalogs = [good, stale].map { PluginCatalog(outcomes: scanner.scanAll([$0], registry: &registry)) }
    #expect(catalogs.flatMap(\.loaded).map(\.source) == [.manifest, .manifest])
    #expect(
      catalogs.flatMap(\.routes).map(\.pattern.text) == ["manifested:note", "manifested:note", "manifested:ghost"])
    #expect(catalogs.flatMap(\.loaded).allSatisfy { $0.activation?.plugin == nil }, "no code of theirs ran")

    let agreeing = HostRuntime(
      catalog: PluginCatalog(outcomes: scanner.scanAll([good], registry: &registry)),
      services: TestServices.make(in: try TemporaryDirectory()))
    defer { agreeing.shutdown() }
    try await agreeing.open("manifested:note")
    #expect(agreeing.screen()?.lines(TextRenderer(width: 80)).joined().contains("a manifested note") == true)

    let disagreeing = HostRuntime(
      catalog: PluginCatalog(outcomes: scanner.scanAll([stale], registry: &registry)),
      services: TestServices.make(in: try TemporaryDirectory()))
    defer { disagreeing.shutdown() }
    await #expect {
      try await disagreeing.open("manifested:note")
    } throws: { error in
      // Both modules that differ, the field that differs, and the file.
      let message = "\(error)"
      return (error as? ResolveError)?.kind == .buildFailed
        && message.contains("manifested:ghost") && message.contains("manifested:note")
        && message.contains("summary") && message.contains("libManifested.so")
    }
  }

  @Test(arguments: BuildProducts.pluginNames)
  func everySamplePluginCarriesTheManifestItsCodeMakes(name: String) throws {
    let path = BuildProducts.directory + "/lib\(name).so"
    let file = try PluginFile.open(path)
    defer { file.close() }
    let carried = try #require(try PluginLoader.checkHeaders(file).manifest, "lib\(name).so carries no manifest")
    let record = try PluginManifest.record(carried, path: path, validatingContracts: false).get()
    guard case .loaded(let plugin) = PluginLoader().load(path) else {
      Issue.record("lib\(name).so did not load")
      return
    }
    #expect(record.name == plugin.name)
    #expect(
      PluginManifest.differences(
        record, from: plugin.contracts, hosts: plugin.hosts, provides: plugin.provides, topics: plugin.topics,
        path: path) == [])
    // A manifest naming other hosts, or other services, than the code disagrees.
    let otherHosts = PluginManifest.differences(
      record, from: plugin.contracts, hosts: plugin.hosts + ["elsewhere.example"], provides: plugin.provides,
      topics: plugin.topics, path: path)
    #expect(otherHosts.count == 1 && otherHosts[0].contains("'elsewhere.example'"), "\(otherHosts)")
    let otherServices = PluginManifest.differences(
      record, from: plugin.contracts, hosts: plugin.hosts, provides: plugin.provides.dropLast(),
      topics: plugin.topics, path: path)
    #expect(otherServices.count == (plugin.provides.isEmpty ? 0 : 1), "\(otherServices)")
    let otherTopics = PluginManifest.differences(
      record, from: plugin.contracts, hosts: plugin.hosts, provides: plugin.provides,
      topics: PluginTopics(publishes: ["other.topic"]), path: path)
    #expect(otherTopics.count == 1 && otherTopics[0].contains("'other.topic'"), "\(otherTopics)")
  }

  @Test(arguments: BuildProducts.faultyPluginNames)
  func thePluginsThatCrashOnPurposeCarryNone(name: String) throws {
    let file = try PluginFile.open(BuildProducts.directory + "/lib\(name).so")
    defer { file.close() }
    #expect(try PluginLoader.checkHeaders(file).manifest == nil)
  }

  /// The compiler folds a constant array of at most 4,096 elements: a
  /// manifest written as one array of bytes failed to compile past 4 KiB,
  /// some ten modules. Written in rows of 64-bit words, one of 40 KiB and
  /// more compiles and is read back whole.
  @Test func aManifestOverOneRowCompilesAndIsReadWhole() throws {
    let contracts = (0..<80).map { index in
      Contract(
        urn: "manifested:screen\(index)",
        summary: String(repeating: "A screen of a plugin with many screens. ", count: 12))
    }
    let big = manifest("ManifestedPlugin", contracts)
    #expect(big.json.count > 8 * 4096, "\(big.json.count) bytes: one row only")
    #expect(big.swiftSource.contains("InlineArray<2, InlineArray<4096, UInt64>>"))
    let (dir, path) = try manifested(big)
    _ = dir
    let scanner = PluginScanner(
      probe: PluginProbe(executable: BuildProducts.vivarium), hosting: nil, loader: PluginLoader())
    var registry = PluginRegistry.none
    let catalog = PluginCatalog(outcomes: scanner.scanAll([path], registry: &registry))
    #expect(catalog.loaded.map(\.source) == [.manifest])
    #expect(catalog.routes.map(\.contract) == contracts)
  }

  @Test func aManifestForAnotherSDKOrUnreadableIsRefusedWithoutRunningThePlugin() {
    var newer = manifest("X", [note])
    newer.sdkVersion = ViperKitVersion(major: ViperKitVersion.current.major, minor: 99, patch: 0)
    guard case .failure(let refused) = PluginManifest.record(newer.json, path: "/p/x.so", validatingContracts: false)
    else {
      Issue.record("a manifest for a newer SDK was accepted")
      return
    }
    #expect(refused.kind == .incompatible && refused.reasons.first?.contains("99") == true)
    // A newer SDK's manifest may name a host service this one does not:
    // it is refused for its SDK all the same, and from this SDK it is unreadable.
    func namingAnUnknownService(_ manifest: PluginManifest) -> [UInt8] {
      let json = String(decoding: manifest.json, as: UTF8.self)
      #expect(json.contains(#""services":[]"#))
      return Array(json.replacingOccurrences(of: #""services":[]"#, with: #""services":["location"]"#).utf8)
    }
    let unknown = PluginManifest.record(namingAnUnknownService(newer), path: "/p/x.so", validatingContracts: true)
    guard case .failure(let newerUnknown) = unknown else {
      Issue.record("a manifest naming a host service this SDK does not know was accepted")
      return
    }
    #expect(newerUnknown.kind == .incompatible && newerUnknown.reasons.first?.contains("99") == true, "\(newerUnknown)")
    let current = manifest("X", [note])
    guard
      case .failure(let unreadable) = PluginManifest.record(
        namingAnUnknownService(current), path: "/p/x.so", validatingContracts: true)
    else {
      Issue.record("a manifest naming a host service this SDK does not know was accepted")
      return
    }
    #expect(unreadable.kind == .badManifest, "\(unreadable)")
    guard
      case .failure(let garbage) = PluginManifest.record(Array("{".utf8), path: "/p/x.so", validatingContracts: false)
    else {
      Issue.record("garbage was accepted")
      return
    }
    #expect(garbage.kind == .badManifest)
    let one = manifest("X", [note])
    guard
      case .failure(let twice) = PluginManifest.record(one.json + one.json, path: "/p/x.so", validatingContracts: false)
    else {
      Issue.record("two manifests in one section were accepted")
      return
    }
    #expect(twice.kind == .badManifest && twice.reasons.first?.contains("2") == true, "\(twice)")
    #expect(
      (try? PluginManifest.record(
        manifest("X", [note]).json,
        path: "/p/x.so", validatingContracts: false
      ).get())?.contracts == [note])
  }
}
