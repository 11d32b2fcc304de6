import Foundation
import Glibc

/// Replaces a file's contents all at once: the data goes to a temporary file
/// (`.NAME.PID.tmp`) in the same directory, is flushed to disk, and is renamed
/// over the target. A crash at any point leaves either the old contents or the
/// new, never a mix, so nothing already saved is lost. A write that fails
/// removes its temporary file; one a crash left behind is removed by the next
/// session that locks the data directory (``DataDirectoryLock``).
package enum AtomicFile {
  package struct WriteError: Error, CustomStringConvertible {
    let path: String
    let reason: String
    package var description: String { "could not save \(path): \(reason)" }
  }

  /// A failure to simulate, for tests.
  package enum Fault {
    /// Stops after this many bytes as a kill would: the temporary file stays.
    case crash(afterBytes: Int)
    /// The write fails with `errno` after this many bytes, as on a full disk.
    case writeError(afterBytes: Int, errno: Int32)
  }

  /// Writes `data` to `path`, creating its directory (mode 0700) if needed.
  package static func write(_ data: Data, to path: String, fault: Fault? = nil) throws(WriteError) {
    let directory = PathName.parent(path)
    do {
      try FileManager.default.createDirectory(
        atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    } catch {
      throw WriteError(path: path, reason: "cannot create \(directory): \(error.localizedDescription)")
    }
    let temporary = "\(directory)/.\(PathName.lastComponent(path)).\(getpid()).tmp"
    let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
    guard fd >= 0 else { throw WriteError(path: path, reason: "cannot create \(temporary): \(errorText(errno))") }
    /// Closes and removes the temporary file, then throws `reason`.
    func fail(_ reason: String) -> WriteError {
      close(fd)
      unlink(temporary)
      return WriteError(path: path, reason: reason)
    }
    switch writeAll(data, to: fd, fault: fault) {
    case .crashed:
      close(fd)
      throw WriteError(path: path, reason: "interrupted")
    case .failed(let code):
      throw fail("write failed: \(errorText(code))")
    case .written:
      break
    }
    guard fsync(fd) == 0 else { throw fail("cannot flush to disk: \(errorText(errno))") }
    guard close(fd) == 0 else {
      let code = errno
      unlink(temporary)
      throw WriteError(path: path, reason: "cannot close \(temporary): \(errorText(code))")
    }
    guard rename(temporary, path) == 0 else {
      let code = errno
      unlink(temporary)
      throw WriteError(path: path, reason: "cannot replace the file: \(errorText(code))")
    }
    flushDirectory(of: path)
  }

  /// Flushes to disk the directory entry of `path` (a file just created or renamed).
  package static func flushDirectory(of path: String) {
    let directoryFD = open(PathName.parent(path), O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    if directoryFD >= 0 {
      fsync(directoryFD)
      close(directoryFD)
    }
  }

  private enum WriteOutcome {
    case written
    case crashed
    case failed(Int32)
  }

  /// Writes every byte of `data` to `fd` (``DescriptorOutput``), or as much
  /// of it as `fault` lets through, then fails as `fault` says.
  private static func writeAll(_ data: Data, to fd: Int32, fault: Fault?) -> WriteOutcome {
    let limit: Int
    switch fault {
    case .crash(let bytes), .writeError(let bytes, _): limit = min(bytes, data.count)
    case nil: limit = data.count
    }
    if let code = data.prefix(limit).withUnsafeBytes({ DescriptorOutput.write($0, to: fd) }) { return .failed(code) }
    switch fault {
    case .crash: return .crashed
    case .writeError(_, let code): return .failed(code)
    case nil: return .written
    }
  }

  /// Whether `name` is a temporary file this type writes: `.NAME.PID.tmp`.
  package static func isTemporary(_ name: String) -> Bool {
    guard name.hasPrefix("."), name.hasSuffix(".tmp") else { return false }
    let parts = name.dropFirst().dropLast(4).split(separator: ".", omittingEmptySubsequences: false)
    guard parts.count >= 2, let pid = parts.last, !pid.isEmpty else { return false }
    return pid.allSatisfy(\.isASCII) && pid.allSatisfy(\.isNumber) && !parts.dropLast().joined().isEmpty
  }

  package static func errorText(_ code: Int32) -> String { String(cString: strerror(code)) }
}
