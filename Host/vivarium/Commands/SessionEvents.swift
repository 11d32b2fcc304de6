import Foundation
import VivariumRuntime

/// What a running session reacts to, in the order it happened: lines of
/// input (read on a thread of their own, so the main actor stays free for
/// modules' work), the end of the input, and a screen changed by modules'
/// work.
@MainActor
final class SessionEvents {
  enum Event {
    case line(SessionLineReader.Line)
    case screenChanged
    case end
  }

  /// The events, in order; read it with `for await` and ``wanted(_:)``.
  let stream: AsyncStream<Event>
  private let continuation: AsyncStream<Event>.Continuation
  /// Whether a redraw is already waiting in the stream.
  private var redrawPending = false

  /// Events from `input`, read until its end.
  init(input: FileHandle) {
    (stream, continuation) = AsyncStream.makeStream(of: Event.self)
    let continuation = self.continuation
    Thread {
      let lines = SessionLineReader(input)
      while let line = lines.next() { continuation.yield(.line(line)) }
      continuation.yield(.end)
    }.start()
  }

  /// Whether `event` is still to be handled: a redraw asked for before the
  /// screen was last drawn is not.
  func wanted(_ event: Event) -> Bool {
    guard case .screenChanged = event else { return true }
    defer { redrawPending = false }
    return redrawPending
  }

  /// Asks for one redraw, however many changes come before it is drawn.
  func screenChanged() {
    guard !redrawPending else { return }
    redrawPending = true
    continuation.yield(.screenChanged)
  }

  /// The screen was just drawn: a redraw asked for before is not needed.
  func drawn() {
    redrawPending = false
  }
}
