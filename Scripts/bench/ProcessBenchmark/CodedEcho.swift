// The floor of a call that carries real messages: ``HandoffEcho``'s round
// trip (each side's main actor in the loop), with each message the very one
// a call sends, encoded by its sender and decoded by its receiver with the
// wire's codec. What a call costs beyond it is what the host and the
// plugin do besides moving and coding their messages.
import Foundation
import Glibc
import VivariumWire

/// Writes `messages` to `fd`, each a frame, in one write.
private func send(_ messages: [WireMessage], to fd: Int32) {
  var bytes: [UInt8] = []
  for message in messages {
    guard let payload = try? message.encoded() else { fail("a message did not encode") }
    bytes += WireFrame.frame(payload)
  }
  var written = 0
  while written < bytes.count {
    let count = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + written, bytes.count - written) }
    guard count > 0 else { fail("the coded echo's socket closed") }
    written += count
  }
}

/// Calls `body` on this thread with each message read from `fd`, decoded,
/// until its end.
private func readMessages(_ fd: Int32, _ body: (WireMessage) -> Void) {
  var frames = WireFrameReader()
  var buffer = [UInt8](repeating: 0, count: 65_536)
  while true {
    let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
    guard count > 0 else { return }
    buffer.withUnsafeBytes { frames.append(UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
    do {
      while let (message, _) = try frames.nextMessage() { body(message) }
    } catch {
      fail("the coded echo read a bad frame: \(error)")
    }
  }
}

/// The child of ``CodedEcho`` (`benchmark --echo-coded`): its first message
/// is a `storeCopy` whose entry `replies` holds the replies, in turn, as
/// encoded message lists; a thread reads each message after it and hands
/// it to the main actor, which decodes it and sends the next replies,
/// encoding them again. Never returns.
func echoCodedThroughTheMainActor() -> Never {
  let reader = Thread {
    var replies: [[WireMessage]] = []
    var next = 0
    readMessages(0) { message in
      if case .storeCopy(_, let entries) = message, case .string(let text)? = entries["replies"] {
        guard
          let groups = try? WireDecoder.decode([[WireMessage]].self, from: Array(Data(base64Encoded: text) ?? Data()))
        else { fail("the coded echo's replies did not decode") }
        replies = groups
        return
      }
      let group = replies[next % replies.count]
      next += 1
      // Decoded here, by the reader (as a plugin process's main thread
      // does); encoded and sent by the main actor.
      Task { @MainActor in send(group, to: 1) }
    }
    exit(0)
  }
  reader.start()
  dispatchMain()
}

/// A child process that answers each message with the next of a list of
/// replies, as ``HandoffEcho`` answers a frame: the least a call carrying
/// those messages can cost, codec included.
@MainActor
final class CodedEcho {
  private let pid: pid_t
  private let socket: Int32
  private let handoff = MainActorHandoff()
  private var sent = 0

  /// An echo that answers the messages sent to it with `replies`, in turn,
  /// each a list of messages (a draw and the call's answer, say); the
  /// reply is taken as arrived when its last message has.
  init(benchmark: String, replies: [[WireMessage]]) {
    (pid, socket) = spawnOverSocketPair([benchmark, "--echo-coded"])
    guard let encoded = try? WireEncoder.encode(replies) else { fail("the replies did not encode") }
    send([.storeCopy(.storage, ["replies": .string(Data(encoded).base64EncodedString())])], to: socket)
    let (socket, handoff) = (socket, handoff)
    let lengths = replies.map(\.count)
    Thread {
      var (group, received) = (0, 0)
      readMessages(socket) { _ in
        received += 1
        guard received == lengths[group % lengths.count] else { return }
        (group, received) = (group + 1, 0)
        Task { @MainActor in handoff.deliver() }
      }
    }.start()
  }

  /// Microseconds for `message` there and its reply back, each coded, to the main actor.
  func trip(_ message: WireMessage) async -> Double {
    sent += 1
    let start = nanoseconds()
    send([message], to: socket)
    return Double(await handoff.wait(until: sent) - start) / 1000
  }

  func close() {
    shutdown(socket, Int32(SHUT_RDWR))
    var status: Int32 = 0
    waitpid(pid, &status, 0)
  }
}
