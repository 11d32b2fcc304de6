import Glibc

/// Refuses files and directories other users could have replaced, the way ssh
/// refuses a world-writable `authorized_keys`: a plugin runs with the host's
/// rights, so whoever can write it can act as the person running the host.
enum FilePermissions {
  /// Nil when `path` is safe to load from; otherwise what is wrong and what to do.
  static func problem(_ path: String, isDirectory: Bool) -> String? {
    var info = stat()
    guard stat(path, &info) == 0 else { return nil }
    let what = isDirectory ? "directory" : "file"
    if info.st_mode & S_IWOTH != 0 {
      let mode = String(info.st_mode & 0o7777, radix: 8)
      let fix =
        isDirectory
        ? "keep plugins in a directory only you can write, or run 'chmod o-w \(path)' if it is yours"
        : "run 'chmod o-w \(path)'"
      return
        "the \(what) is writable by every user (mode \(mode)), so anyone could replace the code the host runs; \(fix)"
    }
    let owner = info.st_uid
    if owner != 0 && owner != getuid() {
      return
        "the \(what) belongs to user \(owner), not to you (\(getuid())) or root; take ownership ('chown') or copy it to a directory of your own"
    }
    return nil
  }
}
