import Glibc

/// Writing to a file descriptor with write(2): every byte, retrying short
/// and interrupted writes, and saying which `errno` stopped it. Unlike
/// `FileHandle.write`, a failure (a full disk, a closed pipe) is returned,
/// not trapped.
package enum DescriptorOutput {
  /// Writes all of `bytes` to `fd`; nil when every byte was written, else
  /// the `errno` of the write that failed.
  package static func write(_ bytes: UnsafeRawBufferPointer, to fd: Int32) -> Int32? {
    var offset = 0
    while offset < bytes.count {
      let written = Glibc.write(fd, bytes.baseAddress! + offset, bytes.count - offset)
      if written < 0 && errno == EINTR { continue }
      guard written > 0 else { return written < 0 ? errno : EIO }
      offset += written
    }
    return nil
  }

  /// Writes all of `text`, as UTF-8, to `fd`; the `errno` that stopped it, if any.
  package static func write(_ text: String, to fd: Int32) -> Int32? {
    Array(text.utf8).withUnsafeBytes { write($0, to: fd) }
  }
}
