import Foundation
import Glibc

/// What reading a whole file gave: its bytes, no file at all, or a failure
/// with its `errno`. Only a missing file means "nothing saved yet"; every other
/// failure (a directory, no permission, an I/O error) must not be taken for it.
enum FileContents: Equatable {
  /// The file's bytes.
  case data(Data)
  /// There is no such file (`ENOENT`).
  case missing
  /// The file is there but could not be read: the `errno`.
  case failed(Int32)

  /// Reads the whole file at `path`.
  static func read(_ path: String) -> FileContents {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else {
      let code = errno
      return code == ENOENT ? .missing : .failed(code)
    }
    defer { close(fd) }
    var data = Data()
    var buffer = [UInt8](repeating: 0, count: 64 * 1024)
    while true {
      let count = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
      if count < 0 {
        let code = errno
        if code == EINTR { continue }
        return .failed(code)
      }
      if count == 0 { return .data(data) }
      data.append(contentsOf: buffer[0..<count])
    }
  }

  /// Whether anything (a file, a directory, a dangling link) is at `path`.
  static func exists(_ path: String) -> Bool {
    var status = stat()
    return lstat(path, &status) == 0 || errno != ENOENT
  }
}
