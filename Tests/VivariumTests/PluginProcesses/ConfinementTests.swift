import Foundation
import Testing
import ViperKitHosting

@testable import VivariumLoading

/// A plugin process confines itself before it loads its plugin (issue 30):
/// `faulty:escape` tries, from a plugin's own code, what a hostile plugin
/// would, and the kernel refuses each attempt.
@Suite("Plugin processes confined")
@MainActor
struct ConfinementTests {
  /// The attempts `faulty:escape` makes, by their stable names: files,
  /// other processes, the kernel's doors. Each must be refused, but for
  /// ``hidden``.
  static let attempts: Set<String> = Set([
    "file.read", "file.write", "file.truncate", "file.unlink", "file.rename", "file.symlink", "file.hardlink",
    "file.mkdir", "file.fifo", "file.shadow", "exec", "execveat", "fork", "clone.process", "clone3", "ptrace.parent",
    "ptrace.traceme", "ptracer.anyone",
    "signal.parent", "signal.init", "signal.thread-of-parent", "memory.parent", "pidfd.parent", "dumpable",
    "socket.inet", "socket.inet6", "socket.udp", "socket.raw", "socket.netlink", "socket.unix", "socketpair",
    "limits.raise", "limits.prlimit", "namespace.user", "setns", "mount", "chroot", "io_uring", "bpf", "perf-event",
    "keyring", "kernel.module", "userfaultfd", "ipc.shared-memory", "ipc.message-queue", "seccomp.off",
    "dlopen.elsewhere", "exec.direct", "fork.bomb", "socket.path", "data.settings", "data.storage",
    "data.registry", "name.prctl", "name.comm", "name.mm", "pdeathsig", "memory.shared", "memory.shared-validate",
    "memory.memfd", "name.argv", "name.argv.mem",
  ]).union(sealsMemory ? sealedPage : [])
  /// What `mseal` (Linux 6.10) refuses on the page of a plugin's command
  /// line; on an older kernel the page is read-only but not sealed.
  static let sealedPage: Set<String> = [
    "name.argv.mprotect", "name.argv.discard", "name.argv.replace", "name.argv.unmap",
  ]
  /// Whether this kernel has `mseal`: Linux 6.10 or later.
  static let sealsMemory: Bool = {
    var name = utsname()
    uname(&name)
    let release = withUnsafeBytes(of: &name.release) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
    let parts = release.split(whereSeparator: { !$0.isNumber }).prefix(2).compactMap { Int($0) }
    return parts.count == 2 && (parts[0], parts[1]) >= (6, 10)
  }()
  /// The attempts on other processes' entries in `/proc`: in the zygote's
  /// PID namespace, whose `/proc` shows a plugin process only itself, they
  /// are not there at all (the parent and process 1 are the zygote).
  static let hidden: Set = [
    "parent.environ", "parent.memory", "init.memory", "init.environ", "proc.others", "proc.host",
  ]

  @Test func everyEscapeAPluginTriesIsRefusedWithAnErrno() async throws {
    let host = try await FaultyHost(plugins: ["Faulty"])
    // A file of the person's, such as a key in ~/.ssh: outside the folder
    // the tests' plugins may write in (TemporaryDirectory.root).
    let home = NSTemporaryDirectory() + "/vivarium-confinement-\(getpid())"
    try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: home) }
    let key = home + "/id_ed25519"
    try Data("the person's key".utf8).write(to: URL(fileURLWithPath: key))
    // A data directory where the person's is (~/.local/share/vivarium), with
    // the settings, another plugin's storage and the registry cache.
    let data = home + "/.local/share/vivarium"
    try FileManager.default.createDirectory(atPath: data + "/storage", withIntermediateDirectories: true)
    for file in ["settings.json", "storage/WalletPlugin.json", "plugin-registry.cache"] {
      try Data("{}".utf8).write(to: URL(fileURLWithPath: data + "/" + file))
    }
    // A library in a folder of the person's, for the plugin to try loading.
    try FileManager.default.copyItem(
      atPath: BuildProducts.directory + "/libFeed.so", toPath: home + "/libescape.so")
    try await host.runtime.open(
      "faulty:escape", arguments: [("read", key), ("data", data), ("host", "\(getpid())")])
    let shown = try await host.waitForText("environment:")
    // In /proc it sees no other process: not the host's connections
    // (its own network namespace is empty, the host's is not), nor its
    // siblings, nor the zygote; and it cannot rename itself.
    for name in Self.hidden { #expect(shown.contains("\(name): not there (ENOENT)"), "\(shown)") }
    #expect(shown.contains("comm: viv:Faulty"), "\(shown)")
    // Landlock refuses files with EACCES; the rest is the filter's EPERM.
    #expect(shown.contains("file.read: refused (EACCES)"), "\(shown)")
    #expect(shown.contains("dlopen.elsewhere: refused (EACCES)"), "\(shown)")
    #expect(shown.contains("data.storage: refused (EACCES)"), "\(shown)")
    // Every attempt made, and each refused with an errno.
    let refused = Set(
      shown.split(separator: "\n").compactMap { line in
        line.firstRange(of: ": refused (E").map { String(line[..<$0.lowerBound]) }
      })
    #expect(refused == Self.attempts, "missing: \(Self.attempts.subtracting(refused)); shown: \(shown)")
    #expect(!shown.contains("ALLOWED"), "\(shown)")
    // The kernel's own account of the process.
    #expect(shown.contains("NoNewPrivs: 1"), "\(shown)")
    #expect(shown.contains("Seccomp: 2"), "\(shown)")
    #expect(shown.contains("CapEff: 0000000000000000"), "\(shown)")
    #expect(shown.contains("CPU time: \(ProcessConfinement.cpuSeconds) s"), "\(shown)")
    // An empty network namespace of its own (this kernel offers user namespaces).
    let hostNetwork = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/ns/net")
    #expect(shown.contains("network namespace: net:["), "\(shown)")
    #expect(!shown.contains("network namespace: \(hostNetwork)"), "\(shown)")
    // Only the variables a plugin needs: the test run's own (PATH, HOME) are gone.
    let line = try #require(shown.split(separator: "\n").first { $0.contains("environment:") })
    let names = line.split(separator: " ").dropFirst().map(String.init)
    #expect(Set(names).isSubset(of: ProcessConfinement.keptVariables), "\(names)")
    // The module it did all that from still works, and so does its process,
    // which ps shows named after its plugin.
    let process = try #require(host.process(named: "libFaulty.so"))
    #expect(process.isRunning)
    let comm = try String(contentsOfFile: "/proc/\(process.pid)/comm", encoding: .utf8)
    #expect(comm == "viv:Faulty\n")
    let commandLine = try String(contentsOfFile: "/proc/\(process.pid)/cmdline", encoding: .utf8)
      .split(separator: "\0").map(String.init)
    #expect(commandLine == [BuildProducts.vivarium, "__plugin", process.path], "\(commandLine)")
  }

  /// A plugin making threads until the kernel refuses one gets fewer than
  /// its bound (its own user namespace, where the kernel counts them apart
  /// from every other process's), and the host and another plugin's
  /// process still start while it holds them. Run by an ordinary user with
  /// a process limit the plugin alone could exhaust: the kernel exempts
  /// root from that limit, so a test run as root runs the host as nobody.
  @Test func aPluginMakingThreadsUntilRefusedIsBoundedAndOthersStillWork() throws {
    let plugins = try TemporaryDirectory()
    let data = try TemporaryDirectory()
    for name in ["Faulty", "ItemsList"] {
      try FileManager.default.createSymbolicLink(
        atPath: plugins.path + "/lib\(name).so", withDestinationPath: BuildProducts.directory + "/lib\(name).so")
    }
    let script = try plugins.write("script", Data("open items:list\n".utf8))
    try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: plugins.path)
    var command = [
      BuildProducts.vivarium, "run", "--plugins", plugins.path, "--data", data.path, "--start",
      "faulty:escape?then=threads", "--script", script,
    ]
    if geteuid() == 0 {
      let nobody: UInt32 = 65534
      #expect(chown(data.path, nobody, nobody) == 0)
      command =
        [
          "/usr/bin/setpriv", "--reuid=\(nobody)", "--regid=\(nobody)", "--clear-groups", "--", "/usr/bin/prlimit",
          "--nproc=\(2 * ProcessConfinement.tasks)", "--",
        ] + command
    }
    let result = try ProcessRunner.run(command[0], Array(command.dropFirst()), killAfter: 120)
    #expect(result.status == 0, "\(result.stderr)")
    let line = result.stdout.split(separator: "\n").first { $0.contains("threads: ") }
    let made = line.flatMap { Int($0.split(separator: "threads: ").last?.split(separator: " ").first ?? "") }
    #expect(line?.contains("made, then EAGAIN") == true, "\(result.stdout)")
    #expect((100..<Int(ProcessConfinement.tasks)).contains(made ?? 0), "\(line ?? "no threads line")")
    // Opened after, in a process of its own, while the threads are held.
    #expect(result.stdout.contains("> open items:list"), "\(result.stdout)")
    #expect(!result.stdout.contains("crashed") && !result.stderr.contains("could not start"), "\(result.stderr)")
  }

  /// `--no-sandbox` leaves plugin processes unconfined, and says so.
  @Test func noSandboxLeavesThePluginProcessUnconfinedAndSaysSo() throws {
    let plugins = try TemporaryDirectory()
    try FileManager.default.createSymbolicLink(
      atPath: plugins.path + "/libFaulty.so", withDestinationPath: BuildProducts.directory + "/libFaulty.so")
    let free = try ProcessRunner.vivarium(["render", "faulty:escape", "--plugins", plugins.path, "--no-sandbox"])
    #expect(free.status == 0, "\(free.stderr)")
    #expect(free.stderr.contains("--no-sandbox"), "\(free.stderr)")
    #expect(free.stdout.contains("Seccomp: 0") && free.stdout.contains("not confined"), "\(free.stdout)")
    let confined = try ProcessRunner.vivarium(["render", "faulty:escape", "--plugins", plugins.path])
    #expect(confined.status == 0, "\(confined.stderr)")
    #expect(confined.stdout.contains("Seccomp: 2") && confined.stderr.isEmpty, "\(confined.stderr)")
  }

  /// `vivarium check` runs each check in the same sandbox, and names what
  /// the plugin tried that it refused: the path, the program, the call;
  /// each once, under its own check, which --only and --skip select like
  /// any other.
  @Test func checkNamesWhatThePluginTriedThatTheSandboxRefused() throws {
    struct Report: Decodable {
      struct Plugin: Decodable { let results: [CheckResult] }
      let plugins: [Plugin]
    }
    func results(_ options: [String]) throws -> (results: [CheckResult], status: Int32) {
      let result = try ProcessRunner.vivarium(
        ["check", BuildProducts.directory + "/libFaulty.so", "--strictness", "3", "--json"] + options)
      let report = try JSONDecoder().decode(Report.self, from: Data(result.stdout.utf8))
      return (report.plugins.flatMap(\.results), result.status)
    }
    let (alone, status) = try results(["--only", ConformanceCheck.sandboxRefused])
    #expect(status == 1)
    // Selected alone, only its findings are reported.
    let others = alone.filter { $0.check != ConformanceCheck.sandboxRefused && $0.status != .skipped }
    #expect(others.isEmpty, "\(others)")
    let refused = alone.filter { $0.check == ConformanceCheck.sandboxRefused }
    #expect(refused.allSatisfy { $0.status == .failed })
    let said = refused.map(\.message)
    #expect(Set(said).count == said.count, "each refusal once: \(said)")
    // Only faulty:escape tried anything: faulty:demo gets no finding.
    #expect(!refused.contains { $0.module == "faulty:demo" }, "\(refused)")
    #expect(said.contains { $0.contains("/etc/passwd") && $0.contains("open") }, "\(said)")
    #expect(said.contains { $0.contains("write /etc/written-by-a-plugin") }, "\(said)")
    #expect(said.contains { $0.contains("run a program /bin/true") }, "\(said)")
    #expect(said.contains { $0.contains("an IPv4 socket") && $0.contains("http service") }, "\(said)")
    #expect(said.contains { $0.contains("ptrace") }, "\(said)")
    // Skipped, it reports nothing, though the checks that ran met refusals.
    let (skipped, _) = try results([
      "--only", "presentation.first-cycle", "--only", ConformanceCheck.sandboxRefused, "--skip",
      ConformanceCheck.sandboxRefused,
    ])
    #expect(skipped.contains { $0.check == "presentation.first-cycle" && $0.status == .passed }, "\(skipped)")
    #expect(
      skipped.filter { $0.check == ConformanceCheck.sandboxRefused }.map(\.status) == [.skipped], "\(skipped)")
  }

  /// A kernel that lacks what confinement needs is named for what it
  /// lacks, each its own sentence; `run` and `render` then refuse to start
  /// plugin processes unless `--no-sandbox`.
  @Test func whatAKernelLacksForConfinementIsNamed() {
    #expect(SandboxSupport(landlockABI: 7, seccompFilters: true).missing.isEmpty)
    let noLandlock = SandboxSupport(landlockABI: 0, seccompFilters: true).missing
    #expect(noLandlock.count == 1 && noLandlock[0].contains("Landlock"), "\(noLandlock)")
    let neither = SandboxSupport(landlockABI: 0, seccompFilters: false).missing
    #expect(neither.count == 2 && neither[1].contains("seccomp"), "\(neither)")
  }

  /// On such a kernel the probes that run plugin code for `plugins`,
  /// `routes` and `manifest` refuse too: the file is refused naming what
  /// the kernel lacks, and none of its code runs.
  @Test func aProbeOnAKernelThatCannotConfineItRefusesTheFileNamingWhatIsMissing() throws {
    let probe = PluginProbe(
      executable: BuildProducts.vivarium, support: SandboxSupport(landlockABI: 0, seccompFilters: true))
    let results = probe.scan([try PluginFile.open(BuildProducts.directory + "/libFaulty.so")])
    guard case .failure(let rejection)? = results.first else {
      Issue.record("probed on a kernel that cannot confine the probe: \(results)")
      return
    }
    #expect(rejection.kind == .sandboxMissing)
    #expect(rejection.reasons.joined().contains("Landlock"), "\(rejection.reasons)")
  }
}
