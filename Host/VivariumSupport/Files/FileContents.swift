import Foundation
import Glibc

/// What reading a whole file of the data directory gave: its bytes, no file
/// at all, a failure with its `errno`, or a file the host does not trust.
/// Only a missing file means "nothing saved yet"; every other outcome (a
/// directory, no permission, an I/O error, a FIFO) must not be taken for it.
package enum FileContents: Equatable {
  /// The file's bytes.
  case data(Data)
  /// There is no such file (`ENOENT`).
  case missing
  /// The file is there but could not be read: the `errno`.
  case failed(Int32)
  /// The file is there but is not used: why, and what to do.
  case refused(String)

  /// The most bytes the host reads of each kind of file in its data
  /// directory: far more than it writes there, few enough that a runaway
  /// file is refused instead of filling memory.
  package enum Limit {
    /// `plugin-registry.cache`: the contracts of every plugin scanned.
    package static let registry = 64 << 20
    /// `settings.json`, and each plugin's `storage/NAME.json`.
    package static let store = 16 << 20
    /// A store's journal (`settings.journal`, `storage/NAME.journal`):
    /// folded into the store once it outgrows the store, so at most the
    /// store's limit, a record as large, and a header naming who wrote what.
    package static let storeJournal = 3 * store
    /// `state/navigation-KEY.json`: the screens shown and their restoration states.
    package static let navigation = 16 << 20
    /// `state/navigation-KEY.journal`: folded into the snapshot once it
    /// outgrows twice the snapshot's size, so three times its limit.
    package static let navigationJournal = 3 * navigation
    /// `vivarium-app.json` in a plugin directory: a name, a start and a scheme.
    package static let appManifest = 1 << 20
    /// `permissions.json`: the person's decisions about plugins' permissions.
    package static let permissions = 1 << 20
    /// `plugins.json`: the plugins the person turned off.
    package static let pluginSwitches = 1 << 20
    /// `log-levels.json`: the level each plugin logs at.
    package static let logLevels = 1 << 20
    /// `state/plugins-live.json`: what each plugin of a running app is doing.
    package static let pluginActivity = 4 << 20
    /// `permission-uses.jsonl` and the one before it: a new one is started
    /// past 4 MiB, so a file is at most that and one line more.
    package static let permissionUses = 5 << 20
  }

  /// Reads the whole file at `path` as plugin files are read: opened without
  /// following a link and without blocking (a FIFO cannot hang the host), and
  /// used only when it is a regular file of yours or root's that no one else
  /// can write (``FilePermissions``, judged as holding `holding`), of at
  /// most `limit` bytes.
  package static func read(_ path: String, limit: Int, holds holding: FilePermissions.Holding = .data) -> FileContents {
    let fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
    guard fd >= 0 else {
      let code = errno
      if code == ENOENT { return .missing }
      if code == ELOOP {
        return .refused("it is a symbolic link; the host reads only regular files in its data directory")
      }
      return .failed(code)
    }
    defer { close(fd) }
    var info = stat()
    guard fstat(fd, &info) == 0 else { return .failed(errno) }
    guard info.st_mode & S_IFMT == S_IFREG else {
      return .refused("it is \(kindName(info.st_mode)), not a regular file")
    }
    if let problem = FilePermissions.problem(file: path, info, holds: holding) { return .refused(problem) }
    guard info.st_size <= limit else { return tooLarge(Int(info.st_size), limit) }
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
      // A file that grows while it is read is judged by what it became.
      guard data.count + count <= limit else { return tooLarge(data.count + count, limit) }
      data.append(contentsOf: buffer[0..<count])
    }
  }

  private static func tooLarge(_ size: Int, _ limit: Int) -> FileContents {
    .refused(
      "it is \(size) bytes or more, over the \(limit >> 20) MiB the host reads of such a file; nothing the host writes is that large"
    )
  }

  /// `a FIFO`, `a directory`, …: what a file of `mode` is.
  private static func kindName(_ mode: mode_t) -> String {
    switch mode & S_IFMT {
    case S_IFDIR: "a directory"
    case S_IFIFO: "a FIFO"
    case S_IFSOCK: "a socket"
    case S_IFCHR: "a character device"
    case S_IFBLK: "a block device"
    default: "a special file"
    }
  }

  /// Whether anything (a file, a directory, a dangling link) is at `path`.
  package static func exists(_ path: String) -> Bool {
    var status = stat()
    return lstat(path, &status) == 0 || errno != ENOENT
  }

  /// Moves the file at `path` aside, to the first free `path.LABEL-N`, so
  /// that what is there is never overwritten nor lost; the new path, or the
  /// `errno` of the failed rename.
  package static func setAside(_ path: String, as label: String) -> Result<String, Errno> {
    var index = 1
    // Only a name that is certainly taken is skipped: an lstat that fails for
    // another reason than ENOENT would fail the rename too, which says so.
    var info = stat()
    while lstat("\(path).\(label)-\(index)", &info) == 0, index < 100_000 { index += 1 }
    let aside = "\(path).\(label)-\(index)"
    guard rename(path, aside) == 0 else { return .failure(Errno(code: errno)) }
    return .success(aside)
  }

  /// An `errno`, as an error.
  package struct Errno: Error {
    package let code: Int32
    /// The error `code`.
    package init(code: Int32) { self.code = code }
    package var description: String { AtomicFile.errorText(code) }
  }
}
