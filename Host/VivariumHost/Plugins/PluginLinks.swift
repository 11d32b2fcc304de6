import Foundation
import Glibc
import Synchronization

/// Loads a checked plugin file with `dlopen` so that the code that runs is the
/// file that was checked, and the libraries it needs from its own folder
/// (`$ORIGIN` in its run path, as SwiftPM builds them) are found.
///
/// `dlopen("/proc/self/fd/N")` alone loads the checked file, but then
/// `$ORIGIN` is `/proc/self/fd`. So the host makes a private directory
/// (mode 0700, named by its pid and a counter, so never reused in a process)
/// holding a link named like the plugin to `/proc/self/fd/N`, and one link per
/// library it needs from its folder, each to the descriptor of that library
/// opened and checked like a plugin (``PluginFile``). `$ORIGIN` is then that
/// directory. The directory is removed once `dlopen` returns: the loader does
/// not open those files again.
enum PluginLinks {
  /// The most libraries followed from one plugin.
  static let dependencyLimit = 64

  /// Loads `file`; its descriptor and those of its libraries stay open for
  /// good when it loads. On failure, the `dlerror` text with the link
  /// directory's paths replaced by the real ones.
  static func open(_ file: PluginFile) -> Result<UnsafeMutableRawPointer, LoadError> {
    let directory: String
    do {
      directory = try makeDirectory()
    } catch {
      return .failure(error)
    }
    var links: [String] = []
    var libraries: [PluginFile] = []
    defer {
      for link in links { unlink(link) }
      rmdir(directory)
    }
    let name = file.realPath.map { ($0 as NSString).lastPathComponent } ?? "plugin.so"
    let pluginLink = "\(directory)/\(name)"
    guard symlink(file.loadPath, pluginLink) == 0 else { return .failure(LoadError(errnoText("link the plugin"))) }
    links.append(pluginLink)
    do {
      try linkLibraries(of: file, named: name, into: directory, links: &links, opened: &libraries)
    } catch {
      for library in libraries { library.close() }
      return .failure(error)
    }
    if let handle = dlopen(pluginLink, RTLD_NOW | RTLD_LOCAL) { return .success(handle) }
    let message = (dlerror().map { String(cString: $0) } ?? "unknown dlopen error")
      .replacingOccurrences(
        of: directory + "/", with: file.realPath.map { ($0 as NSString).deletingLastPathComponent + "/" } ?? "")
    for library in libraries { library.close() }
    return .failure(LoadError(message))
  }

  /// Why a plugin could not be loaded.
  struct LoadError: Error {
    let message: String
    init(_ message: String) { self.message = message }
  }

  /// Links, into `directory`, each library `file` (and each of those, in
  /// turn) needs that is not loaded yet and that its run path finds in its
  /// own folder.
  private static func linkLibraries(
    of file: PluginFile, named name: String, into directory: String, links: inout [String],
    opened: inout [PluginFile]
  ) throws(LoadError) {
    guard let folder = file.realPath.map({ ($0 as NSString).deletingLastPathComponent }) else { return }
    var pending = [file]
    var linked: Set<String> = [name]
    while let next = pending.popLast() {
      guard let elf = try? ELFFile(fd: next.descriptor, size: next.size),
        elf.runPath.contains(where: { $0 == "$ORIGIN" || $0 == "${ORIGIN}" })
      else { continue }
      for library in elf.needed where !linked.contains(library) && !isLoaded(library) {
        let path = "\(folder)/\(library)"
        guard !library.contains("/"), FileManager.default.fileExists(atPath: path) else { continue }
        guard opened.count < dependencyLimit else {
          throw LoadError(
            "it needs over \(dependencyLimit) libraries from its folder; the host follows at most that many")
        }
        let checked: PluginFile
        do {
          checked = try PluginFile.open(path)
        } catch {
          throw LoadError(
            "it needs \(library) from its folder, which the host refuses: \(error.reasons.joined(separator: "; "))")
        }
        opened.append(checked)
        linked.insert(library)
        let link = "\(directory)/\(library)"
        guard symlink(checked.loadPath, link) == 0 else { throw LoadError(errnoText("link \(library)")) }
        links.append(link)
        pending.append(checked)
      }
    }
  }

  /// Whether a library of that name is loaded in this process already (the
  /// host's own ViperKit and Swift runtime are).
  private static func isLoaded(_ name: String) -> Bool {
    dlopen(name, RTLD_NOLOAD | RTLD_LAZY) != nil
  }

  private static let counter = Counter()

  private static func makeDirectory() throws(LoadError) -> String {
    let base = NSTemporaryDirectory().hasSuffix("/") ? NSTemporaryDirectory() : NSTemporaryDirectory() + "/"
    for _ in 0..<100 {
      let path = "\(base)vivarium-load-\(getpid())-\(counter.next())"
      if mkdir(path, 0o700) == 0 { return path }
      guard errno == EEXIST else { throw LoadError(errnoText("create \(path)")) }
    }
    throw LoadError("cannot create a private directory in \(base) to load plugins from")
  }

  private static func errnoText(_ what: String) -> String {
    "cannot \(what) in the host's private load directory: \(String(cString: strerror(errno)))"
  }
}

/// A number that only grows, shared by the threads that load plugins.
private final class Counter: Sendable {
  private let value = Mutex(0)

  func next() -> Int {
    value.withLock {
      $0 += 1
      return $0
    }
  }
}
