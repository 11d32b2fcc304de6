import CVivariumSystem
import Foundation
import Glibc
import ViperKit
import VivariumSupport
import VivariumWire

/// The plugin process's end of its socket, read by the main thread itself.
///
/// The main thread is the main actor's: it does not park in `dispatchMain`
/// but waits in `poll` for the host's socket and for the main dispatch
/// queue's wake-up descriptor together. A message from the host is carried
/// out on the main actor as soon as it is read, with no thread between the
/// socket and the module to wake and hand it over; the main actor's other
/// jobs (module work, timers, answers awaited) run when the queue wakes it.
/// One thread reads, so messages are carried out in the order sent.
@MainActor
final class HostConnection {
  let channel: WireChannel<PluginMessage>
  /// The main dispatch queue's wake-up descriptor (an eventfd).
  private let mainQueue: Int32
  private var frames = WireFrameReader()
  private var buffer = [UInt8](repeating: 0, count: 65_536)
  /// Takes each message as it is read (``run(receiving:)``).
  private var receive: (HostMessage) -> Void = { _ in }
  /// What the messages read asked for and is not carried out yet, in order
  /// (``later(_:)``).
  private var waitingTurn = FIFO<() -> Void>()
  /// The call a module waits for with the main actor held (``answer(to:)``), and its answer once read.
  private var heldFor: (call: UInt32, answer: WireAnswer?)?
  /// Tasks awaiting the answers to their calls (``PluginServer/call(_:_:)``).
  private var awaiting: [UInt32: CheckedContinuation<WireAnswer, Never>] = [:]

  /// The connection over `channel`; from now on, the main queue is drained
  /// by ``run(receiving:)`` alone.
  init(channel: WireChannel<PluginMessage>) {
    self.channel = channel
    mainQueue = vivarium_main_queue_descriptor()
  }

  /// Reads the host's messages, each taken by `receive` as soon as it is
  /// read, carries out in turn what they asked for (``later(_:)``), and
  /// runs the main actor's jobs, until the host closes the socket: then the
  /// process exits. What one turn sends, its draws and its answer, goes
  /// in one write.
  func run(receiving receive: @escaping (HostMessage) -> Void) -> Never {
    self.receive = receive
    while true {
      let ready = wait(for: -1, mainQueueToo: true)
      if ready.mainQueue { vivarium_drain_main_queue(mainQueue) }
      if ready.socket { read() }
      while let turn = waitingTurn.popFirst() {
        channel.hold()
        turn()
        channel.flush()
      }
    }
  }

  /// Has `turn` carried out after what the messages read before asked
  /// for, and never inside a wait for the host's answer
  /// (``answer(to:within:)``): what a call of the host's asks.
  func later(_ turn: @escaping () -> Void) {
    waitingTurn.append(turn)
  }

  /// Waits, with the main actor held, for the answer to the service call
  /// `call` (already sent), for at most `limit`; what else arrives meanwhile
  /// is received, and what it asks waits its turn. Nil when the limit passed.
  func answer(to call: UInt32, within limit: Duration) -> WireAnswer? {
    heldFor = (call, nil)
    defer { heldFor = nil }
    let deadline = ContinuousClock.now + limit
    while heldFor?.answer == nil {
      let left = ContinuousClock.now.duration(to: deadline)
      guard left > .zero, wait(for: Int32(clamping: left.milliseconds), mainQueueToo: false).socket else {
        return nil
      }
      read()
    }
    return heldFor?.answer
  }

  /// Has `continuation` take the answer to `call` once it arrives; a
  /// second answer to the same call is dropped.
  func expect(_ call: UInt32, _ continuation: CheckedContinuation<WireAnswer, Never>) {
    awaiting[call] = continuation
  }

  /// Gives whoever awaits `call` its answer, if one still does: the module
  /// waiting with the main actor held (``answer(to:within:)``), or a task.
  func deliver(_ call: UInt32, _ answer: WireAnswer) {
    if heldFor?.call == call {
      heldFor?.answer = answer
    } else {
      awaiting.removeValue(forKey: call)?.resume(returning: answer)
    }
  }

  /// Which descriptors are ready, after waiting up to `milliseconds` (-1: no limit).
  private func wait(for milliseconds: Int32, mainQueueToo: Bool) -> (socket: Bool, mainQueue: Bool) {
    var entries = [
      pollfd(fd: channel.descriptor, events: Int16(POLLIN), revents: 0),
      pollfd(fd: mainQueue, events: Int16(POLLIN), revents: 0),
    ]
    while true {
      let count = poll(&entries, mainQueueToo ? 2 : 1, milliseconds)
      if count < 0, errno == EINTR { continue }
      guard count >= 0 else { exit(0) }
      return (entries[0].revents != 0, mainQueueToo && entries[1].revents != 0)
    }
  }

  /// Reads what the socket holds and hands each whole message, in the
  /// order sent, to ``run(receiving:)``'s `receive`, also while a module
  /// waits for an answer. The host closing the socket (it quit, or let the
  /// plugin go) ends the process; a message it cannot read, one of the
  /// other direction among them, ends it saying so.
  private func read() {
    guard channel.receiveAvailable(into: &frames, buffer: &buffer) else { exit(0) }
    do {
      while let (message, _) = try frames.nextMessage(HostMessage.self) { receive(message) }
    } catch {
      FileHandle.standardError.write(Data("vivarium plugin process: the host sent a bad frame: \(error)\n".utf8))
      exit(70)
    }
  }
}
