import Glibc

/// What changes when a file is rebuilt: its device and inode (a build that
/// writes a new file and renames it), its size and its modification time
/// (one that writes in place). Equal signatures: the same file, unchanged.
package struct FileSignature: Hashable, Sendable {
  let device: UInt64
  let inode: UInt64
  let size: Int64
  let modified: Int64

  /// The signature of `path` now; nil when it is not there.
  package init?(_ path: String) {
    var info = stat()
    guard stat(path, &info) == 0 else { return nil }
    device = UInt64(info.st_dev)
    inode = UInt64(info.st_ino)
    size = Int64(info.st_size)
    modified = Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)
  }
}
