import CVivariumSystem
import Foundation
import Synchronization
import VivariumSupport

/// What mapping one plugin file needs of the file system: the file and the
/// libraries linked for it (open), and the folder its tree of links is in.
package struct PluginMapping: Sendable {
  /// The plugin file's descriptor, then its libraries'.
  package let files: [Int32]
  /// This process's folder of link trees (one per file it loads).
  package let loadRoot: String
}

/// How a process that runs plugin code (a plugin process, a probe)
/// confines itself, once, after it has made what it needs to load the
/// plugin and before the plugin's first instruction runs (issue 30; see
/// docs/what-a-plugin-can-do.md): its environment scrubbed to what a plugin needs, then
/// ``vivarium_confine(_:)`` (no new privileges, not dumpable, no
/// capabilities, limits, a seccomp filter) and ``vivarium_landlock(_:_:_:)``
/// (files: only reading and mapping the plugin, its libraries and the
/// system's; no TCP; signals and abstract sockets scoped to itself).
package enum ProcessConfinement {
  /// The most descriptors a confined process may have open.
  static let openFiles: Int32 = 256
  /// The most CPU time a confined process may use, in seconds: an hour of
  /// work, which no plugin doing its job comes near; then the kernel ends
  /// it, and the host shows it as crashed, with Restart.
  static let cpuSeconds: Int32 = 3600
  /// What a plugin keeps of the environment it was started with: its
  /// language and time zone, and whether Swift's backtracer runs. Nothing
  /// else (tokens, `SSH_AUTH_SOCK`, the host's paths) reaches it.
  static let keptVariables: Set = ["LANG", "LANGUAGE", "LC_ALL", "LC_CTYPE", "LC_MESSAGES", "TZ", "SWIFT_BACKTRACE"]
  /// What any Swift plugin reads: the dynamic loader's cache and the
  /// system's libraries, time zones and locales, and `/proc`. All of
  /// `/proc`, not `/proc/self`: libdispatch reads `/proc/TID/stat` of each
  /// of its worker threads and crashes when it cannot, and a thread's
  /// entry is not beneath its process's. Landlock's own ptrace rule keeps
  /// another process's private entries (`environ`, `mem`, `maps`) closed;
  /// what every user may read of another process (`cmdline`, `stat`) is
  /// readable here too (docs/what-a-plugin-can-do.md).
  static let systemReadable = [
    "/lib", "/lib64", "/usr/lib", "/usr/lib64", "/usr/local/lib", "/etc/ld.so.cache", "/etc/localtime",
    "/usr/share/zoneinfo", "/usr/share/locale", "/usr/share/i18n", "/proc", "/dev/urandom", "/dev/random",
  ]

  /// A folder every plugin process may write in, which the person names
  /// in the host's environment: for tests of plugins that leave marks.
  package static let writableVariable = "VIVARIUM_SANDBOX_WRITABLE"
  /// The folder this host's children get as ``writableVariable``, besides
  /// its own environment's: set by a test run.
  package static let writableForChildren = Mutex<String?>(nil)

  private static let confined = Atomic<Bool>(false)
  /// `O_PATH` (GNU; Swift's Glibc does not show it): a descriptor naming a
  /// file or folder for a Landlock rule, without opening it for reading.
  private static let pathOnly: Int32 = 0o1000_0000

  /// Confines this process for the plugin `mapping` describes, with
  /// `readable` folders too; the second call does nothing. A process that
  /// cannot be confined says why on stderr and exits with status 70: no
  /// plugin code runs unconfined. With `reportingRefusals` (`vivarium
  /// check`), what the sandbox refuses is recorded for ``takeRefusals()``.
  package static func confine(for mapping: PluginMapping, readable: [String] = [], reportingRefusals: Bool = false) {
    guard !confined.exchange(true, ordering: .relaxed) else { return }
    let writable = ProcessInfo.processInfo.environment[writableVariable].flatMap { $0.isEmpty ? nil : $0 }
    scrubEnvironment()
    guard vivarium_confine(openFiles, cpuSeconds, reportingRefusals ? 1 : 0) >= 0 else {
      refuse("no new privileges or the system call filter")
    }
    var rules: [(descriptor: Int32, kind: Int32, owned: Bool)] = mapping.files.map {
      ($0, VIVARIUM_LANDLOCK_READ, false)
    }
    func add(_ path: String, _ kind: Int32) {
      let descriptor = open(path, pathOnly | O_CLOEXEC)
      if descriptor >= 0 { rules.append((descriptor, kind, true)) }
    }
    add(mapping.loadRoot, VIVARIUM_LANDLOCK_TREE)
    add("/dev/null", VIVARIUM_LANDLOCK_DEVICE)
    for path in systemReadable + toolchainFolders() + readable { add(path, VIVARIUM_LANDLOCK_READ) }
    if let writable { add(writable, VIVARIUM_LANDLOCK_WRITE) }
    let landlock = vivarium_landlock(rules.map(\.descriptor), rules.map(\.kind), Int32(rules.count))
    let error = errno
    for rule in rules where rule.owned { close(rule.descriptor) }
    guard landlock >= 0 else {
      errno = error
      refuse("Landlock")
    }
  }

  /// The variable that leaves a confined plugin process in the host's
  /// network namespace (`1`): for the benchmark's timing of the namespace
  /// on its own; nothing else sets it.
  package static let sharedNetworkVariable = "VIVARIUM_PLUGIN_SHARED_NETWORK"

  /// Moves this process, while it still has one thread, into an empty
  /// network namespace of its own (``vivarium_isolate_network()``), where
  /// the kernel offers user namespaces; whether it did. Where it does not,
  /// the process keeps the host's namespace, and the filter's refusal of
  /// sockets is what keeps it off the network.
  @discardableResult
  package static func isolateNetwork() -> Bool {
    vivarium_isolate_network() == 0
  }

  /// The folder holding the file open as `descriptor`, and the `lib`
  /// folder beside it (where `$ORIGIN/../lib` run paths lead): where the
  /// libraries of each file a probe is handed are, kept readable.
  package static func foldersAround(descriptor: Int32) -> [String] {
    guard let path = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(descriptor)") else {
      return []
    }
    let folder = PathName.parent(path)
    return [folder, PathName.parent(folder) + "/lib"]
  }

  /// The folders of this executable and of the Swift runtime it runs on,
  /// whose libraries a plugin links.
  private static func toolchainFolders() -> [String] {
    var folders: [String] = []
    if let executable = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
      folders.append(PathName.parent(executable))
    }
    let maps = (try? String(contentsOfFile: "/proc/self/maps", encoding: .utf8)) ?? ""
    for line in maps.split(separator: "\n") where line.hasSuffix("/libswiftCore.so") {
      if let path = line.split(separator: " ").last { folders.append(PathName.parent(String(path))) }
    }
    return folders
  }

  private static func refuse(_ what: String) -> Never {
    let reason = String(cString: strerror(errno))
    FileHandle.standardError.write(
      Data("vivarium: cannot confine the plugin's process (\(what): \(reason)); not loading it\n".utf8))
    exit(70)
  }

  /// Clears every variable but ``keptVariables``.
  private static func scrubEnvironment() {
    let kept = ProcessInfo.processInfo.environment.filter { keptVariables.contains($0.key) }
    clearenv()
    for (name, value) in kept { setenv(name, value, 1) }
  }
}

/// What this kernel offers of what confining a plugin process needs.
package struct SandboxSupport: Equatable, Sendable {
  /// The Landlock ABI it offers; 0 for none.
  package var landlockABI: Int
  /// Whether it filters system calls with seccomp-bpf.
  package var seccompFilters: Bool

  /// What the running kernel offers.
  package static var current: SandboxSupport {
    SandboxSupport(landlockABI: Int(vivarium_landlock_abi()), seccompFilters: vivarium_seccomp_available() != 0)
  }

  /// What is missing for plugin processes to be confined, each said so that
  /// a person knows what their kernel lacks; empty when nothing is.
  package var missing: [String] {
    var missing: [String] = []
    if landlockABI < 1 {
      missing.append(
        "Landlock (Linux 5.13 and later, enabled with lsm=landlock): without it a plugin reads what you can")
    }
    if !seccompFilters {
      missing.append("seccomp filters (CONFIG_SECCOMP_FILTER): without them a plugin runs programs and opens sockets")
    }
    return missing
  }
}
