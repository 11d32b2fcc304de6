import Foundation
import Glibc
import Testing

@testable import VivariumHost

/// Plugins are loaded only from where other users cannot put code: the file
/// and every directory on its real path (ssh's StrictModes), whatever path or
/// link leads there.
@Suite("Where plugins may be loaded from")
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
    #expect(refused.reasons[0].contains("/open is writable by every user (mode 777)"), "\(refused)")
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
    #expect(rejection(shared)?.reasons.first?.contains("is writable by the group") == true)
    let file = try pluginIn("private", mode: 0o755)
    #expect(chown(file, uid_t.max, 1) == 0 && chmod(file, 0o664) == 0)
    #expect(rejection(file)?.reasons.first?.contains("the file is writable by the group") == true)
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

/// Reading a file's ELF headers costs a bounded number of bytes, whatever
/// the headers claim.
@Suite("Reading ELF headers")
struct ELFHeaderReadingTests {
  @Test func manySymbolTablesAreNotEachRead() throws {
    let dir = try TemporaryDirectory()
    let count = 200
    var bytes = [UInt8](repeating: 0, count: 64 + 64 * count)
    func put(_ value: UInt64, at offset: Int, size: Int) {
      for index in 0..<size { bytes[offset + index] = UInt8((value >> (8 * UInt64(index))) & 0xFF) }
    }
    bytes.replaceSubrange(0..<6, with: [0x7F, 0x45, 0x4C, 0x46, 2, 1])
    put(3, at: 16, size: 2)  // a shared object
    put(UInt64(ELFFile.hostMachine), at: 18, size: 2)
    put(64, at: 40, size: 8)  // section headers right after the ELF header
    put(64, at: 58, size: 2)
    put(UInt64(count), at: 60, size: 2)
    for index in 0..<count {
      let base = 64 + 64 * index
      put(11, at: base + 4, size: 4)  // each claims to be a 1 MiB .dynsym…
      put(1 << 16, at: base + 24, size: 8)
      put(1 << 20, at: base + 32, size: 8)
      put(24, at: base + 56, size: 8)  // …whose names are itself (link 0)
    }
    let path = try dir.write("many.so", Data(bytes))
    #expect(truncate(path, 4 << 20) == 0)
    let fd = open(path, O_RDONLY)
    defer { close(fd) }
    let elf = try ELFFile(fd: fd, size: 4 << 20)
    #expect(elf.bytesRead < 3 << 20, "read \(elf.bytesRead) bytes of a 4 MiB file")
  }

  @Test func symbolNamesThatNeverEndAreNotReadToTheEndOfTheTable() throws {
    let dir = try TemporaryDirectory()
    let count = 20
    var bytes = [UInt8](repeating: 0, count: 64 + 64 * 2 + 24 * count)
    func put(_ value: UInt64, at offset: Int, size: Int) {
      for index in 0..<size { bytes[offset + index] = UInt8((value >> (8 * UInt64(index))) & 0xFF) }
    }
    bytes.replaceSubrange(0..<6, with: [0x7F, 0x45, 0x4C, 0x46, 2, 1])
    put(3, at: 16, size: 2)
    put(UInt64(ELFFile.hostMachine), at: 18, size: 2)
    put(64, at: 40, size: 8)
    put(64, at: 58, size: 2)
    put(2, at: 60, size: 2)
    let symbols = 64 + 64 * 2
    let names = 1 << 20
    // Section 0: the symbol table, its names in section 1: 8 MiB with one NUL, at its end.
    put(11, at: 64 + 4, size: 4)
    put(UInt64(symbols), at: 64 + 24, size: 8)
    put(UInt64(24 * count), at: 64 + 32, size: 8)
    put(1, at: 64 + 40, size: 4)
    put(24, at: 64 + 56, size: 8)
    put(3, at: 128 + 4, size: 4)
    put(UInt64(names), at: 128 + 24, size: 8)
    put(8 << 20, at: 128 + 32, size: 8)
    for index in 1..<count {
      let base = symbols + 24 * index
      put(UInt64(index), at: base, size: 4)  // a name starting inside the endless run
      bytes[base + 4] = 0x12  // a global function…
      put(1, at: base + 6, size: 2)  // …defined in a section
    }
    var file = Data(bytes)
    file.append(Data(repeating: 0x41, count: names + (8 << 20) - bytes.count - 1))
    file.append(0)  // the one NUL, at the very end
    let path = try dir.write("endless.so", file)
    let fd = open(path, O_RDONLY)
    defer { close(fd) }
    let elf = try ELFFile(fd: fd, size: file.count)
    #expect(elf.exportedSymbols == [], "names longer than \(ELFFile.nameLimit) bytes are passed over")
  }
}
