import Foundation
import Glibc
import VivariumSupport

/// What one scan found of each directory its plugin files are in: its real
/// path and whether it and the directories above it are safe. Hundreds of
/// plugins in one directory then cost one `realpath` and one walk to `/`, not
/// one each. Use one per scan, on one thread: a directory changed later is
/// seen by the next scan, and a file swapped during this one is still caught
/// through its open descriptor (``PluginFile``).
final class DirectoryChecks {
  private var realPaths: [String: String] = [:]
  private var problems: [String: String?] = [:]
  private var statuses: [String: stat] = [:]

  init() {}

  /// The real path of `path`, every link resolved; nil (and `errno` set)
  /// when it cannot be resolved. A file that is not itself a link is found
  /// through its directory's real path.
  func realPath(of path: String) -> String? {
    let name = PathName.lastComponent(path)
    if let info = linkStatus(of: path), info.st_mode & S_IFMT != S_IFLNK, name != "..", name != ".", !name.isEmpty,
      path.last != "/"
    {
      let directory = PathName.parent(path)
      guard let real = resolved(directory) else { return nil }
      return real == "/" ? "/" + name : real + "/" + name
    }
    return Self.realPath(path)
  }

  /// What `lstat` says of `path`, asked once per scan; nil (and `errno`
  /// set) when it fails.
  func linkStatus(of path: String) -> stat? {
    if let known = statuses[path] { return known }
    var info = stat()
    guard lstat(path, &info) == 0 else { return nil }
    statuses[path] = info
    return info
  }

  /// ``FilePermissions/problem(directoriesFrom:)``, once per directory.
  func problem(directoriesFrom directory: String) -> String? {
    if let known = problems[directory] { return known }
    let problem = FilePermissions.problem(directoriesFrom: directory)
    problems[directory] = problem
    return problem
  }

  /// The real path of the directory `directory`, resolved once per scan.
  func resolved(_ directory: String) -> String? {
    if let known = realPaths[directory] { return known }
    guard let real = Self.realPath(directory) else { return nil }
    realPaths[directory] = real
    return real
  }

  /// `path` with every link resolved (`realpath`); nil, `errno` set, when
  /// it cannot be resolved.
  static func realPath(_ path: String) -> String? {
    guard let resolved = realpath(path, nil) else { return nil }
    defer { free(resolved) }
    return String(cString: resolved)
  }
}
