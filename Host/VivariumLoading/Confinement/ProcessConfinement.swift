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
  /// The most threads a confined process may have (its own thread
  /// included), in a user namespace of its own, where the kernel counts
  /// them per namespace (`RLIMIT_NPROC`): a plugin making threads until it
  /// cannot leaves your own processes able to start.
  package static let tasks: Int32 = 256
  /// What a plugin keeps of the environment it was started with: its
  /// language and time zone, and whether Swift's backtracer runs. Nothing
  /// else (tokens, `SSH_AUTH_SOCK`, the host's paths) reaches it.
  static let keptVariables: Set = ["LANG", "LANGUAGE", "LC_ALL", "LC_CTYPE", "LC_MESSAGES", "TZ", "SWIFT_BACKTRACE"]
  /// What any Swift plugin reads: the dynamic loader's cache and the
  /// system's libraries, time zones and locales, and `/proc`. All of
  /// `/proc`, not `/proc/self`: libdispatch reads `/proc/TID/stat` of each
  /// of its worker threads and crashes when it cannot, and a thread's
  /// entry is not beneath its process's. A process forked by the zygote
  /// has a `/proc` of its PID namespace's own, where it sees no process but
  /// itself (``isolateZygote(keeping:)``); Landlock's own ptrace rule keeps
  /// another process's private entries (`environ`, `mem`, `maps`) closed
  /// wherever it does not (docs/what-a-plugin-can-do.md).
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
  /// Whether this process is in a user namespace it made (or the zygote it
  /// was forked from made for it): where ``tasks`` is its own bound.
  private static let ownsUserNamespace = Atomic<Bool>(false)
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
    let tasks = ownsUserNamespace.load(ordering: .relaxed) ? tasks : 0
    guard vivarium_confine(openFiles, cpuSeconds, tasks, reportingRefusals ? 1 : 0) >= 0 else {
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
    // Each folder once: a probe handed 125 files of one folder named it 125
    // times, and a descriptor for each left none under ``openFiles`` for the
    // Landlock ruleset, so the probe could not confine itself.
    var named: Set<String> = []
    for path in systemReadable + toolchainFolders() + readable where named.insert(path).inserted {
      add(path, VIVARIUM_LANDLOCK_READ)
    }
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
    let isolated = vivarium_isolate_network() == 0
    if isolated { ownsUserNamespace.store(true, ordering: .relaxed) }
    return isolated
  }

  /// The zygote's namespaces (``vivarium_isolate_zygote(_:)``), made while
  /// it has one thread: this process forks the process 1 of a PID
  /// namespace with a `/proc` of its own, which returns (true) and serves
  /// as the zygote, and the kernel kills its forks when it dies; this
  /// process waits for it, having closed `socket`, and never returns.
  /// False where no PID namespace can be made: then only the network is
  /// isolated, where user namespaces are offered.
  @discardableResult
  package static func isolateZygote(keeping socket: Int32) -> Bool {
    let isolated = vivarium_isolate_zygote(socket)
    if isolated >= 0 { ownsUserNamespace.store(true, ordering: .relaxed) }
    return isolated == 1
  }

  /// Moves a process forked by the zygote into a user namespace of its own,
  /// while it has one thread: where ``tasks`` bounds its threads alone.
  @discardableResult
  package static func enterUserNamespace() -> Bool {
    let entered = vivarium_enter_user_namespace() == 0
    ownsUserNamespace.store(entered, ordering: .relaxed)
    return entered
  }

  /// What `ps` shows of a plugin process, set before it is confined (the
  /// filter refuses changing either): its name, `viv:` and the plugin
  /// file's name without `lib` and `.so` (`viv:Weather`, at most 15
  /// bytes), and, when `arguments` are given, its command line.
  package static func name(plugin path: String, arguments: [String] = []) {
    var plugin = Substring(PathName.lastComponent(path))
    if plugin.hasPrefix("lib") { plugin = plugin.dropFirst(3) }
    if plugin.hasSuffix(".so") { plugin = plugin.dropLast(3) }
    let name = "viv:" + plugin
    var copies = arguments.map { strdup($0) }
    defer { copies.forEach { free($0) } }
    _ = copies.withUnsafeMutableBufferPointer { buffer in
      buffer.withMemoryRebound(to: UnsafePointer<CChar>?.self) {
        vivarium_name_process(name, $0.baseAddress, Int32($0.count))
      }
    }
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
