import Glibc

/// Refuses files and directories other users could have replaced, the way
/// ssh's `StrictModes` refuses an `authorized_keys` others can write: a plugin
/// runs with the host's rights, so whoever can write it, or rename anything on
/// the way to it, can act as the person running the host.
///
/// The rule, for the file and for every directory on its real path up to `/`:
/// it belongs to you or to root, and other users cannot write it: not every
/// user, and not a group, unless the group is your own private group (your
/// primary group, named after you, with no other members). A directory others can write is
/// accepted only with the sticky bit and owned by root or you (as `/tmp` is):
/// there, others cannot rename or remove your entries.
package enum FilePermissions {
  /// What a file holds, which says what another user could do through it
  /// and what the person can do instead.
  package enum Holding {
    /// A plugin: code the host runs.
    case code
    /// A file of the data directory: what the host reads back.
    case data

    /// What a user who can replace the file could replace.
    package var risk: String {
      switch self {
      case .code: "the code the host runs"
      case .data: "what the host reads back"
      }
    }

    /// What to do about a file another user owns.
    package var ownerRemedy: String {
      switch self {
      case .code: "copy the plugin to a directory of your own"
      case .data: "remove it if you do not know who wrote it"
      }
    }

    /// What to do about the file at `path` others can write: a data file
    /// is set aside (``FileContents/setAside(_:as:)``), so the person is
    /// told what to do with it there.
    package func writableRemedy(_ path: String) -> String {
      switch self {
      case .code: "run 'chmod go-w \(path)'"
      case .data: "if it is yours, run 'chmod go-w' on it and put it back"
      }
    }
  }

  /// Nil when the opened file `info` at `path` is safe to use as what it
  /// `holds`; otherwise what is wrong and what to do.
  package static func problem(file path: String, _ info: stat, holds holding: Holding = .code) -> String? {
    modeProblem(file: path, info, holds: holding) ?? ownerProblem("file", path, info, holding)
  }

  /// What is wrong with who may write the file at `path` by its mode alone,
  /// not its owner: for a process in a user namespace of its own, which
  /// sees an owner it does not map (root, to a person's process) as the
  /// overflow user, and is given files its parent checked whole.
  package static func modeProblem(file path: String, _ info: stat, holds holding: Holding = .code) -> String? {
    otherWriters(info).map { writers in
      "the file is writable by \(writers) (mode \(mode(info))), so they could replace \(holding.risk); \(holding.writableRemedy(path))"
    }
  }

  /// Nil when `directory` (a real path, no symbolic links) and every
  /// directory above it are safe; otherwise what is wrong with the first
  /// that is not, and what to do.
  package static func problem(directoriesFrom directory: String) -> String? {
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
    if let writers = otherWriters(info), !(info.st_mode & S_ISVTX != 0 && trusted) {
      return
        "the directory \(path) is writable by \(writers) (mode \(mode(info))), so they could replace the code the host runs; keep plugins in a directory only you can write, or run 'chmod go-w \(path)' if it is yours"
    }
    return ownerProblem("directory \(path)", path, info)
  }

  /// Who besides the owner can write: `every user`, `the group NAME`, or nil.
  private static func otherWriters(_ info: stat) -> String? {
    if info.st_mode & S_IWOTH != 0 { return "every user" }
    guard info.st_mode & S_IWGRP != 0, !isPrivateGroup(info.st_gid) else { return nil }
    return "the group \(groupName(info.st_gid) ?? String(info.st_gid))"
  }

  /// Whether `gid` is this user's private group: the primary group, named
  /// after the user (the convention Debian's `adduser` follows), with no
  /// other listed members.
  private static func isPrivateGroup(_ gid: gid_t) -> Bool {
    guard gid == getgid(), let me = userName() else { return false }
    return withGroup(gid) { group in
      guard let group, String(cString: group.gr_name) == me else { return false }
      guard var member = group.gr_mem else { return true }
      while let name = member.pointee {
        if String(cString: name) != me { return false }
        member += 1
      }
      return true
    }
  }

  private static func groupName(_ gid: gid_t) -> String? {
    withGroup(gid) { $0.map { String(cString: $0.gr_name) } }
  }

  /// Calls `body` with the group entry of `gid` (nil if there is none),
  /// read with the thread-safe `getgrgid_r`.
  private static func withGroup<T>(_ gid: gid_t, _ body: (group?) -> T) -> T {
    var entry = group()
    var found: UnsafeMutablePointer<group>?
    var buffer = [CChar](repeating: 0, count: 16_384)
    // The entry points into the buffer: use it while the buffer is pinned.
    return buffer.withUnsafeMutableBufferPointer { bytes in
      guard getgrgid_r(gid, &entry, bytes.baseAddress!, bytes.count, &found) == 0, found != nil else {
        return body(nil)
      }
      return body(entry)
    }
  }

  private static func userName() -> String? {
    var entry = passwd()
    var found: UnsafeMutablePointer<passwd>?
    var buffer = [CChar](repeating: 0, count: 16_384)
    return buffer.withUnsafeMutableBufferPointer { bytes in
      guard getpwuid_r(getuid(), &entry, bytes.baseAddress!, bytes.count, &found) == 0, found != nil else {
        return nil
      }
      return String(cString: entry.pw_name)
    }
  }

  private static func ownerProblem(_ what: String, _ path: String, _ info: stat, _ holding: Holding = .code)
    -> String?
  {
    let owner = info.st_uid
    guard owner != 0, owner != getuid() else { return nil }
    let subject = what == "file" ? "the file" : "the \(what)"
    return
      "\(subject) belongs to user \(owner), not to you (\(getuid())) or root, so that user could replace \(holding.risk); take ownership ('chown') or \(holding.ownerRemedy)"
  }

  private static func mode(_ info: stat) -> String { String(info.st_mode & 0o7777, radix: 8) }
}
