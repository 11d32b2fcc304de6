import Synchronization

/// The server's end of one WebSocket; sending never blocks (queued, written when the socket can take it).
///
/// Any thread may send and close. What is sent and not yet written to the
/// socket counts against ``WebServerLimits/pendingBytes`` twice over: once
/// on its way to the server's thread, once in the connection's queue; over
/// either, the client is taken for one that does not read, and closed. So
/// a single message over `pendingBytes` closes the connection too. After a
/// close, by either side, sends are dropped.
package final class WebSocketConnection: Sendable {
  /// A number naming the connection in log lines.
  package let id: Int
  /// Where sends and closes go.
  private let mailbox: ServerMailbox
  /// The most bytes sent and not yet taken by the I/O thread.
  private let limit: Int
  /// Bytes sent and not yet taken by the I/O thread into the connection's queue.
  let unsentBytes = Atomic<Int>(0)
  /// Bytes of the client's messages on their way to the handler on the main actor.
  let undeliveredBytes = Atomic<Int>(0)
  /// Whether the connection is closing or closed: later sends are dropped.
  let isClosed = Atomic<Bool>(false)

  /// The connection `id`, posting to `mailbox`, holding the app to `limit` bytes unsent.
  init(id: Int, mailbox: ServerMailbox, limit: Int) {
    self.id = id
    self.mailbox = mailbox
    self.limit = limit
  }

  /// Queues `text` as one text message; a client that leaves more than `pendingBytes` unread is closed.
  package func send(_ text: String) {
    guard !isClosed.load(ordering: .acquiring) else { return }
    let frame = WebSocketFrame.text(text).encoded()
    let (_, unsent) = unsentBytes.add(frame.count, ordering: .relaxed)
    if unsent > limit {
      unsentBytes.subtract(frame.count, ordering: .relaxed)
      if !isClosed.exchange(true, ordering: .acquiringAndReleasing) { mailbox.post(.overflow(id)) }
      return
    }
    mailbox.post(.send(id, frame))
  }

  /// Closes with `code` and `reason` (cut to fit a close frame), after
  /// what was sent before; a code that may not be sent (1005, 1006, 1015)
  /// closes with a frame of no code. The handler is told ``WebSocketHandler/closed()``.
  package func close(_ code: WebSocketCloseCode, reason: String) {
    guard !isClosed.exchange(true, ordering: .acquiringAndReleasing) else { return }
    mailbox.post(.close(id, code, reason: reason))
  }

  /// Called by the I/O thread when it takes `count` bytes of a send.
  func taken(_ count: Int) {
    unsentBytes.subtract(count, ordering: .relaxed)
  }
}
