import Foundation
import Glibc

/// Whether this session may save in its data directory.
package enum DataAccess: Equatable, Sendable {
  /// This session holds the data directory's lock: it saves, and no other
  /// session does until it ends.
  case exclusive
  /// Another process holds the lock (its pid, when it could be read): this
  /// session reads what is saved, and every save fails.
  case readOnly(holder: Int32?)
  /// The lock could not be taken (why): every save fails.
  case unavailable(String)
}

/// An exclusive `flock` on `vivarium.lock` in a data directory, held until
/// this object goes (or the process ends, even by `kill -9`). The lock file
/// holds the holder's pid, for the message another session shows. It is never
/// removed: removing a lock file lets two processes lock two different files.
package final class DataDirectoryLock {
  /// The lock file's name in the data directory.
  package static let fileName = "vivarium.lock"

  /// What this session got.
  package let access: DataAccess
  private let fd: Int32

  /// Takes the lock of `directory`, creating the directory (mode 0700) if
  /// needed, without waiting for another holder.
  package init(directory: String) {
    do {
      try FileManager.default.createDirectory(
        atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    } catch {
      fd = -1
      access = .unavailable("cannot create it: \(error.localizedDescription)")
      return
    }
    let path = "\(directory)/\(Self.fileName)"
    // Not through a link: truncating the lock file must not truncate another file.
    fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0o600)
    guard fd >= 0 else {
      access = .unavailable("cannot open \(path): \(AtomicFile.errorText(errno))")
      return
    }
    guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
      let code = errno
      if code == EWOULDBLOCK {
        access = .readOnly(holder: Self.holder(fd))
      } else {
        access = .unavailable("cannot lock \(path): \(AtomicFile.errorText(code))")
      }
      return
    }
    let pid = Array("\(getpid())\n".utf8)
    if ftruncate(fd, 0) == 0 { _ = pwrite(fd, pid, pid.count, 0) }
    access = .exclusive
  }

  deinit {
    if fd >= 0 { close(fd) }
  }

  /// The pid written in the lock file open at `fd`, if it reads as one.
  private static func holder(_ fd: Int32) -> Int32? {
    var bytes = [UInt8](repeating: 0, count: 32)
    let count = pread(fd, &bytes, bytes.count, 0)
    guard count > 0 else { return nil }
    let text = String(decoding: bytes[0..<count], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    return Int32(text).flatMap { $0 > 0 ? $0 : nil }
  }

  /// Removes the temporary files interrupted saves left in `directories`
  /// (see ``AtomicFile``) and returns their paths. Only the lock's holder may:
  /// no one else writes there.
  package static func removeLeftovers(in directories: [String]) -> [String] {
    directories.flatMap { directory in
      let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
      return names.filter(AtomicFile.isTemporary).map { "\(directory)/\($0)" }.filter { path in
        var status = stat()
        return lstat(path, &status) == 0 && (status.st_mode & S_IFMT) == S_IFREG && unlink(path) == 0
      }
    }
  }
}
