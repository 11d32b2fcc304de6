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

/// A process in a user namespace of its own (a probe, a check) sees a file
/// whose owner it does not map (root's plugins, to a person who is not
/// root) as the overflow user's. It is handed files its parent checked
/// whole, and checks their mode again, not their owner.
@Suite("Files handed to a child in a user namespace")
struct InheritedPluginFileTests {
  @Test func aFileOfAnOwnerTheChildDoesNotMapIsTakenAndOneOthersCanWriteIsNot() throws {
    let dir = try TemporaryDirectory()
    let path = try dir.write("libSystemWide.so", Data("x".utf8))
    // As the child sees root's file: owned by the overflow user (65534).
    try #require(chown(path, 65534, 65534) == 0, "the tests run as root, which may give a file away")
    try #require(chmod(path, 0o644) == 0)
    #expect(throws: Rejection.self, "outside, a file of another user is refused") { try PluginFile.open(path) }
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    try #require(fd >= 0)
    let inherited = try PluginFile.inherited(fd, path: path)
    inherited.close()
    try #require(chmod(path, 0o666) == 0)
    let writable = open(path, O_RDONLY | O_CLOEXEC)
    defer { close(writable) }
    #expect {
      try PluginFile.inherited(writable, path: path)
    } throws: { error in
      (error as? Rejection)?.kind == .unsafePermissions
    }
  }
}
