import Foundation
import Glibc
import Testing
import VivariumSupport

/// What a file of the data directory may be replaced by that the host must
/// not read: each made at a path, with the fact the host's warning must name.
enum UntrustedFile: String, CaseIterable, CustomTestStringConvertible {
  /// A FIFO: opening it to read used to wait for a writer forever.
  case fifo
  /// A symbolic link to `/dev/zero`: reading it used to never end.
  case linkToDevZero
  /// A file every user can write (mode 666).
  case worldWritable
  /// A regular file of more bytes than the host reads of it (sparse).
  case oversized
  /// A file of user 65534 (`nobody`): only root can give a file away, so
  /// a test run by anyone else fails to make it, saying so.
  case otherOwner

  var testDescription: String { rawValue }

  /// The fact the warning must carry: what the file is, its mode, its
  /// owner, or the unit of the limit it is over.
  var reason: String {
    switch self {
    case .fifo: "FIFO"
    case .linkToDevZero: "symbolic link"
    case .worldWritable: "(mode 666)"
    case .oversized: " MiB"
    case .otherOwner: "65534"
    }
  }

  /// Puts this kind of file at `path`; `contents` is what a regular one
  /// holds, `limit` the most the host reads of it.
  func make(at path: String, contents: Data, limit: Int) throws {
    switch self {
    case .fifo:
      try check(mkfifo(path, 0o600), "mkfifo")
    case .linkToDevZero:
      try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: "/dev/zero")
    case .worldWritable, .otherOwner:
      try contents.write(to: URL(fileURLWithPath: path))
      if self == .otherOwner { try check(chown(path, 65534, 65534), "chown (run the tests as root)") }
      try check(chmod(path, self == .worldWritable ? 0o666 : 0o644), "chmod")
    case .oversized:
      try contents.write(to: URL(fileURLWithPath: path))
      try check(truncate(path, off_t(limit + 1)), "truncate")
    }
  }

  private func check(_ result: Int32, _ call: String) throws {
    guard result == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO, userInfo: ["call": call]) }
  }
}
