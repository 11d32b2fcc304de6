import Foundation
import Glibc
import Synchronization
import VivariumSupport

/// Loads a checked plugin file with `dlopen` so that the code that runs is the
/// file that was checked, and the libraries it needs from beside it (through
/// `$ORIGIN` in its run path, as SwiftPM links them) are found.
///
/// `dlopen("/proc/self/fd/N")` alone loads the checked file, but then
/// `$ORIGIN` is `/proc/self/fd`. So each load gets a private tree (in a root
/// of this process's, mode 0700, in the temporary directory) holding a link
/// named like the plugin to `/proc/self/fd/N`, deep enough that every
/// `$ORIGIN`-relative run-path entry stays inside it, and, at the place each
/// entry names, a link to every library the plugin (and, in turn, those
/// libraries) needs from the matching real folder, opened and checked like a
/// plugin (``PluginFile``). A run-path entry that would climb out of the tree
/// is refused. The tree is removed once `dlopen` returns; trees of processes
/// that died while loading are removed by the next process that loads.
package enum PluginLinks {
  /// The most libraries followed from one plugin.
  static let dependencyLimit = 64
  /// The deepest the plugin's link may sit in its tree: the most `..` an
  /// `$ORIGIN` run-path entry may climb.
  static let depthLimit = 16
  /// Folders of room above what the plugin's own run path climbs, for the
  /// run paths of the libraries it needs.
  static let libraryRoom = 4

  /// Loads `file`; its descriptor and those of its libraries stay open for
  /// good when it loads. On failure, the `dlerror` text with the tree's paths
  /// replaced by the real ones.
  static func open(_ file: PluginFile, beforeMapping: (@Sendable (PluginMapping) -> Void)? = nil) -> Result<
    UnsafeMutableRawPointer, LoadError
  > {
    let tree: String
    do {
      tree = try LoadRoot.shared.makeTree()
    } catch {
      return .failure(error)
    }
    defer { try? FileManager.default.removeItem(atPath: tree) }
    let elf = try? ELFFile(fd: file.descriptor, size: file.size)
    // As deep as the plugin's run path climbs, and a little more: each
    // folder costs a mkdir on every load.
    let climb =
      elf?.runPath.compactMap(originSuffix).map { $0.split(separator: "/").filter { $0 == ".." }.count }.max() ?? 0
    let folder = tree + String(repeating: "/o", count: min(climb + libraryRoom, depthLimit))
    let realPath = file.realPath
    let realFolder = realPath.map(PathName.parent) ?? "/"
    let name = realPath.map { PathName.lastComponent($0) } ?? "plugin.so"
    var libraries: [PluginFile] = []
    do {
      try makeDirectories(folder)
      try link(file, as: "\(folder)/\(name)")
      try linkLibraries(of: elf, realFolder: realFolder, folder: folder, tree: tree, opened: &libraries)
    } catch {
      for library in libraries { library.close() }
      return .failure(error)
    }
    beforeMapping?(
      PluginMapping(files: [file.descriptor] + libraries.map(\.descriptor), loadRoot: PathName.parent(tree)))
    if let handle = dlopen("\(folder)/\(name)", RTLD_NOW | RTLD_LOCAL) { return .success(handle) }
    let message = (dlerror().map { String(cString: $0) } ?? "unknown dlopen error")
      .replacingOccurrences(of: folder + "/", with: realFolder + "/")
    for library in libraries { library.close() }
    return .failure(LoadError(message))
  }

  /// Why a plugin could not be loaded.
  struct LoadError: Error {
    let message: String
    init(_ message: String) { self.message = message }
  }

  /// Removes the load trees of processes of this user that have ended.
  static func removeAbandonedTrees() { LoadRoot.removeAbandoned() }

  /// Whether this process removes abandoned trees before it makes its own;
  /// a plugin process leaves that to its host, which does it once for all.
  package static let sweepsAbandonedTrees = Atomic<Bool>(true)

  /// Links, where the plugin's run path (from its headers, `plugin`) looks
  /// for them inside the tree, the libraries it needs that are not loaded yet
  /// and that the same run path finds beside the real file; then theirs, in turn.
  private static func linkLibraries(
    of plugin: ELFFile?, realFolder: String, folder: String, tree: String, opened: inout [PluginFile]
  ) throws(LoadError) {
    var pending = [(plugin, realFolder, folder)]
    var linked: Set<String> = []
    while let (headers, realFolder, folder) = pending.popLast() {
      guard let elf = headers else { continue }
      // Each $ORIGIN entry, as (real folder, its place in the tree).
      var places: [(real: String, link: String)] = []
      for entry in elf.runPath {
        guard let suffix = originSuffix(entry) else { continue }
        let link = normalized(folder + suffix)
        guard link.hasPrefix(tree + "/") else {
          throw LoadError(
            "its run path entry '\(entry)' climbs more than \(depthLimit) folders above it; the host cannot follow it safely"
          )
        }
        places.append((normalized(realFolder + suffix), link))
      }
      for library in elf.needed where !library.contains("/") && !isLoaded(library) {
        guard let place = places.first(where: { FileManager.default.fileExists(atPath: "\($0.real)/\(library)") }),
          linked.insert("\(place.link)/\(library)").inserted
        else { continue }
        guard opened.count < dependencyLimit else {
          throw LoadError("it needs over \(dependencyLimit) libraries of its own; the host follows at most that many")
        }
        let checked: PluginFile
        do {
          checked = try PluginFile.open("\(place.real)/\(library)")
        } catch {
          throw LoadError(
            "it needs \(place.real)/\(library), which the host refuses: \(error.reasons.joined(separator: "; "))")
        }
        opened.append(checked)
        try makeDirectories(place.link)
        try link(checked, as: "\(place.link)/\(library)")
        pending.append((try? ELFFile(fd: checked.descriptor, size: checked.size), place.real, place.link))
      }
    }
  }

  /// What follows `$ORIGIN` in a run-path entry that starts with it.
  private static func originSuffix(_ entry: String) -> String? {
    for prefix in ["$ORIGIN", "${ORIGIN}"] where entry.hasPrefix(prefix) {
      let rest = entry.dropFirst(prefix.count)
      if rest.isEmpty || rest.hasPrefix("/") { return String(rest) }
    }
    return nil
  }

  /// `path` with `.` and `..` folded away, as text.
  static func normalized(_ path: String) -> String {
    var parts: [Substring] = []
    for part in path.split(separator: "/") where part != "." {
      if part == ".." {
        _ = parts.popLast()
      } else {
        parts.append(part)
      }
    }
    return "/" + parts.joined(separator: "/")
  }

  /// Whether a library of that name is loaded in this process already (the
  /// host's own ViperKit and Swift runtime are).
  private static func isLoaded(_ name: String) -> Bool {
    dlopen(name, RTLD_NOLOAD | RTLD_LAZY) != nil
  }

  private static func link(_ file: PluginFile, as path: String) throws(LoadError) {
    guard symlink(file.loadPath, path) == 0 else {
      throw LoadError(
        "cannot make the link \(path) to load it from: \(String(cString: strerror(errno))); TMPDIR must name a directory you can write"
      )
    }
  }

  /// `mkdir -p` with mode 0700, with plain system calls: Foundation's
  /// `createDirectory(attributes:)` makes dynamic casts whose cost grows with
  /// every plugin loaded.
  private static func makeDirectories(_ path: String) throws(LoadError) {
    var made = ""
    for part in path.split(separator: "/") {
      made += "/" + part
      var info = stat()
      if lstat(made, &info) == 0, info.st_mode & S_IFMT == S_IFDIR { continue }
      guard mkdir(made, 0o700) == 0 else {
        throw LoadError(
          "cannot make the folder \(made) to load it from: \(String(cString: strerror(errno))); TMPDIR must name a directory you can write"
        )
      }
    }
  }

}

/// This process's private root for load trees: `vivarium-load-NS-PID-XXXXXX`
/// in the temporary directory, mode 0700, made on first use and removed at
/// exit.
private final class LoadRoot: Sendable {
  static let shared = LoadRoot()
  private static let prefix = "vivarium-load-"

  private let state = Mutex<(root: String?, count: Int)>((nil, 0))

  /// A new, empty tree in the root.
  func makeTree() throws(PluginLinks.LoadError) -> String {
    let result = state.withLock { state -> Result<String, PluginLinks.LoadError> in
      if state.root == nil {
        if PluginLinks.sweepsAbandonedTrees.load(ordering: .relaxed) { LoadRoot.removeAbandoned() }
        guard let made = LoadRoot.makeRoot() else {
          return .failure(
            .init(
              "cannot make a private folder to load plugins from in \(LoadRoot.base) (\(String(cString: strerror(errno)))); set TMPDIR to a directory you can write"
            ))
        }
        state.root = made
        // Removed when the process ends normally; otherwise by the next
        // process that loads plugins (removeAbandoned).
        atexit {
          guard let root = LoadRoot.shared.state.withLock({ $0.root }) else { return }
          try? FileManager.default.removeItem(atPath: root)
        }
      }
      state.count += 1
      return .success("\(state.root!)/\(state.count)")
    }
    return try result.get()
  }

  private static var base: String {
    let directory = NSTemporaryDirectory()
    return directory.hasSuffix("/") ? String(directory.dropLast()) : directory
  }

  /// The pid namespace this process is in: a pid means something only there,
  /// so a process judges only the roots made in its own (a container's first
  /// process shares /tmp with processes it cannot see).
  private static let namespace: String = {
    var info = stat()
    return stat("/proc/self/ns/pid", &info) == 0 ? String(info.st_ino) : "0"
  }()

  private static func makeRoot() -> String? {
    var template = Array("\(base)/\(prefix)\(namespace)-\(getpid())-XXXXXX".utf8CString)
    guard let made = mkdtemp(&template) else { return nil }
    return String(cString: made)
  }

  /// Removes the roots of this user's processes that have ended.
  static func removeAbandoned() {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: base)) ?? []
    for name in names where name.hasPrefix("\(prefix)\(namespace)-") {
      let fields = name.dropFirst(prefix.count).split(separator: "-")
      guard fields.count == 3, let pid = Int32(fields[1]), pid != getpid() else { continue }
      var info = stat()
      let path = "\(base)/\(name)"
      guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFDIR, info.st_uid == getuid(),
        kill(pid, 0) != 0, errno == ESRCH
      else { continue }
      try? FileManager.default.removeItem(atPath: path)
    }
  }
}
