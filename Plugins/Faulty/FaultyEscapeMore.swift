import Foundation
import Glibc

// The rest of `faulty:escape`'s attempts (FaultyEscape.swift): file tricks
// beside a file of the person's, the other processes, and the kernel.
extension EscapeAttempt {
  /// Changing, moving and linking the person's file, making things in its
  /// folder, and the system's secrets.
  static func moreFiles(beside secret: String) -> [EscapeAttempt] {
    let folder = (secret as NSString).deletingLastPathComponent + "/"
    let name = "by-a-plugin-\(getpid())"
    return [
      attempt("file.truncate") { errnoOf(Int(truncate(secret, 0))) },
      attempt("file.unlink") { errnoOf(Int(unlink(secret))) },
      attempt("file.rename") { errnoOf(Int(rename(secret, folder + name))) },
      attempt("file.symlink") { undoing(Int(symlink(secret, folder + name)), folder + name) },
      attempt("file.hardlink") { undoing(Int(link(secret, folder + name)), folder + name) },
      attempt("file.mkdir") {
        let made = Int(mkdir(folder + name, 0o700))
        if made == 0 { rmdir(folder + name) }
        return errnoOf(made)
      },
      attempt("file.fifo") { undoing(Int(mkfifo(folder + name, 0o600)), folder + name) },
      attempt("file.shadow") { closing(Int(open("/etc/shadow", O_RDONLY | O_CLOEXEC))) },
      attempt("init.memory") { closing(Int(open("/proc/1/mem", O_RDONLY | O_CLOEXEC))) },
      attempt("init.environ") { closing(Int(open("/proc/1/environ", O_RDONLY | O_CLOEXEC))) },
      attempt("dlopen.elsewhere") {
        // A library beside the person's file (the test puts one there): not
        // one the plugin was loaded with; where there is none, the person's
        // file itself, loaded as a library.
        var status = stat()
        let library = stat(folder + "libescape.so", &status) == 0 ? folder + "libescape.so" : secret
        guard let handle = dlopen(library, RTLD_NOW | RTLD_LOCAL) else {
          let said = dlerror().map { String(cString: $0) } ?? ""
          return said.contains("Permission denied") ? EACCES : said.contains("No such file") ? ENOENT : EINVAL
        }
        dlclose(handle)
        return 0
      },
    ]
  }

  /// Other ways to make a process, and to reach the host, the zygote and
  /// the first process.
  static func moreProcesses(parent: pid_t) -> [EscapeAttempt] {
    [
      attempt("clone.process") {
        let pid = rawSyscall(56, Int(SIGCHLD), 0, 0, 0, 0)  // clone(SIGCHLD): a process, not a thread
        if pid == 0 { _exit(0) }
        if pid > 0 { waitpid(pid_t(pid), nil, 0) }
        return errnoOf(pid)
      },
      attempt("clone3") { errnoOf(rawSyscall(435, 0, 0, 0, 0, 0)) },
      attempt("execveat") { errnoOf(rawSyscall(322, -1, 0, 0, 0, 0x1000)) },  // execveat(-1, …, AT_EMPTY_PATH)
      attempt("signal.init") { errnoOf(Int(kill(1, 0))) },
      attempt("signal.thread-of-parent") { errnoOf(rawSyscall(234, Int(parent), Int(parent), 0, 0, 0)) },  // tgkill
      attempt("memory.parent") { errnoOf(rawSyscall(310, Int(parent), 0, 0, 0, 0)) },  // process_vm_readv
      attempt("pidfd.parent") { closing(rawSyscall(434, Int(parent), 0, 0, 0, 0)) },  // pidfd_open
      attempt("ptrace.traceme") { errnoOf(rawSyscall(101, 0, 0, 0, 0, 0)) },  // ptrace(PTRACE_TRACEME)
      attempt("exec.direct") { errnoOf(Int(execv("/bin/true", [strdup("/bin/true"), nil]))) },
      attempt("fork.bomb") {
        // A hundred forks: the first one to make a process is one too many.
        for _ in 0..<100 {
          let pid = rawSyscall(57, 0, 0, 0, 0, 0)  // fork
          if pid == 0 { _exit(0) }
          if pid > 0 {
            waitpid(pid_t(pid), nil, 0)
            return 0
          }
        }
        return errno
      },
      attempt("ptracer.anyone") { errnoOf(rawSyscall(157, 0x5961_6d61, -1, 0, 0, 0)) },  // prctl(PR_SET_PTRACER, ANY)
    ]
  }

  /// The network, mounts, namespaces, and the kernel's other doors.
  static func moreOfTheKernel() -> [EscapeAttempt] {
    [
      attempt("socket.udp") { closing(Int(socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0))) },
      attempt("socket.inet6") { closing(Int(socket(AF_INET6, Int32(SOCK_STREAM.rawValue), 0))) },
      attempt("socket.raw") { closing(Int(socket(AF_INET, Int32(SOCK_RAW.rawValue), 1))) },
      attempt("socket.netlink") { closing(Int(socket(16, Int32(SOCK_RAW.rawValue), 0))) },  // AF_NETLINK
      attempt("socket.path") {
        // An ssh agent's or docker.sock's kind: a Unix socket at a path,
        // asked of the descriptor the channel to the host has.
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array("/run/docker.sock".utf8)) }
        return withUnsafePointer(to: &address) {
          errnoOf(rawSyscall(42, 3, Int(bitPattern: $0), MemoryLayout<sockaddr_un>.size, 0, 0))  // connect
        }
      },
      attempt("socketpair") {
        var pair: [Int32] = [-1, -1]
        let made = Int(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &pair))
        if made == 0 { pair.forEach { close($0) } }
        return errnoOf(made)
      },
      attempt("mount") { errnoOf(rawSyscall(165, 0, 0, 0, 0, 0)) },
      attempt("chroot") { errnoOf(rawSyscall(161, 0, 0, 0, 0, 0)) },
      attempt("setns") { errnoOf(rawSyscall(308, -1, 0, 0, 0, 0)) },
      attempt("bpf") { errnoOf(rawSyscall(321, 0, 0, 0, 0, 0)) },
      attempt("perf-event") { closing(rawSyscall(298, 0, 0, -1, -1, 0)) },
      attempt("keyring") { errnoOf(rawSyscall(250, 0, 0, 0, 0, 0)) },  // keyctl
      attempt("kernel.module") { errnoOf(rawSyscall(313, -1, 0, 0, 0, 0)) },  // finit_module
      attempt("userfaultfd") { closing(rawSyscall(323, 0, 0, 0, 0, 0)) },
      attempt("limits.prlimit") {
        var limit = rlimit(rlim_cur: 1 << 20, rlim_max: 1 << 20)
        return withUnsafeMutablePointer(to: &limit) {
          errnoOf(rawSyscall(302, 0, Int(RLIMIT_NOFILE.rawValue), Int(bitPattern: $0), 0, 0))  // prlimit64
        }
      },
      attempt("ipc.message-queue") { errnoOf(Int(msgget(IPC_PRIVATE, 0o600 | IPC_CREAT))) },
      attempt("seccomp.off") { errnoOf(rawSyscall(157, 22, 0, 0, 0, 0)) },  // prctl(PR_SET_SECCOMP, DISABLED)
    ] + pastTheMemoryLimit()
  }

  /// Memory that the memory limit (RLIMIT_DATA, private writable memory)
  /// does not count: shared anonymous mappings and a file in memory, each
  /// touched whole when made (64 MiB), then given back.
  static func pastTheMemoryLimit() -> [EscapeAttempt] {
    let size = 64 << 20
    func touched(_ address: UnsafeMutableRawPointer?) -> Int32 {
      guard let address, address != MAP_FAILED else { return errno }
      memset(address, 1, size)
      munmap(address, size)
      return 0
    }
    return [
      attempt("memory.shared") {
        touched(mmap(nil, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0))
      },
      attempt("memory.shared-validate") {
        touched(mmap(nil, size, PROT_READ | PROT_WRITE, 0x03 | MAP_ANONYMOUS, -1, 0))  // MAP_SHARED_VALIDATE
      },
      attempt("memory.memfd") {
        // memfd_create
        let fd = "escape".withCString { Int32(truncatingIfNeeded: rawSyscall(319, Int(bitPattern: $0), 0, 0, 0, 0)) }
        guard fd >= 0 else { return errno }
        defer { close(fd) }
        guard ftruncate(fd, off_t(size)) == 0 else { return errno }
        return touched(mmap(nil, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0))
      },
    ]
  }

  /// The errno of a call that made `path`, removed at once if it did.
  private static func undoing(_ result: Int, _ path: String) -> Int32 {
    if result == 0 { unlink(path) }
    return errnoOf(result)
  }
}

extension EscapeAttempt {
  /// What `/proc` shows it of other processes, what `ps` would say it is,
  /// and whether it dies with its host.
  static func moreOfItself(host: pid_t) -> [EscapeAttempt] {
    [
      attempt("proc.others") {
        // Any process but itself listed in /proc: ENOENT when none is.
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        let others = entries.compactMap { Int32($0) }.filter { $0 != getpid() }
        return others.isEmpty ? ENOENT : 0
      },
      attempt("proc.host") { closing(Int(open("/proc/\(host)/net/tcp", O_RDONLY | O_CLOEXEC))) },
      attempt("name.prctl") {
        // prctl(PR_SET_NAME): what `ps -o comm` and top show.
        "vivarium".withCString { errnoOf(rawSyscall(157, 15, Int(bitPattern: $0), 0, 0, 0)) }
      },
      attempt("name.comm") { closing(Int(open("/proc/self/comm", O_WRONLY | O_CLOEXEC))) },
      attempt("name.mm") {
        // prctl(PR_SET_MM, PR_SET_MM_MAP_SIZE): the door to PR_SET_MM_MAP,
        // which moves the command line `ps -f` shows, with no privilege.
        var size: UInt32 = 0
        return withUnsafeMutablePointer(to: &size) { errnoOf(rawSyscall(157, 35, 15, Int(bitPattern: $0), 0, 0)) }
      },
      attempt("pdeathsig") { errnoOf(rawSyscall(157, 1, 0, 0, 0, 0)) },  // prctl(PR_SET_PDEATHSIG, 0)
    ] + commandLineAttempts()
  }

  /// Writing over the command line `ps -f` shows, where the kernel reads
  /// it (`/proc/self/stat`'s arg_start and arg_end): the bytes themselves,
  /// and the page under them made writable, unmapped, replaced or
  /// discarded. None of these traps if it is refused.
  static func commandLineAttempts() -> [EscapeAttempt] {
    let fields =
      ((try? String(contentsOfFile: "/proc/self/stat", encoding: .utf8)) ?? "")
      .split(separator: ")").last?.split(separator: " ") ?? []
    // Field 48 of the whole line is the 46th after the name's ')'.
    guard fields.count > 46, let start = Int(fields[45]), let end = Int(fields[46]), end > start else {
      return [attempt("name.argv") { ENOENT }]
    }
    let page = start & ~(Int(sysconf(Int32(_SC_PAGESIZE))) - 1)
    let fake = Array("vivarium run --plugins /home/you/plugins\0".utf8.prefix(end - start))
    return [
      attempt("name.argv") {
        // The kernel writing there for it: a read from a pipe into those
        // bytes, which honours the page's protection (EFAULT) and traps not.
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { return errno }
        defer { ends.forEach { close($0) } }
        _ = fake.withUnsafeBytes { write(ends[1], $0.baseAddress, $0.count) }
        return errnoOf(read(ends[0], UnsafeMutableRawPointer(bitPattern: start), fake.count))
      },
      attempt("name.argv.mem") { closing(Int(open("/proc/self/mem", O_RDWR | O_CLOEXEC))) },
      attempt("name.argv.mprotect") {
        errnoOf(Int(mprotect(UnsafeMutableRawPointer(bitPattern: page), 1, PROT_READ | PROT_WRITE)))
      },
      attempt("name.argv.discard") {
        errnoOf(Int(madvise(UnsafeMutableRawPointer(bitPattern: page), 1, MADV_DONTNEED)))
      },
      attempt("name.argv.replace") {
        let made = mmap(
          UnsafeMutableRawPointer(bitPattern: page), 1, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED,
          -1, 0)
        return made == MAP_FAILED ? errno : 0
      },
      attempt("name.argv.unmap") { errnoOf(Int(munmap(UnsafeMutableRawPointer(bitPattern: page), 1))) },
    ]
  }

  /// `comm: viv:Faulty`: the name the kernel gives this process.
  static func processName() -> String {
    let name = (try? String(contentsOfFile: "/proc/self/comm", encoding: .utf8)) ?? "unknown\n"
    return "comm: " + name.dropLast()
  }

  /// Clears its parent-death signal, writes whether it could to `mark`,
  /// and blocks its main thread for good: a process that would outlive
  /// its host, were nothing else to end it.
  static func linger(marking mark: String) -> Never {
    let cleared = attempt("pdeathsig") { errnoOf(rawSyscall(157, 1, 0, 0, 0, 0)) }
    let made = open(mark + ".part", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
    if made >= 0 {
      let line = Array("pdeathsig: \(cleared.outcome)\n".utf8)
      _ = line.withUnsafeBytes { write(made, $0.baseAddress, $0.count) }
      close(made)
      rename(mark + ".part", mark)
    }
    while true { sleep(1) }
  }
}

/// Threads made until the kernel refuses one (at most 4,096), each with a
/// small stack and waiting on a pipe; let go when this is released.
final class EscapeThreads {
  private var release: [Int32] = [-1, -1]
  private var threads: [pthread_t] = []
  /// `threads: 250 made, then EAGAIN`.
  private(set) var said = ""

  init() {
    guard pipe(&release) == 0 else {
      said = "threads: no pipe"
      return
    }
    var attributes = pthread_attr_t()
    pthread_attr_init(&attributes)
    pthread_attr_setstacksize(&attributes, 64 << 10)
    defer { pthread_attr_destroy(&attributes) }
    var refusal: Int32 = 0
    while threads.count < 4096 {
      var thread = pthread_t()
      let reader = UnsafeMutableRawPointer(bitPattern: Int(release[0]) + 1)
      refusal = pthread_create(
        &thread, &attributes,
        { argument in
          var byte: UInt8 = 0
          _ = read(Int32(Int(bitPattern: argument) - 1), &byte, 1)
          return nil
        }, reader)
      if refusal != 0 { break }
      threads.append(thread)
    }
    said = "threads: \(threads.count) made" + (refusal == 0 ? "" : ", then \(EscapeAttempt.name(of: refusal))")
  }

  deinit {
    close(release[1])
    for thread in threads { pthread_join(thread, nil) }
    close(release[0])
  }
}
