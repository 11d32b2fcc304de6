import Foundation
import Glibc
import VivariumSupport

/// Where the host looks for plugins, and the files it finds there.
package struct PluginDiscovery: Sendable {
  /// Where the directories came from, in order of precedence.
  package enum Source: String, Sendable, Codable {
    /// `--plugins DIR`, repeatable.
    case commandLine = "command line"
    /// `VIVARIUM_PLUGIN_PATH`, colon-separated.
    case environment = "VIVARIUM_PLUGIN_PATH"
    /// The plugins built with this host: the directory holding its executable.
    /// Shared libraries that do not export the plugin entry are passed over
    /// there, since it is a build folder that also holds other libraries.
    case bundled = "bundled plugins"
  }

  /// The directories to scan, in order.
  package let directories: [String]
  /// Where they came from.
  package let source: Source

  /// Chooses directories: the command line's if any, else the environment's,
  /// else the bundled plugins next to `executable`.
  package init(commandLine: [String], environment: [String: String], executable: String) {
    if !commandLine.isEmpty {
      directories = commandLine
      source = .commandLine
    } else if let path = environment["VIVARIUM_PLUGIN_PATH"], !path.isEmpty {
      // Empty entries are kept, to be refused: in a search path they mean
      // the current directory.
      directories = path.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
      source = .environment
    } else {
      directories = [PathName.parent(executable)]
      source = .bundled
    }
  }

  /// Scans every directory and loads each plugin file with `loader`, in
  /// directory order then file-name order. Every `.so` file gets an outcome;
  /// so does every directory that cannot be scanned.
  package func load(with loader: PluginLoader) -> [PluginOutcome] {
    load { paths, _ in loader.loadAll(paths) }
  }

  /// Scans every directory as ``load(with:)`` does, but hosts each plugin
  /// file in a process of its own (``PluginSupervisor``), all started at
  /// once: nothing of the plugins is loaded into this process, and the host
  /// goes on while they load.
  @MainActor
  package func load(hosting options: PluginProcessOptions) async -> [PluginOutcome] {
    let plan = plan()
    let started = await PluginSupervisor.startAll(plan.batches.flatMap { $0 }, options: options)
    return plan.outcomes(loaded: started)
  }

  /// Scans every directory as ``load(with:)`` does, with `scanner`: a
  /// plugin that `registry` knows, or that a probe scanned, is not loaded
  /// until one of its modules is built (``PluginScanner``).
  package func scan(with scanner: PluginScanner, registry: inout PluginRegistry) -> [PluginOutcome] {
    load { scanner.scanAll($0, registry: &registry, directories: $1) }
  }

  private func load(_ loadAll: ([String], DirectoryChecks) -> [PluginOutcome]) -> [PluginOutcome] {
    let plan = plan()
    return plan.outcomes(loaded: plan.batches.flatMap { loadAll($0, plan.checks) })
  }

  /// What scanning the directories found: each file's place in the
  /// outcomes, in directory order then file-name order, refused (a
  /// directory that cannot be scanned, a file seen before) or to load; and
  /// the files to load, a batch per directory.
  private struct Plan {
    enum Entry {
      case refused(Rejection)
      case load
    }
    var entries: [Entry] = []
    var batches: [[String]] = []
    let checks = DirectoryChecks()

    /// The outcomes, with `loaded` (one per file to load, in order) in the places of the files loaded.
    func outcomes(loaded: [PluginOutcome]) -> [PluginOutcome] {
      var loaded = loaded.makeIterator()
      return entries.compactMap { entry in
        switch entry {
        case .refused(let rejection): .rejected(rejection)
        case .load: loaded.next()
        }
      }
    }
  }

  private func plan() -> Plan {
    var plan = Plan()
    var seen: [FileIdentity: String] = [:]
    for directory in directories {
      let files: [String]
      do {
        files = try candidates(in: directory)
      } catch {
        plan.entries.append(.refused(error))
        continue
      }
      var unique: [String] = []
      for file in files {
        if let identity = FileIdentity(file, plan.checks) {
          if let first = seen[identity] {
            plan.entries.append(
              .refused(Rejection(file, .duplicate, "it is the same file as \(first), which is loaded already")))
            continue
          }
          seen[identity] = file
        }
        unique.append(file)
        plan.entries.append(.load)
      }
      plan.batches.append(unique)
    }
    return plan
  }

  /// The `.so` files of `directory`; a file given instead of a directory is
  /// taken as the one plugin to load.
  private func candidates(in directory: String) throws(Rejection) -> [String] {
    if source == .environment, !directory.hasPrefix("/") {
      let shown = directory.isEmpty ? "an empty entry" : "'\(directory)'"
      throw Rejection(
        directory, .relativePath,
        "\(shown) in VIVARIUM_PLUGIN_PATH is not an absolute path, so it would load whatever plugins are in the directory you run vivarium from; use absolute paths only"
      )
    }
    var isDirectory: ObjCBool = false
    if FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), !isDirectory.boolValue {
      return [directory]
    }
    guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue else {
      throw Rejection(
        directory, .missingDirectory,
        "there is no directory or file '\(directory)' (from the \(source.rawValue)); give an existing plugin directory or .so file"
      )
    }
    if let real = DirectoryChecks.realPath(directory), let problem = FilePermissions.problem(directoriesFrom: real) {
      throw Rejection(directory, .unsafePermissions, problem)
    }
    let names: [String]
    do {
      names = try FileManager.default.contentsOfDirectory(atPath: directory)
    } catch {
      throw Rejection(directory, .unreadable, "cannot list the directory: \(error.localizedDescription)")
    }
    let folder = directory.hasSuffix("/") ? directory : directory + "/"
    let files = names.filter { $0.hasSuffix(".so") }.sorted().map { folder + $0 }
    // The bundled folder is a build folder: its other libraries are not
    // plugins, but a file that is not even a library gets its row.
    return source == .bundled ? files.filter { !PluginLoader.isOtherLibrary($0) } : files
  }
}

/// Device and inode: the same file reached through two paths.
private struct FileIdentity: Hashable {
  let device: UInt64
  let inode: UInt64
  /// The identity of the file `path` leads to, from the `lstat` the scan
  /// makes anyway unless `path` is a link.
  init?(_ path: String, _ checks: DirectoryChecks) {
    guard var info = checks.linkStatus(of: path) else { return nil }
    if info.st_mode & S_IFMT == S_IFLNK, stat(path, &info) != 0 { return nil }
    device = UInt64(info.st_dev)
    inode = UInt64(info.st_ino)
  }
}
