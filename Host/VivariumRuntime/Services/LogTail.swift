import Foundation
import Glibc
import VivariumSupport

/// The lines of the host's log in a data directory, read as they are
/// written (`tail -F`): `vivarium.log` from its start, then each line
/// appended to it; when the host renames it `vivarium.log.1` and starts a
/// new one (``HostServices/logFileLimit``), the rest of the old one, then
/// the new one from its start. A file cut short is read again from its
/// start. Opened as the host opens its files: never through a link, never
/// waiting on a FIFO, only a regular file of yours.
package struct LogTail {
  /// The file followed: `vivarium.log` in the data directory.
  package let path: String
  private var descriptor: Int32 = -1
  /// The file open, to tell when the path names another.
  private var opened = (device: UInt64(0), inode: UInt64(0))
  private var offset = 0
  /// The end of a line not yet written whole.
  private var partial: [UInt8] = []
  /// The last problem said, so that it is said once.
  private var problemSaid: String?

  /// Follows the log of `dataDirectory`: `file` in it, `vivarium.log` unless given.
  package init(dataDirectory: String, file: String = LogRecord.fileName) {
    path = dataDirectory + "/" + file
  }

  /// What was read after the last line's end: a line not (yet) written
  /// whole, or nil.
  package var unfinished: String? { partial.isEmpty ? nil : String(decoding: partial, as: UTF8.self) }

  /// Closes the file followed.
  package mutating func close() {
    if descriptor >= 0 { Glibc.close(descriptor) }
    descriptor = -1
  }

  /// The whole lines written since the last call (at the first, every
  /// line of the file), oldest first, without their newlines; and what
  /// keeps the log from being read, the first time it does.
  package mutating func read() -> (lines: [String], problem: String?) {
    var lines: [String] = []
    var problem: String?
    if descriptor < 0 {
      problem = open()
    } else {
      lines += drain()
      var named = stat()
      let replaced =
        lstat(path, &named) != 0 || UInt64(named.st_ino) != opened.inode || UInt64(named.st_dev) != opened.device
      if replaced {
        // Renamed vivarium.log.1 (or removed): what it held is read; the new one is next.
        if !partial.isEmpty { lines.append(String(decoding: partial, as: UTF8.self)) }
        partial = []
        close()
        problem = open()
      } else {
        var info = stat()
        if fstat(descriptor, &info) == 0, Int(info.st_size) < offset {
          // Cut short: read from its start again.
          offset = 0
          partial = []
        }
      }
    }
    if descriptor >= 0 { lines += drain() }
    if problem == problemSaid { problem = nil } else { problemSaid = problem }
    return (lines, problem)
  }

  /// Opens the file, from its start: nil when it is open or there is none
  /// yet, else why it cannot be read.
  private mutating func open() -> String? {
    let fd = Glibc.open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
    guard fd >= 0 else {
      let code = errno
      return code == ENOENT ? nil : "\(path) cannot be read (\(AtomicFile.errorText(code)))"
    }
    var info = stat()
    guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
      Glibc.close(fd)
      return "\(path) is not a regular file; it is not read"
    }
    if let problem = FilePermissions.problem(file: path, info, holds: .data) {
      Glibc.close(fd)
      return "\(path) is not read: \(problem)"
    }
    descriptor = fd
    opened = (UInt64(info.st_dev), UInt64(info.st_ino))
    offset = 0
    partial = []
    return nil
  }

  /// Reads the open file to its end: its whole lines.
  private mutating func drain() -> [String] {
    var lines: [String] = []
    var buffer = [UInt8](repeating: 0, count: 64 * 1024)
    while true {
      let count = buffer.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, off_t(offset)) }
      if count < 0, errno == EINTR { continue }
      guard count > 0 else { return lines }
      offset += count
      var start = 0
      for index in 0..<count where buffer[index] == UInt8(ascii: "\n") {
        partial += buffer[start..<index]
        lines.append(String(decoding: partial, as: UTF8.self))
        partial = []
        start = index + 1
      }
      partial += buffer[start..<count]
    }
  }
}
