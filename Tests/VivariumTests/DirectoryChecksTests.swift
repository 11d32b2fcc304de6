import Foundation
import Glibc
import Testing

@testable import VivariumLoading
@testable import VivariumSupport

/// What one scan learns of a directory serves every file in it, without
/// letting a link or an unsafe directory through.
@Suite("Directory checks shared by one scan")
struct DirectoryChecksTests {
  @Test func aFileIsFoundThroughItsDirectorysRealPathAndALinkThroughItsTarget() throws {
    let dir = try TemporaryDirectory()
    let real = try #require(
      realpath(dir.path, nil).map { pointer in
        defer { free(pointer) }
        return String(cString: pointer)
      })
    try FileManager.default.createDirectory(atPath: dir.path + "/a", withIntermediateDirectories: true)
    _ = try dir.write("a/libX.so", Data("x".utf8))
    try FileManager.default.createSymbolicLink(atPath: dir.path + "/b", withDestinationPath: dir.path + "/a")
    try FileManager.default.createSymbolicLink(atPath: dir.path + "/a/libY.so", withDestinationPath: "libX.so")
    let checks = DirectoryChecks()
    #expect(checks.realPath(of: dir.path + "/b/libX.so") == real + "/a/libX.so")
    #expect(checks.realPath(of: dir.path + "/b/libY.so") == real + "/a/libX.so", "a link is resolved")
    #expect(checks.realPath(of: dir.path + "/b/gone.so") == nil)
  }

  @Test func everyFileOfAnUnsafeDirectoryIsRefused() async throws {
    let dir = try TemporaryDirectory()
    let first = try dir.write("libA.so", Data("x".utf8))
    let second = try dir.write("libB.so", Data("x".utf8))
    chmod(dir.path, 0o777)
    defer { chmod(dir.path, 0o755) }
    let checks = DirectoryChecks()
    for path in [first, second] {
      #expect {
        try PluginFile.open(path, directories: checks)
      } throws: { error in
        (error as? Rejection)?.kind == .unsafePermissions && (error as? Rejection)?.path == path
      }
    }
  }
}

extension DirectoryChecksTests {
  /// A cache hit is decided on one `lstat`: only for a plain file that
  /// passes every check opening it would make.
  @Test func aFileIsPeekedAtOnlyWhenOpeningItWouldPassTheSameChecks() throws {
    let dir = try TemporaryDirectory()
    let plain = try dir.write("libA.so", Data("x".utf8))
    let opened = try PluginFile.open(plain)
    defer { opened.close() }
    #expect(PluginFile.peek(plain, directories: DirectoryChecks()) == opened.key)
    try FileManager.default.createSymbolicLink(atPath: dir.path + "/libB.so", withDestinationPath: plain)
    #expect(PluginFile.peek(dir.path + "/libB.so", directories: DirectoryChecks()) == nil, "a link is opened")
    let writable = try dir.write("libC.so", Data("x".utf8))
    chmod(writable, 0o666)
    #expect(PluginFile.peek(writable, directories: DirectoryChecks()) == nil, "a file others can write")
    chmod(dir.path, 0o777)
    defer { chmod(dir.path, 0o755) }
    #expect(PluginFile.peek(plain, directories: DirectoryChecks()) == nil, "a directory others can write")
  }
}

@Suite("Path names")
struct PathNameTests {
  @Test(arguments: [
    ("a/b", "a"), ("/a", "/"), ("a", "."), ("a/", "."), ("/", "/"), ("/a/b/", "/a"), ("a//b", "a"), ("//a", "/"),
    ("./a", "."), ("", "."),
  ])
  func theParentIsWhatDirnameGives(path: String, parent: String) {
    #expect(PathName.parent(path) == parent)
  }

  @Test(arguments: [("a/b.so", "b.so"), ("a/", "a"), ("/", "/"), ("", ""), ("b.so", "b.so"), ("/a//b//", "b")])
  func theLastComponentIsWhatBasenameGives(path: String, name: String) {
    #expect(PathName.lastComponent(path) == name)
  }
}
