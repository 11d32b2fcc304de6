import Foundation
import Glibc
import Testing
import ViperKit

@testable import VivariumHost

/// Scanning plugins (issue 13): probes in batches that name exactly the file
/// that killed one, plugins loaded only when a module of theirs is built,
/// and a plugin whose code disagrees with what was recorded refused then.
@Suite("Scanning plugins in batches and loading them when needed")
@MainActor
struct PluginScanTests {
  let dir: TemporaryDirectory
  init() throws { dir = try TemporaryDirectory() }

  private func counted(_ name: String, then statement: String) throws -> (path: String, marker: String) {
    let marker = "\(dir.path)/\(name).loads"
    let path = try CPluginBuilder.plugin(
      constructor: "FILE *f = fopen(\"\(marker)\", \"a\"); fputs(\"x\", f); fclose(f); \(statement)",
      named: name, in: dir)
    return (path, marker)
  }

  private func loads(_ marker: String) -> Int {
    ((try? String(contentsOfFile: marker, encoding: .utf8)) ?? "").count
  }

  private func scan(_ paths: [String], timeout: Duration = .seconds(10)) throws -> [Result<PluginRecord, Rejection>] {
    let files = try paths.map { path in try PluginLoader.openChecked(path) }
    defer { files.forEach { $0.close() } }
    return PluginProbe(executable: BuildProducts.vivarium, timeout: timeout).scan(files, children: 1)
  }

  @Test func aBatchWithOneCrashingFileNamesExactlyThatFile() throws {
    let list = try dir.copy(BuildProducts.itemsList, as: "libItemsList.so")
    let first = try counted("first.so", then: "")
    let crash = try counted("crash.so", then: "raise(SIGSEGV);")
    let detail = try dir.copy(BuildProducts.itemsDetail, as: "libItemsDetail.so")
    let results = try scan([list, first.path, crash.path, detail])
    #expect(results.count == 4)
    #expect((try? results[0].get())?.contracts.map(\.urn) == ["items:list"])
    guard case .failure(let refused) = results[1] else { Issue.record("\(results[1])"); return }
    #expect(refused.kind == .foreignSDKCopy && refused.path == first.path, "its own verdict, not the crash")
    guard case .failure(let crashed) = results[2] else { Issue.record("\(results[2])"); return }
    #expect(crashed.kind == .crashed && crashed.path == crash.path)
    #expect(crashed.reasons.first?.contains("signal 11") == true, "\(crashed.reasons)")
    #expect((try? results[3].get())?.contracts.map(\.urn) == ["items:detail:{itemID}"])
    #expect(loads(first.marker) == 1, "a file reported before the crash is not loaded again")
    #expect(loads(crash.marker) == 2, "the file loading when the child died is probed again alone")
  }

  @Test func aFileThatKillsTheFirstChildIsNotProbedTwice() throws {
    let crash = try counted("crash.so", then: "raise(SIGILL);")
    let list = try dir.copy(BuildProducts.itemsList, as: "libItemsList.so")
    let results = try scan([crash.path, list])
    guard case .failure(let crashed) = results[0] else { Issue.record("\(results[0])"); return }
    #expect(crashed.path == crash.path && crashed.reasons.first?.contains("signal 4") == true)
    #expect((try? results[1].get()) != nil)
    #expect(loads(crash.marker) == 1, "nothing else ran before it: it is the culprit")
  }

  @Test func aHangInABatchIsNamedAndTheRestStillScanned() throws {
    let hang = try counted("hang.so", then: "for (;;) pause();")
    let list = try dir.copy(BuildProducts.itemsList, as: "libItemsList.so")
    let results = try scan([list, hang.path, list], timeout: .milliseconds(500))
    guard case .failure(let hung) = results[1] else { Issue.record("\(results[1])"); return }
    #expect(hung.kind == .timedOut && hung.path == hang.path)
    #expect((try? results[0].get()) != nil && (try? results[2].get()) != nil)
  }

  // MARK: Activation

  /// Whether the file at `path` is mapped into this process.
  private func isMapped(_ path: String) throws -> Bool {
    var info = stat()
    try #require(stat(path, &info) == 0)
    let maps = try String(contentsOfFile: "/proc/self/maps", encoding: .utf8)
    return maps.split(separator: "\n").contains { line in
      let fields = line.split(separator: " ", omittingEmptySubsequences: true)
      return fields.count >= 5 && fields[4] == "\(info.st_ino)"
    }
  }

  private func catalog(_ paths: [String], registry: inout PluginRegistry) -> PluginCatalog {
    let scanner = PluginScanner(
      probe: PluginProbe(executable: BuildProducts.vivarium), hosting: nil, loader: PluginLoader())
    return PluginCatalog(outcomes: scanner.scanAll(paths, registry: &registry))
  }

  @Test func aScannedPluginIsLoadedOnlyWhenOneOfItsModulesIsBuilt() throws {
    let list = try dir.copy(BuildProducts.itemsList, as: "libItemsList.so")
    var registry = PluginRegistry.none
    let catalog = catalog([list], registry: &registry)
    #expect(catalog.loaded.first?.source == .probe)
    #expect(catalog.routes.map(\.pattern.text) == ["items:list"], "routed from what the probe reported")
    #expect(try !isMapped(list), "the scan loads nothing into the host")
    let activation = try #require(catalog.loaded.first?.activation)
    #expect(activation.plugin == nil)
    let runtime = HostRuntime(catalog: catalog, services: TestServices.make(in: try TemporaryDirectory()))
    defer { runtime.shutdown() }
    try runtime.open("items:list")
    // (Whether the copy is mapped now depends on whether another test loaded
    // the original: dlopen gives the library of that name already loaded.)
    #expect(activation.plugin?.factories.map(\.contract.urn) == ["items:list"], "building its module loads it")
    #expect(runtime.screen()?.lines(TextRenderer(width: 80)).joined().contains("Buy milk") == true)
  }

  @Test func codeThatDisagreesWithItsRegistryEntryIsRefusedNamingBoth() throws {
    let list = try dir.copy(BuildProducts.itemsList, as: "libItemsList.so")
    let data = try TemporaryDirectory()
    var (registry, _) = PluginRegistry.open(dataDirectory: data.path)
    let real = try PluginLoader.openChecked(list)
    let contract = try #require(try scan([list]).first?.get().contracts.first)
    var changed = contract
    changed.version = 9
    registry.remember(
      real.key,
      .success(
        PluginRecord(
          name: "ItemsListPlugin", sdkVersion: .current,
          contracts: [changed, Contract(urn: "items:ghost", summary: "Not in the code.")])))
    real.close()
    let catalog = catalog([list], registry: &registry)
    #expect(catalog.loaded.first?.source == .cache)
    #expect(catalog.routes.map(\.pattern.text) == ["items:list", "items:ghost"], "routed from the cache")
    let runtime = HostRuntime(catalog: catalog, services: TestServices.make(in: data))
    defer { runtime.shutdown() }
    for _ in 0..<2 {
      #expect {
        try runtime.open("items:list")
      } throws: { error in
        let message = "\(error)"
        return message.contains("the registry cache declares items:ghost, its code does not")
          && message.contains("items:list: its version (9 against 1) differ")
      }
    }
  }
}

/// Plugins carrying their contracts in an ELF section (issue 13).
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

  @Test func aPluginWithAManifestIsRoutedWithoutRunningAndWithAnotherIsRefusedNamingBoth() throws {
    let (dir, good) = try manifested(PluginManifest(name: "ManifestedPlugin", contracts: [note]))
    var other = note
    other.summary = "Two notes."
    let (otherDir, stale) = try manifested(
      PluginManifest(name: "ManifestedPlugin", contracts: [other, Contract(urn: "manifested:ghost", summary: "Gone.")]))
    _ = (dir, otherDir)
    let scanner = PluginScanner(
      probe: PluginProbe(executable: BuildProducts.vivarium), hosting: nil, loader: PluginLoader())
    var registry = PluginRegistry.none
    let catalog = PluginCatalog(outcomes: scanner.scanAll([good, stale], registry: &registry))
    #expect(catalog.loaded.map(\.source) == [.manifest, .manifest])
    #expect(catalog.routes.map(\.pattern.text) == ["manifested:note", "manifested:note", "manifested:ghost"])
    #expect(catalog.loaded.allSatisfy { $0.activation?.plugin == nil }, "no code of theirs ran")

    let agreeing = HostRuntime(
      catalog: PluginCatalog(outcomes: scanner.scanAll([good], registry: &registry)),
      services: TestServices.make(in: try TemporaryDirectory()))
    defer { agreeing.shutdown() }
    try agreeing.open("manifested:note")
    #expect(agreeing.screen()?.lines(TextRenderer(width: 80)).joined().contains("a manifested note") == true)

    let disagreeing = HostRuntime(
      catalog: PluginCatalog(outcomes: scanner.scanAll([stale], registry: &registry)),
      services: TestServices.make(in: try TemporaryDirectory()))
    defer { disagreeing.shutdown() }
    #expect {
      try disagreeing.open("manifested:note")
    } throws: { error in
      let message = "\(error)"
      return message.contains("its manifest declares manifested:ghost, its code does not")
        && message.contains("manifested:note: its summary differ between its manifest and its code")
        && message.contains("libManifested.so")
    }
  }

  @Test func aManifestForAnotherSDKOrUnreadableIsRefusedWithoutRunningThePlugin() {
    var newer = PluginManifest(name: "X", contracts: [note])
    newer.sdkVersion = ViperKitVersion(major: ViperKitVersion.current.major, minor: 99, patch: 0)
    guard case .failure(let refused) = PluginManifest.record(newer.bytes, path: "/p/x.so", knownServices: nil) else {
      Issue.record("a manifest for a newer SDK was accepted")
      return
    }
    #expect(refused.kind == .incompatible && refused.reasons.first?.contains("99") == true)
    guard case .failure(let garbage) = PluginManifest.record(Array("{".utf8), path: "/p/x.so", knownServices: nil)
    else {
      Issue.record("garbage was accepted")
      return
    }
    #expect(garbage.kind == .badManifest)
    #expect(
      (try? PluginManifest.record(
        PluginManifest(name: "X", contracts: [note]).bytes, path: "/p/x.so", knownServices: nil
      ).get())?.contracts == [note])
  }
}
