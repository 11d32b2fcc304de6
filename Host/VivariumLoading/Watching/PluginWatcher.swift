import Foundation
import VivariumSupport

/// Watches plugin files for rebuilds: it looks at each `.so` file of the
/// directories (or the file given instead of one) when inotify tells of a
/// change there (``FileEvents``), and reports at once each that is new or
/// changed and was written and closed, or moved in. Another file that
/// changed (a linker's output it has only made and sized so far) may still
/// be being written: it is reported once it has been closed, or has stayed
/// the same for a whole ``interval``. Without inotify it looks every
/// interval and reports a file once it has stayed the same for a whole
/// interval, so that a file still being written is not taken.
///
/// It compares signatures rather than trusting events: a file replaced by
/// a rename, written in place or reached through a link is seen the same way.
@MainActor
package final class PluginWatcher {
  /// How often the files are looked at, without inotify.
  package let interval: Duration
  private let directories: [String]
  private let changed: (String) -> Void
  /// Each file's signature as last taken (or as at start).
  private var known: [String: FileSignature] = [:]
  /// Changed files, with the signature they had at the last look.
  private var settling: [String: FileSignature] = [:]
  /// Files reported because they held still, not because they were closed:
  /// a close told after is reported again even if the signature is the same.
  private var unsure: Set<String> = []
  private var poller: Poller?
  private var events: FileEvents?
  /// The look after a changed file that was not closed has held still.
  private var recheck: Task<Void, Never>?

  /// Watches the `.so` files of `directories`, as they are now; `changed`
  /// is called on the main actor with the path of each new or rebuilt file.
  package init(directories: [String], interval: Duration = .milliseconds(200), changed: @escaping (String) -> Void) {
    self.directories = directories
    self.interval = interval
    self.changed = changed
    for path in files() { known[path] = FileSignature(path) }
  }

  /// Starts looking.
  package func start() {
    events = FileEvents(directories: watchedFolders) { [weak self] whole in self?.look(closed: whole) }
    guard events == nil else { return }
    let poller = Poller(interval: interval) { [weak self] in self?.look() }
    self.poller = poller
    poller.start()
  }

  /// The folders inotify watches: each directory, and the folder of each
  /// file given instead of one (``PathName/parent(_:)``: Foundation's
  /// `deletingLastPathComponent` traps on a name of one component).
  var watchedFolders: [String] {
    directories.map { directory in
      var isDirectory: ObjCBool = false
      let exists = FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory)
      return !exists || isDirectory.boolValue ? directory : PathName.parent(directory)
    }
  }

  /// Stops looking.
  package func stop() {
    events?.stop()
    events = nil
    poller?.stop()
    poller = nil
    recheck?.cancel()
    recheck = nil
  }

  /// Looks now, taking the files as whole: when a build that wrote them has
  /// ended, its products are reloaded without waiting for an event.
  package func lookNow() { look(whole: true) }

  /// One look: reports each file that changed and, unless the files are
  /// known to be `whole`, then held still until the next look.
  func look(whole: Bool = false) {
    for path in files() {
      guard let now = FileSignature(path), now != known[path] || (whole && unsure.contains(path)) else {
        settling[path] = nil
        continue
      }
      if whole || settling[path] == now {
        take(path, now, sure: whole)
      } else {
        settling[path] = now
      }
    }
  }

  /// One look after inotify told of changes: reports each file that changed
  /// and was `closed` after writing or moved in (``FileEvents/whole(_:in:)``)
  /// at once, and each other one once it has held still since the last look,
  /// which comes an ``interval`` later if no event brings it sooner.
  func look(closed: Set<String>) {
    for path in files() {
      let whole = FileEvents.whole(path, in: closed)
      guard let now = FileSignature(path), now != known[path] || (whole && unsure.contains(path)) else {
        settling[path] = nil
        continue
      }
      if whole || settling[path] == now {
        take(path, now, sure: whole)
      } else {
        settling[path] = now
      }
    }
    recheck?.cancel()
    recheck = nil
    guard !settling.isEmpty else { return }
    recheck = Task { [weak self, interval] in
      try? await Task.sleep(for: interval)
      guard !Task.isCancelled else { return }
      self?.look(closed: [])
    }
  }

  private func take(_ path: String, _ signature: FileSignature, sure: Bool) {
    settling[path] = nil
    known[path] = signature
    if sure { unsure.remove(path) } else { unsure.insert(path) }
    changed(path)
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
