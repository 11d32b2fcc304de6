import Glibc

/// Refuses files and directories other users could have replaced, the way
/// ssh's `StrictModes` refuses an `authorized_keys` others can write: a plugin
/// runs with the host's rights, so whoever can write it, or rename anything on
/// the way to it, can act as the person running the host.
///
/// The rule, for the file and for every directory on its real path up to `/`:
/// it belongs to you or to root, and other users cannot write it. A directory
/// others can write is accepted only with the sticky bit and owned by root or
/// you (as `/tmp` is): there, others cannot rename or remove your entries.
enum FilePermissions {
  /// Nil when the opened file `info` at `path` is safe to load; otherwise
  /// what is wrong and what to do.
  static func problem(file path: String, _ info: stat) -> String? {
    if info.st_mode & S_IWOTH != 0 {
      return
        "the file is writable by every user (mode \(mode(info))), so anyone could replace the code the host runs; run 'chmod o-w \(path)'"
    }
    return ownerProblem("file", path, info)
  }

  /// Nil when `directory` (a real path, no symbolic links) and every
  /// directory above it are safe; otherwise what is wrong with the first
  /// that is not, and what to do.
  static func problem(directoriesFrom directory: String) -> String? {
    var path = directory
    while true {
      var info = stat()
      if lstat(path, &info) == 0, let problem = directoryProblem(path, info) { return problem }
      guard let slash = path.lastIndex(of: "/"), path != "/" else { return nil }
      path = slash == path.startIndex ? "/" : String(path[..<slash])
    }
  }

  private static func directoryProblem(_ path: String, _ info: stat) -> String? {
    let trusted = info.st_uid == 0 || info.st_uid == getuid()
    if info.st_mode & S_IWOTH != 0, !(info.st_mode & S_ISVTX != 0 && trusted) {
      return
        "the directory \(path) is writable by every user (mode \(mode(info))), so anyone could replace the code the host runs; keep plugins in a directory only you can write, or run 'chmod o-w \(path)' if it is yours"
    }
    return ownerProblem("directory \(path)", path, info)
  }

  private static func ownerProblem(_ what: String, _ path: String, _ info: stat) -> String? {
    let owner = info.st_uid
    guard owner != 0, owner != getuid() else { return nil }
    let subject = what == "file" ? "the file" : "the \(what)"
    return
      "\(subject) belongs to user \(owner), not to you (\(getuid())) or root, so that user could replace the code the host runs; take ownership ('chown') or copy the plugin to a directory of your own"
  }

  private static func mode(_ info: stat) -> String { String(info.st_mode & 0o7777, radix: 8) }
}
