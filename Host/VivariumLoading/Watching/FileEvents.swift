import Dispatch
import Glibc

/// Tells the main actor when a file in some directories was written and
/// closed, moved in, created or removed, by inotify: the clock of
/// ``PluginWatcher`` and ``PackageBuilder``, which then look at once
/// instead of at their next poll. It tells which paths are whole: a file
/// written and closed, or renamed into place (or a directory moved in), so
/// that nothing needs to wait for them to hold still. Any other file that
/// changed may still be being written: a linker that makes its output,
/// sizes it and fills it in place is told first when it makes it.
///
/// Events that come together (a build writing several files, an editor
/// saving through a temporary file) are told once, ``gathering`` after the
/// first.
@MainActor
final class FileEvents {
  /// How long after an event more are gathered before telling.
  static let gathering: DispatchTimeInterval = .milliseconds(5)
  /// What inotify reports: a file closed after writing, moved in or out,
  /// created or deleted.
  private static let mask = UInt32(IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_CREATE | IN_DELETE)

  private let descriptor: Int32
  private let source: any DispatchSourceRead
  private let changed: @MainActor (_ whole: Set<String>) -> Void
  /// The directory of each watch, and whether those made below it are watched.
  private var watched: [Int32: (directory: String, recursive: Bool)] = [:]
  private var telling = false
  /// The paths closed after writing or moved in since the last telling.
  private var whole: Set<String> = []

  /// Watches `directories` and, below each of `trees`, every directory, as
  /// they are made; nil when inotify cannot be had or none of them is
  /// there, so that the caller polls instead. `changed` is given the paths
  /// that are whole (``whole(_:in:)`` tells whether a path is one of them
  /// or inside one).
  init?(directories: [String], trees: [String] = [], changed: @escaping @MainActor (_ whole: Set<String>) -> Void) {
    let descriptor = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
    guard descriptor >= 0 else { return nil }
    self.descriptor = descriptor
    self.changed = changed
    source = DispatchSource.makeReadSource(fileDescriptor: descriptor, queue: .main)
    for directory in directories { watch(directory, recursive: false) }
    for tree in trees { watch(tree, recursive: true) }
    guard !watched.isEmpty else {
      close(descriptor)
      return nil
    }
    source.setEventHandler { [weak self] in MainActor.assumeIsolated { self?.read() } }
    source.setCancelHandler { close(descriptor) }
    source.resume()
  }

  /// The directories watched now.
  var directories: [String] { watched.values.map(\.directory) }

  /// Stops watching and closes the descriptor.
  func stop() { source.cancel() }

  /// Adds a watch on `directory` and, when recursive, those below it.
  private func watch(_ directory: String, recursive: Bool) {
    let number = inotify_add_watch(descriptor, directory, Self.mask | UInt32(IN_ONLYDIR))
    guard number >= 0 else { return }
    watched[number] = (directory, recursive)
    guard recursive, let entries = opendir(directory) else { return }
    defer { closedir(entries) }
    while let entry = readdir(entries) {
      guard entry.pointee.d_type == UInt8(DT_DIR) else { continue }
      let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
      if name != "." && name != ".." { watch(directory + "/" + name, recursive: true) }
    }
  }

  /// Reads what is waiting, watches new directories, and tells once soon.
  private func read() {
    var buffer = [UInt8](repeating: 0, count: 16 * 1024)
    while true {
      let count = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
      guard count > 0 else { break }
      var offset = 0
      while offset + MemoryLayout<inotify_event>.size <= count {
        let (number, mask, length) = buffer.withUnsafeBytes { bytes in
          let event = bytes.loadUnaligned(fromByteOffset: offset, as: inotify_event.self)
          return (event.wd, event.mask, Int(event.len))
        }
        let nameStart = offset + MemoryLayout<inotify_event>.size
        let name = String(decoding: buffer[nameStart..<nameStart + length].prefix { $0 != 0 }, as: UTF8.self)
        if let parent = watched[number], !name.isEmpty {
          let path = parent.directory + "/" + name
          if mask & UInt32(IN_CLOSE_WRITE | IN_MOVED_TO) != 0 { whole.insert(Self.plain(path)) }
          if mask & UInt32(IN_ISDIR) != 0, mask & UInt32(IN_CREATE | IN_MOVED_TO) != 0, parent.recursive {
            watch(path, recursive: true)
          }
        }
        offset = nameStart + length
      }
    }
    guard !telling else { return }
    telling = true
    DispatchQueue.main.asyncAfter(deadline: .now() + Self.gathering) { [weak self] in
      MainActor.assumeIsolated {
        guard let self else { return }
        self.telling = false
        let whole = self.whole
        self.whole = []
        self.changed(whole)
      }
    }
  }

  /// Whether `path` is one of the `whole` paths, or inside a directory that is.
  static func whole(_ path: String, in whole: Set<String>) -> Bool {
    guard !whole.isEmpty else { return false }
    var path = Substring(plain(path))
    while !path.isEmpty {
      if whole.contains(String(path)) { return true }
      guard let slash = path.lastIndex(of: "/") else { return false }
      path = path[..<slash]
    }
    return false
  }

  /// `path` without empty or `.` components: `./a//b/` as `a/b`.
  static func plain(_ path: String) -> String {
    let parts = path.split(separator: "/").filter { $0 != "." }
    return (path.hasPrefix("/") ? "/" : "") + parts.joined(separator: "/")
  }
}
