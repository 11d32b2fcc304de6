import Foundation
import Glibc

/// Replaces a file's contents all at once: the data goes to a temporary file
/// in the same directory, is flushed to disk, and is renamed over the target.
/// A crash at any point leaves either the old contents or the new, never a
/// mix, so nothing already saved is lost.
enum AtomicFile {
  struct WriteError: Error, CustomStringConvertible {
    let path: String
    let reason: String
    var description: String { "could not save \(path): \(reason)" }
  }

  /// Writes `data` to `path`, creating its directory (mode 0700) if needed.
  /// `interruptAfter` stops after that many bytes, as a crash would: for tests.
  static func write(_ data: Data, to path: String, interruptAfter: Int? = nil) throws(WriteError) {
    let directory = (path as NSString).deletingLastPathComponent
    do {
      try FileManager.default.createDirectory(
        atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    } catch {
      throw WriteError(path: path, reason: "cannot create \(directory): \(error.localizedDescription)")
    }
    let temporary = "\(directory)/.\((path as NSString).lastPathComponent).\(getpid()).tmp"
    let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
    guard fd >= 0 else { throw WriteError(path: path, reason: "cannot create \(temporary): \(errorText())") }
    let limit = min(interruptAfter ?? data.count, data.count)
    let written = data.prefix(limit).withUnsafeBytes { buffer in
      buffer.isEmpty ? 0 : Glibc.write(fd, buffer.baseAddress, buffer.count)
    }
    guard written == limit, limit == data.count else {
      close(fd)
      throw WriteError(path: path, reason: interruptAfter != nil ? "interrupted" : "write failed: \(errorText())")
    }
    guard fsync(fd) == 0 else {
      close(fd)
      unlink(temporary)
      throw WriteError(path: path, reason: "cannot flush to disk: \(errorText())")
    }
    close(fd)
    guard rename(temporary, path) == 0 else {
      unlink(temporary)
      throw WriteError(path: path, reason: "cannot replace the file: \(errorText())")
    }
    let directoryFD = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    if directoryFD >= 0 {
      fsync(directoryFD)
      close(directoryFD)
    }
  }

  private static func errorText() -> String { String(cString: strerror(errno)) }
}
