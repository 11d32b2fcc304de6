import CVivariumSystem
import Foundation
import Synchronization

/// A program running on a pseudo-terminal, as in a terminal window: the
/// test writes keys to it and reads everything it draws.
final class PseudoTerminal: Sendable {
  /// Why the program could not be started.
  struct Failure: Error, CustomStringConvertible {
    let description: String
  }

  let pid: pid_t
  private let controller: Int32
  /// The terminal's own end, kept open to read its settings after the program ends.
  let device: Int32
  private let output = Output()

  /// What the terminal received, filled by the reading thread.
  private final class Output: Sendable {
    let data = Mutex(Data())
  }

  /// Starts `executable` with `arguments` on a new `columns` × `rows` terminal.
  init(_ executable: String, _ arguments: [String], environment: [String: String], columns: Int, rows: Int) throws {
    var controller: Int32 = -1
    var device: Int32 = -1
    guard vivarium_openpty(&controller, &device, UInt16(columns), UInt16(rows)) == 0 else {
      throw Failure(description: "openpty failed: \(String(cString: strerror(errno)))")
    }
    self.controller = controller
    self.device = device
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    for target in Int32(0)...2 { posix_spawn_file_actions_adddup2(&actions, device, target) }
    _ = vivarium_spawn_add_closefrom(&actions, 3)
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    _ = vivarium_spawn_set_session(&attributes)
    let argv = ([executable] + arguments).map { strdup($0) } + [nil]
    let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
    defer { (argv + envp).forEach { free($0) } }
    var pid: pid_t = 0
    let status = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
    guard status == 0 else {
      throw Failure(description: "cannot start \(executable): \(String(cString: strerror(status)))")
    }
    self.pid = pid
    let output = self.output
    let reading = controller
    Thread {
      var buffer = [UInt8](repeating: 0, count: 65_536)
      while true {
        let count = read(reading, &buffer, buffer.count)
        if count > 0 {
          output.data.withLock { $0.append(contentsOf: buffer[0..<count]) }
        } else if count < 0, errno == EINTR {
          continue
        } else {
          break
        }
      }
    }.start()
  }

  /// Everything written to the terminal so far.
  var written: Data { output.data.withLock { $0 } }

  /// What was written, as text (invalid UTF-8 repaired).
  var text: String { String(decoding: written, as: UTF8.self) }

  /// Whether the terminal is in raw mode: no line editing, no echo.
  var isRaw: Bool { settings().c_lflag & tcflag_t(ICANON | ECHO) == 0 }

  /// Changes the terminal's size and tells the program, as a window does.
  func resize(columns: Int, rows: Int) {
    var size = winsize(ws_row: UInt16(rows), ws_col: UInt16(columns), ws_xpixel: 0, ws_ypixel: 0)
    _ = ioctl(controller, UInt(TIOCSWINSZ), &size)
    kill(pid, SIGWINCH)
  }

  /// Waits until the program is stopped (Ctrl-Z); false if it is not
  /// within `limit` seconds.
  func waitUntilStopped(limit: Double = 60) -> Bool {
    let deadline = Date().addingTimeInterval(limit)
    var status: Int32 = 0
    while Date() < deadline {
      if waitpid(pid, &status, WUNTRACED | WNOHANG) == pid, status & 0xFF == 0x7F { return true }
      usleep(20_000)
    }
    return false
  }

  /// Types `keys`.
  func send(_ keys: String) {
    let bytes = Array(keys.utf8)
    _ = bytes.withUnsafeBytes { write(controller, $0.baseAddress, $0.count) }
  }

  /// Waits until what was written contains `text` (true), or `limit`
  /// seconds pass (false): a limit that only ends a test that would hang.
  func waitFor(_ text: String, after start: Int = 0, limit: Double = 60) -> Bool {
    let needle = Data(text.utf8)
    let deadline = Date().addingTimeInterval(limit)
    while Date() < deadline {
      if output.data.withLock({ $0.count > start && $0[start...].range(of: needle) != nil }) { return true }
      usleep(20_000)
    }
    return false
  }

  /// Waits for the program to end (killing it after `limit` seconds);
  /// returns its wait status.
  func wait(limit: Double = 60) -> Int32 {
    let deadline = Date().addingTimeInterval(limit)
    var status: Int32 = 0
    while waitpid(pid, &status, WNOHANG) == 0 {
      if Date() > deadline {
        kill(pid, SIGKILL)
        waitpid(pid, &status, 0)
        break
      }
      usleep(20_000)
    }
    return status
  }

  /// The terminal's settings now.
  func settings() -> termios {
    var settings = termios()
    tcgetattr(device, &settings)
    return settings
  }

  deinit {
    close(controller)
    close(device)
  }
}
