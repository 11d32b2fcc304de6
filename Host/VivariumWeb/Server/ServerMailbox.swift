import Glibc
import Synchronization

/// What other threads ask of the I/O thread: the app's answers, its
/// messages and closes, and stopping.
enum ServerCommand: Sendable {
  /// The app's response to connection `id`'s request.
  case response(Int, HTTPResponse)
  /// The app took connection `id`'s WebSocket.
  case upgraded(Int)
  /// The app refused connection `id`'s WebSocket with this response.
  case upgradeRefused(Int, HTTPResponse)
  /// A frame the app sends on connection `id`, encoded.
  case send(Int, [UInt8])
  /// The app closes connection `id`'s WebSocket.
  case close(Int, WebSocketCloseCode, reason: String)
  /// The app sent connection `id` more than its limit of unsent bytes.
  case overflow(Int)
  /// Nothing but a wake: a connection may be read again.
  case wake
  /// The server stops.
  case stop
}

/// The commands waiting for the I/O thread, and the pipe that wakes it
/// from `poll`: anyone may post, only the I/O thread takes. Posting never
/// blocks (the pipe is nonblocking; a full pipe is a thread already due to wake).
final class ServerMailbox: Sendable {
  /// The commands not yet taken, and whether the I/O thread has ended
  /// (then the pipe is closed, and commands are dropped).
  private let state = Mutex<(commands: [ServerCommand], ended: Bool)>(([], false))
  /// The pipe's read end, which the I/O thread polls.
  let wakeRead: Int32
  /// The pipe's write end.
  private let wakeWrite: Int32

  /// A mailbox with a new pipe; nil when no pipe can be made.
  init?() {
    var fds: [Int32] = [0, 0]
    guard pipe(&fds) == 0 else { return nil }
    Socket.makeNonblocking(fds[0])
    Socket.makeNonblocking(fds[1])
    wakeRead = fds[0]
    wakeWrite = fds[1]
  }

  /// Adds `command` and wakes the I/O thread; nothing once it has ended.
  func post(_ command: ServerCommand) {
    state.withLock { state in
      guard !state.ended else { return }
      state.commands.append(command)
      // Under the lock, so the pipe cannot be closed meanwhile.
      var byte: UInt8 = 1
      _ = write(wakeWrite, &byte, 1)
    }
  }

  /// The commands posted since the last take, in order, with the pipe emptied.
  func take() -> [ServerCommand] {
    var buffer = [UInt8](repeating: 0, count: 64)
    while read(wakeRead, &buffer, buffer.count) > 0 {}
    return state.withLock { state in
      defer { state.commands = [] }
      return state.commands
    }
  }

  /// Drops every later command and closes the pipe: the I/O thread's last act.
  func end() {
    state.withLock { state in
      state.ended = true
      state.commands = []
      close(wakeRead)
      close(wakeWrite)
    }
  }
}
