import Foundation
import Synchronization
import VivariumTerminal

/// Runs a ``TerminalApp`` on a real terminal: reads keys on a thread of its
/// own, turns signals into events (resize, suspend, continue, terminate),
/// redraws when modules' work draws, and writes each frame as the
/// difference from the one before.
@MainActor
package final class AppLoop {
  enum Event {
    /// Bytes are waiting in ``Input``.
    case input
    case signal(Int32)
    case screenChanged
    case tick
    case end
  }

  private let app: TerminalApp
  private let terminal: TerminalMode
  private let writer: FrameWriter
  private let stream: AsyncStream<Event>
  private let continuation: AsyncStream<Event>.Continuation
  private var parser = KeyParser()
  private let input = Input()
  private var previous: Grid?
  private var redrawPending = false
  private var timer: Task<Void, Never>?
  private var timerDue: Double?

  /// How long a lone Esc waits for the rest of a sequence, in seconds.
  nonisolated static let escapeWait = 0.05
  /// How long the main thread has to end after SIGTERM before the terminal
  /// is put back from the signal thread and the process ends.
  nonisolated static let terminateGrace = 2.0

  /// A loop drawing `app` on `terminal`, in colour or not.
  package init(app: TerminalApp, terminal: TerminalMode, colour: Bool) {
    self.app = app
    self.terminal = terminal
    writer = FrameWriter(colour: colour)
    (stream, continuation) = AsyncStream.makeStream(of: Event.self)
  }

  /// Runs until the person quits, the input ends or a terminating signal
  /// comes; returns the exit status (0, or 128 + the signal).
  package func run(input: Int32) async -> Int32 {
    let continuation = self.continuation
    let quitting = Quitting()
    _ = SignalPipe.start([SIGWINCH, SIGTERM, SIGINT, SIGHUP, SIGTSTP, SIGCONT]) { signal in
      continuation.yield(.signal(signal))
      guard [SIGTERM, SIGINT, SIGHUP].contains(signal) else { return }
      // The main thread may be stuck in a module: never leave the terminal raw.
      DispatchQueue.global().asyncAfter(deadline: .now() + AppLoop.terminateGrace) {
        guard !quitting.done else { return }
        TerminalMode.restoreNow()
        _exit(128 + signal)
      }
    }
    let waiting = self.input
    Thread {
      var buffer = [UInt8](repeating: 0, count: 65_536)
      while true {
        let count = read(input, &buffer, buffer.count)
        if count > 0 {
          // One event for however many reads come before the loop takes
          // them: a burst is handled, and drawn, once.
          if waiting.add(buffer[0..<count]) { continuation.yield(.input) }
        } else if count < 0, errno == EINTR || errno == EAGAIN {
          continue
        } else {
          continuation.yield(.end)
          return
        }
      }
    }.start()
    app.runtime.onScreenChanged = { [weak self] in self?.screenChanged() }
    defer {
      app.runtime.onScreenChanged = {}
      timer?.cancel()
      quitting.done = true
    }
    draw(full: true)
    for await event in stream {
      switch event {
      case .input:
        if let status = await app.handle(parser.feed(self.input.take()), perform: perform) { return status }
      case .tick:
        timerDue = nil
        if parser.isWaitingForMore, let status = await app.handle(parser.flush(), perform: perform) {
          return status
        }
      case .screenChanged:
        redrawPending = false
        app.screenChanged()
      case .signal(let signal):
        switch signal {
        case SIGWINCH: break
        case SIGTSTP:
          terminal.suspend()
          previous = nil
        case SIGCONT:
          terminal.enter()
          previous = nil
        default: return 128 + signal
        }
      case .end:
        return 0
      }
      draw(full: false)
    }
    return 0
  }

  /// Carries out what a key asked for; the exit status if it ends the app.
  private func perform(_ action: TerminalApp.Action) -> Int32? {
    switch action {
    case .redraw: break
    case .repaint: previous = nil
    case .suspend:
      terminal.suspend()
      previous = nil
    case .quit: return 0
    }
    return nil
  }

  private func screenChanged() {
    guard !redrawPending else { return }
    redrawPending = true
    continuation.yield(.screenChanged)
  }

  /// Writes the frame: the difference from the last one, or all of it.
  private func draw(full: Bool) {
    if let size = terminal.size(), size.width != app.width || size.height != app.height {
      app.resize(width: size.width, height: size.height)
      previous = nil
    }
    if full { previous = nil }
    let grid = app.frame()
    terminal.write(writer.frame(from: previous, to: grid))
    previous = grid
    schedule(parser.isWaitingForMore ? app.now() + AppLoop.escapeWait : app.nextFrameDue())
  }

  /// Wakes the loop at `due` (seconds on the app's clock) for a frame that
  /// changes by itself.
  private func schedule(_ due: Double?) {
    guard let due else { return }
    if let timerDue, timerDue <= due { return }
    timer?.cancel()
    timerDue = due
    let delay = max(0, due - app.now())
    let continuation = self.continuation
    timer = Task {
      try? await Task.sleep(nanoseconds: UInt64(delay * 1e9))
      guard !Task.isCancelled else { return }
      continuation.yield(.tick)
    }
  }
}

/// The bytes read from the terminal and not yet taken by the loop: the
/// reading thread adds, the loop takes them all at once.
private final class Input: Sendable {
  private let bytes = Mutex<[UInt8]>([])

  /// Adds `read`; true if nothing was waiting (the loop must be told).
  func add(_ read: ArraySlice<UInt8>) -> Bool {
    bytes.withLock { bytes in
      let wasEmpty = bytes.isEmpty
      bytes.append(contentsOf: read)
      return wasEmpty
    }
  }

  /// Everything waiting, leaving nothing.
  func take() -> [UInt8] {
    bytes.withLock { bytes in
      defer { bytes = [] }
      return bytes
    }
  }
}

/// Whether the loop has ended, read by the signal thread's last resort.
private final class Quitting: Sendable {
  private let flag = Mutex(false)

  var done: Bool {
    get { flag.withLock { $0 } }
    set { flag.withLock { $0 = newValue } }
  }
}
