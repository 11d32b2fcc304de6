import Foundation
import Glibc
import Testing
import ViperKit

@testable import VivariumLoading
@testable import VivariumRuntime
@testable import VivariumSupport

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
    #expect(
      crashed.kind == .crashed && crashed.path == crash.path && crashed.reasons.first?.contains("signal 4") == true)
    #expect((try? results[1].get()) != nil)
    #expect(loads(crash.marker) == 1, "nothing else ran before it: it is the culprit")
  }

  @Test func aHangInABatchIsNamedAndTheRestStillScanned() throws {
    let hang = try counted("hang.so", then: "for (;;) pause();")
    let list = try dir.copy(BuildProducts.itemsList, as: "libItemsList.so")
    // The limit is the probe's whole run: long enough for the plugins that do
    // load to load on a busy machine (500 ms was not, with both cores taken),
    // short enough that the hang costs the test little.
    let results = try scan([list, hang.path, list], timeout: .seconds(3))
    guard case .failure(let hung) = results[1] else { Issue.record("\(results[1])"); return }
    #expect(hung.kind == .timedOut && hung.path == hang.path)
    #expect((try? results[0].get()) != nil && (try? results[2].get()) != nil)
  }

  @Test func moreFilesThanOneProbeMayHoldOpenAreEachReportedOnTheirOwn() throws {
    // A confined child may hold 256 descriptors: these would be more, given
    // to one, and two children's halves (all in one folder) would be more
    // too, were the folder opened for its Landlock rule once for each file.
    let count = PluginProbe.filesPerChild * 2
    let first = try CPluginBuilder.plugin(CPluginBuilder.Fields(returnsNull: true), named: "p0.so", in: dir)
    let paths = try [first] + (1..<count).map { try dir.copy(first, as: "p\($0).so") }
    let results = try scan(paths)
    #expect(results.count == count)
    let kinds = results.map { result in
      if case .failure(let rejection) = result { rejection.kind.rawValue } else { "loaded" }
    }
    #expect(Set(kinds) == [Rejection.Kind.nullDescriptor.rawValue], "\(Set(kinds))")
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

  @Test func aScannedPluginIsLoadedOnlyWhenOneOfItsModulesIsBuilt() async throws {
    let list = try dir.copy(BuildProducts.itemsList, as: "libItemsList.so")
    var registry = PluginRegistry.none
    let catalog = catalog([list], registry: &registry)
    #expect(catalog.loaded.first?.source == .manifest)
    #expect(catalog.routes.map(\.pattern.text) == ["items:list"], "routed from its manifest")
    #expect(try !isMapped(list), "the scan loads nothing into the host")
    let activation = try #require(catalog.loaded.first?.activation)
    #expect(activation.plugin == nil)
    let runtime = HostRuntime(catalog: catalog, services: TestServices.make(in: try TemporaryDirectory()))
    defer { runtime.shutdown() }
    try await runtime.open("items:list")
    await runtime.settleAll()
    // (Whether the copy is mapped now depends on whether another test loaded
    // the original: dlopen gives the library of that name already loaded.)
    #expect(activation.plugin?.contracts.map(\.urn) == ["items:list"], "building its module loads it")
    #expect(runtime.screen()?.lines(TextRenderer(width: 80)).joined().contains("Buy milk") == true)
  }

  @Test func codeThatDisagreesWithItsRegistryEntryIsRefusedNamingBoth() async throws {
    let list = try dir.copy(BuildProducts.itemsList, as: "libItemsList.so")
    let data = try TemporaryDirectory()
    var (registry, _) = PluginRegistry.open(dataDirectory: data.path)
    let real = try PluginLoader.openChecked(list)
    // The record as scanned (the items service it provides included), its contracts changed.
    var record = try #require(try scan([list]).first?.get())
    var changed = try #require(record.contracts.first)
    changed.version = 9
    record.contracts = [changed, Contract(urn: "items:ghost", summary: "Not in the code.")]
    registry.remember(real.key, .success(record))
    real.close()
    let catalog = catalog([list], registry: &registry)
    #expect(catalog.loaded.first?.source == .cache)
    #expect(catalog.routes.map(\.pattern.text) == ["items:list", "items:ghost"], "routed from the cache")
    let runtime = HostRuntime(catalog: catalog, services: TestServices.make(in: data))
    defer { runtime.shutdown() }
    for _ in 0..<2 {
      await #expect {
        try await runtime.open("items:list")
      } throws: { error in
        // The module its code lacks, and the one whose version differs, with both versions.
        let message = "\(error)"
        return (error as? ResolveError)?.kind == .buildFailed
          && message.contains("items:ghost") && message.contains("items:list")
          && message.contains("version") && message.contains("9")
      }
    }
  }
}
