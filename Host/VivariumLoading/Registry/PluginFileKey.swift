import Glibc

/// One version of one plugin file, as the registry cache knows it: a file
/// whose path, size, modification time, inode and device are all unchanged
/// is taken to be unchanged (GStreamer's registry keys on path, size and
/// modification time; the inode catches a file replaced by `mv` with the
/// same size and time).
package struct PluginFileKey: Codable, Hashable, Sendable {
  /// The path the file was found at.
  package var path: String
  /// Its size in bytes.
  package var size: Int64
  /// Its modification time, in nanoseconds since 1970.
  package var modified: Int64
  /// Its inode number.
  package var inode: UInt64
  /// The device holding it.
  package var device: UInt64

  /// The key of the file at `path`, described by `info` (from `fstat`).
  init(path: String, _ info: stat) {
    self.path = path
    size = Int64(info.st_size)
    modified = Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)
    inode = UInt64(info.st_ino)
    device = UInt64(info.st_dev)
  }

  /// A key from its parts, for tests.
  init(path: String, size: Int64, modified: Int64, inode: UInt64, device: UInt64) {
    self.path = path
    self.size = size
    self.modified = modified
    self.inode = inode
    self.device = device
  }
}
