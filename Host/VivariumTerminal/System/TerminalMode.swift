import CVivariumSystem
import Glibc

/// The terminal in full-screen mode: raw input (every key as bytes, no echo,
/// Ctrl-C and Ctrl-Z as keys), the alternate screen, the cursor hidden,
/// bracketed paste, and xterm SGR mouse reporting when asked for. Whatever
/// happens it is put back as it was: ``leave()`` on the way out, and the
/// terminal guard (in C) when the process dies of a fatal signal or calls
/// `exit`.
package final class TerminalMode {
  /// The terminal's descriptor (the app's output; input is the same terminal).
  package let descriptor: Int32
  /// Whether mouse reporting is on.
  package let mouse: Bool
  private let saved: termios
  private var active = false

  /// Bytes that leave full-screen mode, in the reverse order of ``enterBytes``.
  static let leaveBytes = "\u{1B}[?1006l\u{1B}[?1000l\u{1B}[?2004l\u{1B}[0m\u{1B}[?25h\u{1B}[?1049l"

  /// What enters full-screen mode: the alternate screen, the cursor hidden,
  /// bracketed paste, and the mouse when `mouse`.
  static func enterBytes(mouse: Bool) -> String {
    "\u{1B}[?1049h\u{1B}[?25l\u{1B}[?2004h" + (mouse ? "\u{1B}[?1000h\u{1B}[?1006h" : "")
  }

  /// Why full-screen mode could not start.
  package struct Failure: Error, CustomStringConvertible {
    /// What went wrong, for a person.
    package let description: String
  }

  /// Enters full-screen mode on the terminal at `descriptor`.
  package init(descriptor: Int32, mouse: Bool) throws(Failure) {
    var settings = termios()
    guard tcgetattr(descriptor, &settings) == 0 else {
      throw Failure(description: "the terminal's settings cannot be read (\(String(cString: strerror(errno))))")
    }
    self.descriptor = descriptor
    self.mouse = mouse
    saved = settings
    let leave = Array(TerminalMode.leaveBytes.utf8)
    var copy = saved
    leave.withUnsafeBufferPointer { bytes in
      bytes.withMemoryRebound(to: CChar.self) {
        _ = vivarium_terminal_guard_set(descriptor, &copy, $0.baseAddress, $0.count)
      }
    }
    enter()
  }

  /// Enters full-screen mode again, after a suspend (SIGCONT) or when the
  /// terminal's settings may have been changed under the app.
  package func enter() {
    var raw = saved
    // No echo, no line editing, no signals from keys, no output processing;
    // reads return each byte (VMIN 1, VTIME 0).
    cfmakeraw(&raw)
    tcsetattr(descriptor, TCSADRAIN, &raw)
    write(TerminalMode.enterBytes(mouse: mouse))
    active = true
  }

  /// Leaves full-screen mode: the terminal as it was before.
  package func leave() {
    guard active else { return }
    active = false
    write(TerminalMode.leaveBytes)
    var settings = saved
    tcsetattr(descriptor, TCSADRAIN, &settings)
  }

  /// Leaves full-screen mode for good: the guard no longer touches the terminal.
  package func close() {
    leave()
    vivarium_terminal_guard_clear()
  }

  /// Leaves full-screen mode, stops the process as Ctrl-Z does in a shell,
  /// and enters full-screen mode again once the shell continues it (`fg`).
  package func suspend() {
    leave()
    vivarium_suspend_self()
    enter()
  }

  /// The terminal's size in columns and rows, or nil if it cannot say.
  package func size() -> (width: Int, height: Int)? {
    var size = winsize()
    guard ioctl(descriptor, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0, size.ws_row > 0 else { return nil }
    return (Int(size.ws_col), Int(size.ws_row))
  }

  /// Writes `bytes` whole to the terminal.
  package func write(_ bytes: [UInt8]) {
    bytes.withUnsafeBytes { buffer in
      var offset = 0
      while offset < buffer.count {
        let written = Glibc.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
        if written > 0 {
          offset += written
        } else if written < 0, errno == EINTR || errno == EAGAIN {
          continue
        } else {
          return
        }
      }
    }
  }

  private func write(_ text: String) { write(Array(text.utf8)) }

  /// Whether mouse reporting suits the terminal named by `TERM`: xterm SGR
  /// reporting is understood by xterm and every terminal that follows it;
  /// not by the Linux console or a dumb terminal, where it stays off.
  package static func supportsMouse(term: String?) -> Bool {
    guard let term, !term.isEmpty else { return false }
    return !["dumb", "linux", "vt100", "vt102", "vt220", "cons25", "ansi"].contains(term)
  }
}

extension TerminalMode {
  /// Puts the terminal back from any thread, even while the main thread is
  /// stuck (a module that hangs): the last resort before `_exit`.
  package static func restoreNow() {
    vivarium_terminal_guard_restore()
  }
}
