import Foundation
import Testing
import ViperKit
import VivariumApp
import VivariumLoading
import VivariumRuntime
import VivariumTerminal
import VivariumTools
import VivariumWire

/// Every way a file can be refused, each with a bad file the test makes.
@Suite("Rejecting bad plugin files")
@MainActor
struct PluginRejectionTests {
  /// A fresh directory per test: Swift Testing makes a new suite value for each.
  let dir: TemporaryDirectory

  init() throws {
    dir = try TemporaryDirectory()
  }

  private func rejection(_ path: String) throws -> Rejection {
    guard case .rejected(let rejection) = PluginLoader().load(path) else {
      throw LoadedUnexpectedly(path: path)
    }
    return rejection
  }

  private func expect(
    _ path: String, _ kind: Rejection.Kind, _ phrases: String..., sourceLocation: SourceLocation = #_sourceLocation
  ) throws {
    let rejection = try rejection(path)
    #expect(rejection.kind == kind, sourceLocation: sourceLocation)
    #expect(rejection.path == path, sourceLocation: sourceLocation)
    let text = rejection.reasons.joined(separator: " ")
    for phrase in phrases {
      #expect(text.contains(phrase), "'\(phrase)' not in: \(text)", sourceLocation: sourceLocation)
    }
  }

  @Test func emptyFile() throws {
    try expect(try dir.write("empty.so", Data()), .empty, "empty (0 bytes)")
  }

  @Test func textFileRenamedSo() throws {
    try expect(try dir.write("notes.so", Data("hello, I am text\n".utf8)), .notELF, "not an ELF", "hello, I am text")
  }

  @Test func truncatedSharedObject() throws {
    let whole = try Data(contentsOf: URL(fileURLWithPath: BuildProducts.itemsList))
    let path = try dir.write("half.so", whole.prefix(whole.count / 2))
    try expect(path, .truncated, "truncated", "the file has \(whole.count / 2)")
  }

  @Test func sdkLibraryItself() throws {
    try expect(try dir.copy(BuildProducts.viperKit, as: "libViperKit.so"), .sdkLibrary, "ViperKit SDK library")
  }

  @Test func sharedLibraryWithoutEntrySymbol() throws {
    let path = try CPluginBuilder.libraryWithoutEntry(named: "libhelper.so", in: dir)
    try expect(path, .noEntrySymbol, "vivarium_plugin_entry", "@_cdecl")
  }

  @Test func objectFileIsNotASharedLibrary() throws {
    let path = try CPluginBuilder.objectFile(named: "helper.so", in: dir)
    try expect(path, .notSharedObject, "relocatable object")
  }

  /// A C plugin in `dir` whose descriptor is valid but for what `change` alters.
  private func cPlugin(_ name: String, _ change: (inout CPluginBuilder.Fields) -> Void) throws -> String {
    var fields = CPluginBuilder.Fields()
    change(&fields)
    return try CPluginBuilder.plugin(fields, named: name, in: dir)
  }

  @Test func entryReturningNull() throws {
    try expect(try cPlugin("null.so") { $0.returnsNull = true }, .nullDescriptor, "returned NULL")
  }

  @Test func wrongMagic() throws {
    try expect(
      try cPlugin("magic.so") { $0.magic = "0x12345678u" }, .badMagic, "host expects 0x56495052",
      "plugin has 0x12345678")
  }

  @Test func otherPluginABIVersion() throws {
    try expect(
      try cPlugin("abi.so") { $0.abi = "99" }, .incompatible, "plugin ABI: host has 1, plugin has 99",
      "rebuild the plugin against ViperKit \(ViperKitVersion.current)")
  }

  @Test func newerSDKMinor() throws {
    let current = ViperKitVersion.current
    try expect(
      try cPlugin("newer.so") { $0.minor = "VIPERKIT_VERSION_MINOR + 1" }, .incompatible,
      "host has ViperKit \(current), plugin has ViperKit \(current.major).\(current.minor + 1).0, which is newer")
  }

  @Test func otherSDKMajor() throws {
    try expect(
      try cPlugin("major.so") { $0.major = "VIPERKIT_VERSION_MAJOR + 1" }, .incompatible, "the major versions differ")
  }

  @Test func otherSwiftCompiler() throws {
    try expect(
      try cPlugin("compiler.so") { $0.compiler = "Swift 5.10 (clang 17.0.0)" }, .incompatible,
      "Swift compiler: host has \(swiftCompilerIdentity()), plugin has Swift 5.10 (clang 17.0.0)",
      "rebuild the plugin with the host's toolchain")
  }

  @Test func everyMismatchedFieldIsNamed() throws {
    let path = try cPlugin("both.so") {
      $0.abi = "7"
      $0.compiler = "other"
    }
    #expect(try rejection(path).reasons.count == 2)
  }

  @Test func pluginTypeFromAnotherSDKCopy() throws {
    try expect(
      try cPlugin("foreign.so") { _ in }, .foreignSDKCopy, "own copy of ViperKit", "depend on the ViperKit product",
      #"package: "SDK""#)
  }

  @Test func worldWritableFile() throws {
    let path = try dir.copy(BuildProducts.itemsList, as: "libItemsList.so")
    try FileManager.default.setAttributes([.posixPermissions: 0o666], ofItemAtPath: path)
    try expect(path, .unsafePermissions, "writable by every user", "chmod go-w")
  }

  @Test func worldWritableDirectoryIsRefusedWhole() throws {
    try dir.copy(BuildProducts.itemsList, as: "libItemsList.so")
    try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: dir.path)
    let outcomes = PluginDiscovery(commandLine: [dir.path], environment: [:], executable: "/x").load(
      with: PluginLoader())
    #expect(outcomes.count == 1)
    guard case .rejected(let rejection) = outcomes.first else {
      Issue.record("the directory should be refused")
      return
    }
    #expect(rejection.kind == .unsafePermissions)
    #expect(rejection.path == dir.path)
  }

  @Test func missingDirectory() {
    let outcomes = PluginDiscovery(commandLine: ["/nonexistent/plugins"], environment: [:], executable: "/x")
      .load(with: PluginLoader())
    guard case .rejected(let rejection) = outcomes.first else {
      Issue.record("a missing directory should be reported")
      return
    }
    #expect(rejection.kind == .missingDirectory)
    #expect(rejection.reasons[0].contains("/nonexistent/plugins"))
  }

  @Test func sameFileThroughASymlinkLoadsOnce() throws {
    let real = try dir.copy(BuildProducts.itemsList, as: "a.so")
    try FileManager.default.createSymbolicLink(atPath: dir.path + "/b.so", withDestinationPath: real)
    let outcomes = PluginDiscovery(commandLine: [dir.path], environment: [:], executable: "/x").load(
      with: PluginLoader())
    #expect(outcomes.count == 2)
    guard case .rejected(let rejection) = outcomes.last else {
      Issue.record("the second path should be refused as a duplicate")
      return
    }
    #expect(rejection.kind == .duplicate)
    #expect(rejection.reasons[0].contains(real))
  }

  @Test func twoPluginsClaimingTheSameURNConflictAndNeitherWins() throws {
    // Two plugins of their own names, one pattern.
    let (first, second) = ("/p/first.so", "/p/second.so")
    let recorder = ProbeRecorder()
    let outcomes = [("First", first), ("Second", second)].map { name, path in
      PluginOutcome.loaded(
        LoadedPlugin(
          path: path, name: name, sdkVersion: .current,
          factories: [
            ProbeFactory(contract: Contract(urn: "items:list", summary: "A list."), recorder: recorder).factory
          ]))
    }
    let catalog = PluginCatalog(outcomes: outcomes)
    #expect(catalog.loaded.count == 2)
    #expect(catalog.conflicts.count == 1)
    let message = try #require(catalog.conflicts.first?.message)
    #expect(message.contains(first) && message.contains(second))
    #expect {
      try catalog.resolve("items:list")
    } throws: { error in
      (error as? ResolveError)?.kind == .conflict
    }
  }

  struct LoadedUnexpectedly: Error { let path: String }
}
