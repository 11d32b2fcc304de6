import Foundation
import Glibc
import VivariumSupport

/// A plugin file opened once, checked through that descriptor, and loaded
/// from it (`dlopen("/proc/self/fd/N")`), so that what was checked is what
/// runs: replacing the file after the check, or swapping a directory on its
/// path, changes nothing for this load.
struct PluginFile: Sendable {
  /// The path as given, for reports.
  let path: String
  /// The open descriptor. Once the file is loaded it is never closed: the
  /// loader keeps `/proc/self/fd/N` as the library's name, and a reused
  /// number would make `dlopen` return the old library.
  let descriptor: Int32
  /// What the registry cache knows this version of the file by.
  let key: PluginFileKey
  /// For a private copy (``PluginLoader/loadCopy(_:)``): the real path of
  /// the file it copies, whose folder holds the libraries it needs.
  var origin: String?

  /// Its size in bytes.
  var size: Int { Int(key.size) }

  /// The descriptor as a path: opening it opens this very file.
  var loadPath: String { "/proc/self/fd/\(descriptor)" }

  /// Where the open file is now, every link resolved; nil if it was removed.
  var realPath: String? {
    if let origin { return origin }
    guard let path = Self.link(loadPath), path.hasPrefix("/"), !path.hasSuffix(" (deleted)") else { return nil }
    return path
  }

  /// Opens `path` for checking: resolves it, checks every directory on its
  /// real path, opens the result without following a link, and checks the
  /// open file (regular, owner, mode). `directories` keeps what was found
  /// of each directory for the other files of one scan.
  static func open(_ path: String, directories: DirectoryChecks = DirectoryChecks()) throws(Rejection) -> PluginFile {
    guard let real = directories.realPath(of: path) else {
      throw Rejection(path, .unreadable, "cannot read it: \(String(cString: strerror(errno))); check the path")
    }
    for directory in Set([
      PathName.parent(real), directories.realPath(of: PathName.parent(path)) ?? PathName.parent(real),
    ]) {
      if let problem = directories.problem(directoriesFrom: directory) {
        throw Rejection(path, .unsafePermissions, problem)
      }
    }
    // O_NONBLOCK: a FIFO named like a plugin must not hang the host here.
    let fd = Glibc.open(real, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)
    guard fd >= 0 else {
      let reason =
        errno == ELOOP
        ? "it was replaced by a symbolic link while the host checked it; try again, and find out who changes it"
        : "cannot open it: \(String(cString: strerror(errno))); check 'ls -l \(path)'"
      throw Rejection(path, .unreadable, reason)
    }
    do {
      return try checked(fd, path: path, real: real)
    } catch {
      _ = Glibc.close(fd)
      throw error
    }
  }

  /// The key of `path` as it is now, from one `lstat`: when it is a regular
  /// file (not a link) that passes the checks ``open(_:directories:)``
  /// makes of its permissions and its directories; nil otherwise (open it to
  /// find out why). A scan looks a file up in the registry cache by this key
  /// and reads nothing more of a file it finds there; whatever is loaded
  /// later is opened and checked again.
  static func peek(_ path: String, directories: DirectoryChecks) -> PluginFileKey? {
    guard let info = directories.linkStatus(of: path), info.st_mode & S_IFMT == S_IFREG,
      FilePermissions.problem(file: path, info) == nil,
      let directory = directories.resolved(PathName.parent(path)),
      directories.problem(directoriesFrom: directory) == nil
    else { return nil }
    return PluginFileKey(path: path, info)
  }

  /// A descriptor a parent process opened and checked, handed to this child
  /// as ``ChildChannel/fileDescriptor``; checked again through `fstat`, but
  /// for its owner: the child runs in a user namespace of its own, where a
  /// file of an owner it does not map (root's, for a person who is not
  /// root: plugins installed system-wide) shows the overflow user. The
  /// parent checked the owner outside, of this very file.
  static func inherited(_ fd: Int32, path: String) throws(Rejection) -> PluginFile {
    var info = stat()
    guard fstat(fd, &info) == 0 else {
      throw Rejection(path, .unreadable, "the probe process was not given the file; report this as a host bug")
    }
    return try checked(fd, path: path, real: nil, owner: false)
  }

  /// `owner`: whether the file's owner is checked too (not in a child in a
  /// user namespace; see ``inherited(_:path:)``).
  private static func checked(_ fd: Int32, path: String, real: String?, owner: Bool = true) throws(Rejection)
    -> PluginFile
  {
    var info = stat()
    guard fstat(fd, &info) == 0 else {
      throw Rejection(path, .unreadable, "cannot read it: \(String(cString: strerror(errno)))")
    }
    guard info.st_mode & S_IFMT == S_IFREG else {
      throw Rejection(path, .notRegularFile, "it is not a regular file; a plugin is a .so file")
    }
    let problem =
      owner ? FilePermissions.problem(file: path, info) : FilePermissions.modeProblem(file: path, info)
    if let problem { throw Rejection(path, .unsafePermissions, problem) }
    if let real, let opened = link("/proc/self/fd/\(fd)"), opened != real {
      throw Rejection(
        path, .unreadable,
        "it moved while the host checked it (\(real) is now \(opened)); try again, and find out who moves it")
    }
    return PluginFile(path: path, descriptor: fd, key: PluginFileKey(path: path, info))
  }

  /// Closes the descriptor of a file that was not loaded.
  func close() { _ = Glibc.close(descriptor) }

  /// The target of the symbolic link `path`, or nil when it is none.
  private static func link(_ path: String) -> String? {
    withUnsafeTemporaryAllocation(of: CChar.self, capacity: Int(PATH_MAX) + 1) { buffer in
      let count = readlink(path, buffer.baseAddress!, buffer.count - 1)
      // A target that fills the buffer may have been cut short: not trusted.
      guard count >= 0, count < buffer.count - 1 else { return nil }
      buffer[count] = 0
      return String(cString: buffer.baseAddress!)
    }
  }
}
