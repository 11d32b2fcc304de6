import CVivariumSystem
import Foundation
import Glibc
import VivariumWire

/// The host's end of one plugin process: the socket it sends
/// ``HostMessage``s on, the inbox that the thread reading the process
/// (``PluginReader``) fills with what the process sent, and the process's
/// id. ``start(_:file:options:schedulePump:stalled:)`` makes one for each
/// start, and it is never reused: a new process gets a new connection, so
/// nothing of an earlier process's reaches the next.
@MainActor
final class PluginConnection {
  /// The process's id.
  let pid: pid_t
  /// The socket to the process; nil once it ended (``disconnect()``).
  private var channel: WireChannel<HostMessage>?
  /// What the process sent, as the thread reading it put it there.
  private let inbox: PluginInbox
  /// How long bytes the channel holds for the process may stay unread.
  private let responseLimit: Duration
  /// Called when they stayed unread longer: the process stopped reading.
  private let stalled: @MainActor () -> Void
  /// Calls ``stalled`` if bytes the channel holds for the process stay
  /// unread past the response limit (``watchOutgoing()``).
  private var outgoingWatch: Task<Void, Never>?

  private init(
    pid: pid_t, channel: WireChannel<HostMessage>, inbox: PluginInbox, responseLimit: Duration,
    stalled: @escaping @MainActor () -> Void
  ) {
    self.pid = pid
    self.channel = channel
    self.inbox = inbox
    self.responseLimit = responseLimit
    self.stalled = stalled
  }

  /// Why a process could not be started: the errno of the call that
  /// failed, read before anything else ran.
  struct StartFailure: Error {
    let code: Int32

    /// What the errno says.
    var reason: String { String(cString: strerror(code)) }
  }

  /// Starts a process for the plugin at `path` (its file open as `file`),
  /// forked by the zygote unless `options` say otherwise, and a thread that
  /// reads it for as long as it lives. `schedulePump` is called on that
  /// thread when what the process sent waits for the main actor and no
  /// pump is due yet; `stalled`, when the process leaves what the host
  /// sends it unread past the response limit. Throws when no process could
  /// be started.
  static func start(
    _ path: String, file: Int32, options: PluginProcessOptions, schedulePump: @escaping @Sendable () -> Void,
    stalled: @escaping @MainActor () -> Void
  ) async throws(StartFailure) -> PluginConnection {
    var pair: [Int32] = [0, 0]
    guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pair) == 0 else {
      throw StartFailure(code: errno)
    }
    var errors: [Int32] = [0, 0]
    guard vivarium_pipe_cloexec(&errors) == 0 else {
      let failure = StartFailure(code: errno)
      pair.forEach { close($0) }
      throw failure
    }
    var environment = ["SWIFT_BACKTRACE": "enable=no"]
    environment[PluginProcessLaunch.memoryVariable] = String(options.memoryLimit)
    if !options.confined { environment[PluginProcessLaunch.unconfinedVariable] = "1" }
    if !options.ownNetwork { environment[ProcessConfinement.sharedNetworkVariable] = "1" }
    // Numbered 10 and up, so that putting them at 1 to 4 in the child
    // cannot overwrite one another.
    let (errorsHigh, socketHigh, fileHigh) = (
      fcntl(errors[1], F_DUPFD_CLOEXEC, 10), fcntl(pair[1], F_DUPFD_CLOEXEC, 10), fcntl(file, F_DUPFD_CLOEXEC, 10)
    )
    close(pair[1])
    close(errors[1])
    defer { [errorsHigh, socketHigh, fileHigh].filter { $0 >= 0 }.forEach { close($0) } }
    let mapping: [(Int32, Int32)] = [
      (errorsHigh, 1), (errorsHigh, 2), (socketHigh, PluginProcessLaunch.socketDescriptor),
      (fileHigh, ChildChannel.fileDescriptor),
    ]
    let zygote = options.forks ? PluginZygote.shared(options.executable, ownNetwork: options.ownsNetwork) : nil
    let forked = await zygote?.fork(
      path: path, memoryLimit: options.memoryLimit, confined: options.confined,
      descriptors: [fileHigh, socketHigh, errorsHigh])
    _ = fcntl(pair[0], F_SETFL, fcntl(pair[0], F_GETFL) | O_NONBLOCK)
    let channel = WireChannel<HostMessage>(descriptor: pair[0], sending: .buffers)
    let inbox = PluginInbox(schedulePump: schedulePump)
    let stderr = errors[0]
    let reaper = forked == nil ? nil : zygote
    let arguments = [PluginProcessLaunch.pluginCommand, path]
    let (executable, variables) = (options.executable, environment)
    // Started (unless forked by the zygote) and read by one thread, which
    // lives as long as the process. The socket is closed with the channel,
    // when nothing can send on it.
    let spawned = ChildProcess.startWatched {
      if let forked { return .success(forked) }
      guard mapping.allSatisfy({ $0.0 >= 0 }) else {
        return .failure(ChildProcess.SpawnError("cannot duplicate its descriptors"))
      }
      return ChildProcess.spawn(executable, arguments, mapping, environment: variables)
    } watch: { pid in
      PluginReader.run(channel: channel, stderr: stderr, pid: pid, inbox: inbox, zygote: reaper)
    }
    guard case .success(let pid) = spawned else {
      let failure = StartFailure(code: errno)
      close(errors[0])
      throw failure
    }
    return PluginConnection(
      pid: pid, channel: channel, inbox: inbox, responseLimit: options.responseLimit, stalled: stalled)
  }

  /// Whether the process has not ended: the host can send to it.
  var isOpen: Bool { channel != nil }

  /// How many bytes sent wait for the process to read them.
  var waitingBytes: Int { channel?.waitingBytes ?? 0 }

  /// Sends `message` without waiting for the process to read it; false
  /// when it could not be (the process ended, or shut its end). Bytes the
  /// socket has no room for wait in the channel, written as the process
  /// makes room; left unread past the response limit, they make this
  /// connection call its `stalled`: the host never waits for a process to
  /// read, and does not keep writing for it forever.
  func send(_ message: HostMessage) -> Bool {
    guard let channel, channel.send(message) else { return false }
    watchOutgoing()
    return true
  }

  /// The oldest message (or news of the channel or the process) the
  /// process's reader put in the inbox and the host has not taken, and
  /// when it arrived; also after the process ended.
  func take() -> (item: PluginInbox.Item, arrival: ContinuousClock.Instant)? { inbox.take() }

  /// The process ended, or another replaces it: nothing is sent any more.
  func disconnect() {
    channel = nil
    outgoingWatch?.cancel()
    outgoingWatch = nil
  }

  /// When the channel holds bytes the process has not made room for, makes
  /// sure ``stalled`` is called if it has not within the response limit.
  private func watchOutgoing() {
    guard outgoingWatch == nil, let channel, let since = channel.pendingSince else { return }
    outgoingWatch = Task { @MainActor [weak self, responseLimit] in
      try? await Task.sleep(until: since + responseLimit, clock: .continuous)
      guard let self, !Task.isCancelled else { return }
      self.outgoingWatch = nil
      guard self.channel === channel, let still = channel.pendingSince else { return }
      guard still == since else { return self.watchOutgoing() }
      self.stalled()
    }
  }
}
