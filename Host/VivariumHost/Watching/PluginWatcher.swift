import Foundation

/// Watches plugin files for rebuilds: every ``interval`` it looks at each
/// `.so` file of the directories (or the file given instead of one), and
/// reports a file that is new or changed once it has stayed the same for a
/// whole interval, so that a file still being written is not taken.
///
/// Polling, not inotify: it sees a file replaced by a rename, written in
/// place or reached through a link the same way, and a few `stat` calls per
/// interval cost nothing next to a build.
@MainActor
public final class PluginWatcher {
  /// How often the files are looked at.
  public let interval: Duration
  private let directories: [String]
  private let changed: (String) -> Void
  /// Each file's signature as last taken (or as at start).
  private var known: [String: FileSignature] = [:]
  /// Changed files, with the signature they had at the last look.
  private var settling: [String: FileSignature] = [:]
  private var poller: Poller?

  /// Watches the `.so` files of `directories`, as they are now; `changed`
  /// is called on the main actor with the path of each new or rebuilt file.
  public init(directories: [String], interval: Duration = .milliseconds(200), changed: @escaping (String) -> Void) {
    self.directories = directories
    self.interval = interval
    self.changed = changed
    for path in files() { known[path] = FileSignature(path) }
  }

  /// Starts looking.
  public func start() {
    let poller = Poller(interval: interval) { [weak self] in self?.look() }
    self.poller = poller
    poller.start()
  }

  /// Stops looking.
  public func stop() {
    poller?.stop()
    poller = nil
  }

  /// One look: reports each file that changed and then held still.
  func look() {
    for path in files() {
      guard let now = FileSignature(path), now != known[path] else {
        settling[path] = nil
        continue
      }
      if settling[path] == now {
        settling[path] = nil
        known[path] = now
        changed(path)
      } else {
        settling[path] = now
      }
    }
  }

  /// The plugin files there are now.
  private func files() -> [String] {
    directories.flatMap { directory -> [String] in
      var isDirectory: ObjCBool = false
      guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory) else { return [] }
      guard isDirectory.boolValue else { return [directory] }
      let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
      return names.filter { $0.hasSuffix(".so") }.sorted().map { (directory as NSString).appendingPathComponent($0) }
    }
  }
}
