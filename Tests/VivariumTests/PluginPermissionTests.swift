import Foundation
import Glibc
import Testing

@testable import VivariumLoading

/// Plugins are loaded only from where other users cannot put code: the file
/// and every directory on its real path (ssh's StrictModes), whatever path or
/// link leads there.
@Suite("Where plugins may be loaded from")
@MainActor
struct PluginPermissionTests {
  let dir: TemporaryDirectory

  init() throws {
    dir = try TemporaryDirectory()
  }

  /// `name`, a subdirectory of the test directory with `mode`, holding a copy of ItemsList.
  private func pluginIn(_ name: String, mode: mode_t) throws -> String {
    let directory = dir.path + "/" + name
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
    let plugin = try dir.copy(BuildProducts.itemsList, as: "\(name).so")
    let inside = directory + "/libItemsList.so"
    try FileManager.default.moveItem(atPath: plugin, toPath: inside)
    chmod(directory, mode)
    return inside
  }

  private func rejection(_ path: String) -> Rejection? {
    guard case .rejected(let rejection) = PluginLoader().load(path) else { return nil }
    return rejection
  }

  @Test func aLinkToAPluginInAWorldWritableDirectoryIsRefused() throws {
    let target = try pluginIn("open", mode: 0o777)
    let safe = dir.path + "/safe"
    try FileManager.default.createDirectory(atPath: safe, withIntermediateDirectories: false)
    try FileManager.default.createSymbolicLink(atPath: safe + "/libItemsList.so", withDestinationPath: target)
    let refused = try #require(rejection(safe + "/libItemsList.so"))
    #expect(refused.kind == .unsafePermissions)
    #expect(
      refused.reasons[0].contains("/open ") && refused.reasons[0].contains("777"), "the directory, its mode: \(refused)"
    )
  }

  @Test func aPluginFileGivenOnTheCommandLineInAWorldWritableDirectoryIsRefused() throws {
    let target = try pluginIn("open", mode: 0o777)
    let discovery = PluginDiscovery(commandLine: [target], environment: [:], executable: BuildProducts.vivarium)
    let outcomes = discovery.load(with: PluginLoader())
    guard case .rejected(let refused) = try #require(outcomes.first) else {
      Issue.record("a plugin in a mode-777 directory loaded")
      return
    }
    #expect(refused.kind == .unsafePermissions)
  }

  @Test func aStickyDirectoryOfYoursIsAcceptedAsTmpIs() throws {
    let target = try pluginIn("sticky", mode: 0o1777)
    guard case .loaded = PluginLoader().load(target) else {
      Issue.record("others cannot replace entries of a sticky directory; \(String(describing: rejection(target)))")
      return
    }
  }

  @Test(.enabled(if: getuid() == 0, "giving a file to another group takes root"))
  func aDirectoryOrFileAnotherGroupCanWriteIsRefused() throws {
    let shared = try pluginIn("shared", mode: 0o775)
    #expect(chown(dir.path + "/shared", uid_t.max, 1) == 0)
    let sharedReason = rejection(shared)?.reasons.first ?? ""
    #expect(
      sharedReason.contains("/shared ") && sharedReason.contains("775"), "the directory, its mode: \(sharedReason)")
    let file = try pluginIn("private", mode: 0o755)
    #expect(chown(file, uid_t.max, 1) == 0 && chmod(file, 0o664) == 0)
    let fileRejection = rejection(file)
    #expect(fileRejection?.kind == .unsafePermissions && fileRejection?.reasons.first?.contains("664") == true)
  }

  @Test func aDirectoryOnlyYourOwnGroupCanWriteIsAccepted() throws {
    let own = try pluginIn("own", mode: 0o775)
    guard case .loaded = PluginLoader().load(own) else {
      Issue.record("\(String(describing: rejection(own)))")
      return
    }
  }

  @Test func relativeEntriesOfThePluginPathAreRefused() {
    let discovery = PluginDiscovery(
      commandLine: [], environment: ["VIVARIUM_PLUGIN_PATH": ".:plugins::" + dir.path], executable: "/x/vivarium")
    let outcomes = discovery.load(with: PluginLoader())
    let refused = outcomes.compactMap { if case .rejected(let r) = $0, r.kind == .relativePath { r.path } else { nil } }
    #expect(refused == [".", "plugins", ""])
    #expect(outcomes.count == 3, "the absolute, empty directory adds no row")
  }

  @Test func aPipeNamedLikeAPluginIsRefusedWithoutWaitingForAWriter() throws {
    let path = dir.path + "/fifo.so"
    #expect(mkfifo(path, 0o600) == 0)
    #expect(rejection(path)?.kind == .notRegularFile)
  }

  @Test func aHugeSparseFileIsRefusedFromItsHeaderUnderATightMemoryLimit() throws {
    let path = dir.path + "/huge.so"
    #expect(FileManager.default.createFile(atPath: path, contents: nil))
    #expect(truncate(path, 2 << 30) == 0)
    // Read whole, the 2 GiB would not fit in the 1 GB of address space this
    // child is allowed; reading its header takes 64 bytes.
    let result = try ProcessRunner.run(
      "/bin/sh",
      ["-c", "ulimit -v 1000000 && exec \"$0\" plugins --plugins \"$1\" --json", BuildProducts.vivarium, path])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stdout.contains(#""reason" : "not-elf""#), "\(result.stdout)")
  }
}
