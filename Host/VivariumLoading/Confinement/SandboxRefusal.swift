import CVivariumSystem
import Foundation

/// Something a plugin tried that the sandbox refused, as `vivarium check`
/// reports it: what it was (the call, the path), and what a plugin does
/// instead. Recorded in a check process (``ProcessConfinement/confine(for:readable:reportingRefusals:)``).
package struct SandboxRefusal: Hashable, Sendable {
  /// The system call's number (x86-64).
  package let number: Int32
  /// The errno it got: `EPERM`, `EACCES`.
  package let error: Int32
  /// The path it named, when it named one.
  package let path: String?
  /// Its first arguments.
  package let arguments: [Int]

  /// Every refusal recorded since the last call, oldest first, and how
  /// many more were recorded than kept.
  package static func take() -> (refusals: [SandboxRefusal], dropped: Int) {
    let capacity = Int(VIVARIUM_REFUSAL_SLOTS)
    var raw = [vivarium_refusal](repeating: vivarium_refusal(), count: capacity)
    let recorded = Int(raw.withUnsafeMutableBufferPointer { vivarium_take_refusals($0.baseAddress, Int32(capacity)) })
    let refusals = raw.prefix(min(recorded, capacity)).compactMap { entry -> SandboxRefusal? in
      // The system log's socket (AF_UNIX, SOCK_DGRAM), which the C library
      // opens for libdispatch's own messages: not what the plugin did.
      if entry.number == 41, entry.arguments.0 == 1, entry.arguments.1 & 0xF == 2 { return nil }
      var entry = entry
      let path = withUnsafeBytes(of: &entry.path) { bytes in
        String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
      }
      return SandboxRefusal(
        number: entry.number, error: entry.error, path: path.isEmpty ? nil : path,
        arguments: [entry.arguments.0, entry.arguments.1, entry.arguments.2])
    }
    return (refusals, max(0, recorded - capacity))
  }

  /// What it tried, and what to do instead: one sentence.
  package var description: String {
    let refused = "refused (\(String(cString: strerror(error))))"
    let named = path.map { " \($0)" } ?? ""
    switch Self.kinds[number] {
    case .file(var verb)?:
      // open and openat: writing or making, by their flags (O_WRONLY, O_RDWR, O_CREAT, O_TRUNC).
      let flags = number == 2 ? arguments[1] : number == 257 ? arguments[2] : 0
      if flags & 0o1103 != 0 { verb = "write" }
      return
        "tried to \(verb)\(named): \(refused); a plugin reads only its own file and libraries, and writes nowhere: keep data in the storage service"
    case .program?:
      return
        "tried to run a program\(named): \(refused); a plugin runs no program: do the work in the plugin, or ask a service"
    case .process?:
      return "tried to make a process (\(name)): \(refused); a plugin makes threads and tasks, never processes"
    case .network?:
      return
        "tried to \(number == 41 || number == 53 ? "open \(Self.families[arguments[0]] ?? "a socket of family \(arguments[0])")" : "use a socket") (\(name)): \(refused); reach the network through the host's http service, with the host declared (static var hosts) and granted"
    case .otherProcess?:
      return
        "tried to reach another process (\(name)): \(refused); a plugin reaches only the host, through its services"
    case .kernel? where number == 157 && (arguments[0] == 1 || arguments[0] == 35):
      return
        "tried to change how the host sees its process (prctl \(arguments[0] == 1 ? "PR_SET_PDEATHSIG" : "PR_SET_MM")): \(refused); a plugin process is named after its plugin and ends with the host"
    case .kernel? where number == 157:
      return
        "tried to undo its confinement (prctl \(arguments[0] == 4 ? "PR_SET_DUMPABLE" : "PR_SET_PTRACER")): \(refused); a plugin stays not dumpable and untraceable"
    case .memory?:
      return
        "tried to make memory it would share (\(name)): \(refused); a plugin's memory is its own, within its limit (--plugin-memory)"
    case .kernel?, nil:
      return "made the system call \(name): \(refused); no plugin needs it"
    }
  }

  /// The call's name, or its number.
  package var name: String { Self.names[number] ?? "system call \(number)" }

  private enum Kind {
    case file(String)
    case program, process, network, otherProcess, memory, kernel
  }

  /// The refused calls a plugin most often makes by mistake, by number (x86-64).
  private static let table: [(Int32, String, Kind)] = [
    (2, "open", .file("open")), (257, "openat", .file("open")), (85, "creat", .file("create")),
    (83, "mkdir", .file("make the folder")), (258, "mkdirat", .file("make the folder")),
    (84, "rmdir", .file("remove the folder")), (87, "unlink", .file("remove")), (263, "unlinkat", .file("remove")),
    (82, "rename", .file("move")), (264, "renameat", .file("move")), (316, "renameat2", .file("move")),
    (86, "link", .file("link")), (265, "linkat", .file("link")), (88, "symlink", .file("make the link")),
    (266, "symlinkat", .file("make the link")), (133, "mknod", .file("make")), (259, "mknodat", .file("make")),
    (76, "truncate", .file("truncate")), (59, "execve", .program), (322, "execveat", .program),
    (57, "fork", .process), (58, "vfork", .process), (56, "clone", .process),
    (41, "socket", .network), (53, "socketpair", .network), (42, "connect", .network), (49, "bind", .network),
    (50, "listen", .network), (43, "accept", .network), (288, "accept4", .network),
    (101, "ptrace", .otherProcess), (310, "process_vm_readv", .otherProcess),
    (311, "process_vm_writev", .otherProcess), (62, "kill", .otherProcess), (200, "tkill", .otherProcess),
    (234, "tgkill", .otherProcess), (434, "pidfd_open", .otherProcess), (165, "mount", .kernel),
    (161, "chroot", .kernel), (272, "unshare", .kernel), (308, "setns", .kernel), (425, "io_uring_setup", .kernel),
    (321, "bpf", .kernel), (298, "perf_event_open", .kernel), (250, "keyctl", .kernel),
    (313, "finit_module", .kernel), (160, "setrlimit", .kernel), (302, "prlimit64", .kernel), (157, "prctl", .kernel),
    (29, "shmget", .kernel), (68, "msgget", .kernel), (64, "semget", .kernel), (323, "userfaultfd", .kernel),
    (9, "mmap", .memory), (319, "memfd_create", .memory), (447, "memfd_secret", .memory),
  ]
  /// Socket families, by number.
  private static let families = [
    1: "a Unix socket", 2: "an IPv4 socket", 10: "an IPv6 socket", 16: "a netlink socket", 17: "a raw packet socket",
  ]
  private static let names = Dictionary(table.map { ($0.0, $0.1) }, uniquingKeysWith: { first, _ in first })
  private static let kinds = Dictionary(table.map { ($0.0, $0.2) }, uniquingKeysWith: { first, _ in first })
}
