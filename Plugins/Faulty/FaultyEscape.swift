import Foundation
import Glibc
import ViperKit

// `faulty:escape` tries, when it is built, what a hostile plugin would:
// read a file of the person's (`?read=PATH`), write one, run a program, make a process, open sockets, trace or signal its parent,
// raise its limits, make namespaces, use io_uring, read what the host's
// environment held, see the host's connections and other processes in
// /proc, rename itself and clear its parent-death signal; with `?then=`,
// make threads until refused, or block to outlive the host. Each attempt is a line: `exec: refused (EPERM)`, or
// `exec: ALLOWED`. In a plugin process, which confines itself before it
// loads the plugin (issue 30), every attempt is refused. In a process with
// no seccomp filter (`--in-process`: the host's own) it tries nothing and
// says so; and whatever an attempt achieves is undone at once (a child
// made exits, a tracee is let go, a descriptor is closed).

/// glibc's `syscall(2)`, which Swift does not import (it is variadic): on
/// x86-64 its integer arguments travel in the same registers either way.
@_silgen_name("syscall")
func rawSyscall(_ number: Int, _ a: Int, _ b: Int, _ c: Int, _ d: Int, _ e: Int) -> Int

/// One thing a hostile plugin tries, and how it ended.
struct EscapeAttempt: ViperEntity, Equatable {
  /// A stable name: `exec`, `fork`, `socket.inet`, ….
  let name: String
  /// The errno name it was refused with (`EPERM`), or nil when it was allowed.
  let refusal: String?

  /// Runs every attempt, in order; `secret` is the file it tries to read,
  /// `data` the host's data directory.
  static func all(reading secret: String, data: String, host: pid_t) -> [EscapeAttempt] {
    let parent = getppid()
    return [
      attempt("file.read") { closing(Int(open(secret, O_RDONLY | O_CLOEXEC))) },
      attempt("file.write") {
        // Beside the file it read: a folder of the person's.
        let path = (secret as NSString).deletingLastPathComponent + "/written-by-a-plugin-\(getpid())"
        let made = Int(open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600))
        if made >= 0 { unlink(path) }
        return closing(made)
      },
      attempt("parent.environ") { closing(Int(open("/proc/\(parent)/environ", O_RDONLY | O_CLOEXEC))) },
      attempt("parent.memory") { closing(Int(open("/proc/\(parent)/mem", O_RDONLY | O_CLOEXEC))) },
      attempt("exec") {
        var pid: pid_t = 0
        let argv: [UnsafeMutablePointer<CChar>?] = [strdup("/bin/true"), nil]
        defer { argv.forEach { free($0) } }
        return posix_spawn(&pid, "/bin/true", nil, nil, argv, environ)
      },
      attempt("fork") {
        let pid = rawSyscall(57, 0, 0, 0, 0, 0)  // fork
        if pid == 0 { _exit(0) }
        if pid > 0 { waitpid(pid_t(pid), nil, 0) }
        return errnoOf(pid)
      },
      attempt("socket.inet") { closing(Int(socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0))) },
      attempt("socket.unix") { closing(Int(socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0))) },
      attempt("ptrace.parent") {
        let attached = rawSyscall(101, 16, Int(parent), 0, 0, 0)  // ptrace(PTRACE_ATTACH)
        if attached == 0 { _ = rawSyscall(101, 17, Int(parent), 0, 0, 0) }  // PTRACE_DETACH
        return errnoOf(attached)
      },
      attempt("signal.parent") { errnoOf(Int(kill(parent, 0))) },
      attempt("limits.raise") {
        var limit = rlimit()
        getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit)
        limit.rlim_cur = limit.rlim_max
        limit.rlim_max = limit.rlim_max &+ 1
        return errnoOf(Int(setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit)))
      },
      attempt("namespace.user") { errnoOf(rawSyscall(272, 0x1000_0000, 0, 0, 0, 0)) },  // unshare(CLONE_NEWUSER)
      attempt("io_uring") { closing(rawSyscall(425, 8, 0, 0, 0, 0)) },  // io_uring_setup(8, NULL)
      attempt("ipc.shared-memory") { errnoOf(Int(shmget(IPC_PRIVATE, 4096, 0o600 | IPC_CREAT))) },
      attempt("dumpable") { errnoOf(rawSyscall(157, 4, 1, 0, 0, 0)) },  // prctl(PR_SET_DUMPABLE, 1)
      attempt("data.settings") { closing(Int(open(data + "/settings.json", O_RDONLY | O_CLOEXEC))) },
      attempt("data.storage") { closing(Int(open(data + "/storage/WalletPlugin.json", O_RDONLY | O_CLOEXEC))) },
      attempt("data.registry") { closing(Int(open(data + "/plugin-registry.cache", O_RDONLY | O_CLOEXEC))) },
    ] + moreFiles(beside: secret) + moreProcesses(parent: parent) + moreOfTheKernel()
      + moreOfItself(host: host == 0 ? parent : host)
  }

  static func attempt(_ name: String, _ body: () -> Int32) -> EscapeAttempt {
    let code = body()
    return EscapeAttempt(name: name, refusal: code == 0 ? nil : (errnoNames[code] ?? "errno \(code)"))
  }

  /// `CPU time: 3600 s`: the process's limit, as it reads it.
  static func cpuLimit() -> String {
    var limit = rlimit()
    getrlimit(__rlimit_resource_t(RLIMIT_CPU.rawValue), &limit)
    return limit.rlim_cur == rlim_t.max ? "CPU time: unlimited" : "CPU time: \(limit.rlim_cur) s"
  }

  /// The errno of a call that returned `result`: 0 when it succeeded.
  /// `network namespace: net:[INODE]`: which one the process is in.
  static func networkNamespace() -> String {
    let name = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/ns/net")) ?? "unknown"
    return "network namespace: \(name)"
  }

  static func errnoOf(_ result: Int) -> Int32 { result >= 0 ? 0 : errno }

  /// The errno of a call that returned descriptor `result`, closed at once.
  static func closing(_ result: Int) -> Int32 {
    if result >= 0 { close(Int32(result)) }
    return errnoOf(result)
  }

  /// `EPERM`, or `errno 12`.
  static func name(of code: Int32) -> String { errnoNames[code] ?? "errno \(code)" }

  private static let errnoNames: [Int32: String] = [
    EPERM: "EPERM", EACCES: "EACCES", ENOSYS: "ENOSYS", EINVAL: "EINVAL", EAGAIN: "EAGAIN", ENOENT: "ENOENT",
    ENOMEM: "ENOMEM", EFAULT: "EFAULT",
  ]

  /// How it ended, as a line says it: `refused (EPERM)`, `ALLOWED`, or, for
  /// a file that is not there (nothing to refuse: give its path), `not there (ENOENT)`.
  var outcome: String {
    switch refusal {
    case nil: "ALLOWED"
    case "ENOENT"?: "not there (ENOENT)"
    case let refusal?: "refused (\(refusal))"
    }
  }
}

/// Draws the attempts, and this process's confinement as the kernel says it.
final class EscapeView: ViperView {
  private let canvas: any Canvas
  let presenter: EscapePresenter

  init(canvas: any Canvas, presenter: EscapePresenter) {
    self.canvas = canvas
    self.presenter = presenter
  }

  func handle(_ event: ViewEvent) {}

  func display(_ attempts: [EscapeAttempt], status: [String], environment: [String]) {
    canvas.draw {
      ViewNode.heading("What a hostile plugin tries")
      if attempts.isEmpty { ViewNode.notice(.warning, "This process is not confined: nothing was tried.") }
      for attempt in attempts {
        ViewNode.text("\(attempt.name): \(attempt.outcome)")
      }
      for line in status { ViewNode.text(line, tone: .muted) }
      ViewNode.text("environment: \(environment.joined(separator: " "))", tone: .muted)
    }
  }
}

/// Makes the attempts once the module is attached.
final class EscapePresenter: ViperPresenter {
  weak var view: EscapeView?
  private let secret: String
  private let data: String
  private let host: pid_t
  private let then: String
  private let mark: String
  /// The threads `then=threads` made, held until the module is detached.
  private var threads: EscapeThreads?

  init(secret: String, data: String, host: pid_t = 0, then: String = "nothing", mark: String = "") {
    self.secret = secret
    self.data = data
    self.host = host
    self.then = then
    self.mark = mark
  }

  func lifecycle(_ event: LifecycleEvent) {
    if event == .detach { threads = nil }
    guard event == .attach else { return }
    if then == "linger" { EscapeAttempt.linger(marking: mark) }
    let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
    let confinement =
      status.split(separator: "\n").filter { line in
        ["NoNewPrivs:", "Seccomp:", "CapEff:", "CapBnd:"].contains { line.hasPrefix($0) }
      }.map { $0.replacingOccurrences(of: "\t", with: " ") } + [
        EscapeAttempt.cpuLimit(), EscapeAttempt.networkNamespace(),
      ]
    let names = ProcessInfo.processInfo.environment.keys.sorted()
    // Only where a seccomp filter (mode 2) confines the process.
    let filtered = confinement.contains { $0.hasPrefix("Seccomp:") && $0.hasSuffix("2") }
    let attempts = filtered ? EscapeAttempt.all(reading: secret, data: data, host: host) : []
    var after = [EscapeAttempt.processName()]
    if filtered && then == "threads" {
      let made = EscapeThreads()
      threads = made
      after.append(made.said)
    }
    view?.display(attempts, status: confinement + after, environment: names)
  }
}

/// Builds `faulty:escape`.
struct FaultyEscapeFactory: ModuleFactory {
  static let contract = Contract(
    urn: "faulty:escape",
    summary:
      "Tries what a hostile plugin would (read and write files, exec, fork, sockets, ptrace, signals, limits) and shows how each ended.",
    arguments: [
      .optional("read", .string, default: .string("/etc/passwd"), "A file to try to read."),
      .optional(
        "data", .string, default: .string("/root/.local/share/vivarium"),
        "A data directory whose settings, storage and registry cache it tries to read."),
      .optional("host", .int, default: .int(0), "The host's pid, whose connections it tries to read (0: its parent)."),
      .choice(
        "then", ["nothing", "threads", "linger"],
        "Then: nothing; make threads until refused and hold them until closed; or clear its parent-death signal and block, to outlive the host."
      ),
      .optional(
        "mark", .string, default: .string(""), "With then=linger, a file it writes whether it cleared its signal."),
    ])

  func build(_ context: ModuleContext) throws -> Module {
    let presenter = EscapePresenter(
      secret: context.arguments.string("read") ?? "/etc/passwd",
      data: context.arguments.string("data") ?? "/root/.local/share/vivarium",
      host: pid_t(truncatingIfNeeded: context.arguments.int("host") ?? 0),
      then: context.arguments.string("then") ?? "nothing", mark: context.arguments.string("mark") ?? "")
    let view = EscapeView(canvas: context.canvas, presenter: presenter)
    presenter.view = view
    return Module(view: view, presenter: presenter)
  }
}
