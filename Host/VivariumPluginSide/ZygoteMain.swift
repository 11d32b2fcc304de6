import CVivariumSystem
import Dispatch
import Glibc
import VivariumLoading

/// The zygote's side (``PluginZygote``): `vivarium __zygote`, with its
/// socket to the host as descriptor 3. It must start no thread and touch no
/// dispatch queue before it forks, so that each fork is a clean copy: it
/// runs before anything else in `main` and uses only the C library.
package enum ZygoteMain {
  /// Whether `arguments` (without the executable) start the zygote.
  package static func isZygote(_ arguments: [String]) -> Bool { arguments.first == PluginProcessLaunch.zygoteCommand }

  /// Serves fork requests until the host closes the socket, in an empty
  /// network namespace of its own when `arguments` (without the
  /// executable) ask for one, which every fork inherits. Never returns.
  package static func run(_ arguments: [String]) -> Never {
    let parent = getppid()
    if vivarium_die_with_parent(parent) != 0 { exit(1) }
    let socket: Int32 = 3
    // While it has one thread: from here on this is the process 1 of a PID
    // namespace whose /proc shows each fork only itself, and whose every
    // process the kernel kills when this one dies (with the host, however
    // a plugin changes its own parent-death signal). Where user namespaces
    // are not offered, its forks keep the host's namespaces, and the filter
    // refuses their sockets.
    if arguments.contains(PluginProcessLaunch.ownNetworkArgument) { ProcessConfinement.isolateZygote(keeping: socket) }
    var buffer = [UInt8](repeating: 0, count: 9 + 4096)
    while true {
      reapChildren(socket)
      var entry = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
      guard poll(&entry, 1, 20) > 0 else { continue }
      var fds = [Int32](repeating: -1, count: Int(VIVARIUM_MAX_FDS))
      var count: Int32 = 0
      let received = buffer.withUnsafeMutableBytes { bytes in
        fds.withUnsafeMutableBufferPointer {
          vivarium_receive_fds(socket, bytes.baseAddress, bytes.count, $0.baseAddress, &count)
        }
      }
      if received == 0 || (received < 0 && errno != EINTR && errno != EAGAIN) { exit(0) }
      let given = Array(fds.prefix(Int(count)))
      guard received > 9, given.count == 3 else {
        given.forEach { close($0) }
        report(socket, kind: 1, EINVAL, 0)
        continue
      }
      let memory = buffer.withUnsafeBytes { Int(Int64(littleEndian: $0.loadUnaligned(as: Int64.self))) }
      let confined = buffer[8] & PluginProcessLaunch.confinedFlag != 0
      let path = String(decoding: buffer[9..<Int(received)], as: UTF8.self)
      let zygote = getpid()
      let pid = fork()
      if pid == 0 {
        becomePlugin(
          path: path, memory: memory, confined: confined, given: given, zygote: zygote)
      }
      let failure = errno
      given.forEach { close($0) }
      if pid > 0 {
        // With a pidfd, from which the host reads the pid in its own namespace.
        let pidfd = vivarium_pidfd_open(pid)
        report(socket, kind: 0, pid, 0, descriptor: pidfd)
        if pidfd >= 0 { close(pidfd) }
      } else {
        report(socket, kind: 1, failure, 0)
      }
    }
  }

  /// Reaps every ended child and reports its wait status.
  private static func reapChildren(_ socket: Int32) {
    var status: Int32 = 0
    while true {
      let pid = waitpid(-1, &status, WNOHANG)
      guard pid > 0 else { return }
      report(socket, kind: 2, pid, status)
    }
  }

  private static func report(_ socket: Int32, kind: UInt8, _ first: Int32, _ second: Int32, descriptor: Int32 = -1) {
    var message: [UInt8] = [kind]
    for value in [first, second] {
      let bits = UInt32(bitPattern: value)
      message += [
        UInt8(truncatingIfNeeded: bits), UInt8(truncatingIfNeeded: bits >> 8),
        UInt8(truncatingIfNeeded: bits >> 16), UInt8(truncatingIfNeeded: bits >> 24),
      ]
    }
    let descriptors = descriptor >= 0 ? [descriptor] : []
    _ = message.withUnsafeBytes { bytes in
      descriptors.withUnsafeBufferPointer {
        vivarium_send_fds(socket, bytes.baseAddress, bytes.count, $0.baseAddress, Int32($0.count), 1)
      }
    }
  }

  /// In the fork: names itself after its plugin (`viv:NAME`, `vivarium
  /// __plugin FILE`), moves into a user namespace of its own when confined
  /// (where its threads are counted apart from every other process's),
  /// puts the given descriptors where a plugin process has them (the
  /// plugin file as 4, the channel as 3, stderr as 1 and 2, /dev/null as
  /// 0), closes every other one, and serves the plugin.
  private static func becomePlugin(path: String, memory: Int, confined: Bool, given: [Int32], zygote: pid_t) -> Never {
    ProcessConfinement.name(
      plugin: path, arguments: [CommandLine.arguments.first ?? "vivarium", PluginProcessLaunch.pluginCommand, path])
    if confined { ProcessConfinement.enterUserNamespace() }
    let high = given.map { fcntl($0, F_DUPFD, 10) }
    let null = open("/dev/null", O_RDONLY)
    dup2(null, 0)
    dup2(high[2], 1)
    dup2(high[2], 2)
    dup2(high[1], PluginProcessLaunch.socketDescriptor)
    dup2(high[0], ChildChannel.fileDescriptor)
    vivarium_closefrom(5)
    if vivarium_die_with_parent(zygote) != 0 { _exit(1) }
    PluginServer.limitMemory(to: memory)
    PluginServer.serve(path: path, confined: confined)
  }
}
