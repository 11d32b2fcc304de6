// The floor of a call that carries real messages: ``HandoffEcho``'s round
// trip (each side's main actor in the loop), with each message the very one
// a call sends, encoded by its sender and decoded by its receiver with the
// wire's codec. What a call costs beyond it is what the host and the
// plugin do besides moving and coding their messages.
import Foundation
import Glibc
import VivariumWire

/// Writes `payloads` to `fd`, each a frame, in one write.
private func send(payloads: [[UInt8]], to fd: Int32) {
  let bytes = payloads.flatMap(WireFrame.frame)
  var written = 0
  while written < bytes.count {
    let count = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + written, bytes.count - written) }
    guard count > 0 else { fail("the coded echo's socket closed") }
    written += count
  }
}

/// Writes `messages` to `fd`, each encoded in a frame, in one write.
private func send(_ messages: [some WireMessage], to fd: Int32) {
  send(
    payloads: messages.map { message in
      guard let payload = try? message.encoded() else { fail("a message did not encode") }
      return payload
    }, to: fd)
}

/// Calls `body` on this thread with each payload read from `fd`, until its end.
private func readPayloads(_ fd: Int32, _ body: ([UInt8]) -> Void) {
  var frames = WireFrameReader()
  var buffer = [UInt8](repeating: 0, count: 65_536)
  while true {
    let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
    guard count > 0 else { return }
    buffer.withUnsafeBytes { frames.append(UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
    do {
      while let payload = try frames.next() { body(payload) }
    } catch {
      fail("the coded echo read a bad frame: \(error)")
    }
  }
}

/// `payload` decoded as a `Message`, as the receiver of a call's message decodes it.
private func decoded<Message: WireMessage>(_ payload: [UInt8], as _: Message.Type) -> Message {
  do {
    return try Message.decode(payload)
  } catch {
    fail("the coded echo read a message it cannot decode: \(error)")
  }
}

/// The child of ``CodedEcho`` (`benchmark --echo-coded plugin|host`),
/// playing a plugin process (reading ``HostMessage``, replying with
/// ``PluginMessage``) or the host (the other way): its first frame holds
/// the replies, in turn, each a list of messages; a thread reads and
/// decodes each message after it (as a plugin process's main thread does)
/// and hands it to the main actor, which encodes and sends the next
/// replies. Never returns.
func echoCodedThroughTheMainActor(playing side: String?) -> Never {
  side == "host" ? echoCoded(PluginMessage.self, HostMessage.self) : echoCoded(HostMessage.self, PluginMessage.self)
}

/// ``echoCodedThroughTheMainActor(playing:)``, reading `Read` and replying `Reply`.
private func echoCoded<Read: WireMessage, Reply: WireMessage>(_: Read.Type, _: Reply.Type) -> Never {
  let reader = Thread {
    var replies: [[Reply]] = []
    var next = 0
    readPayloads(0) { payload in
      guard !replies.isEmpty else {
        guard let groups = try? WireDecoder.decode([[Reply]].self, from: payload), !groups.isEmpty else {
          fail("the coded echo's replies did not decode")
        }
        replies = groups
        return
      }
      _ = decoded(payload, as: Read.self)
      let group = replies[next % replies.count]
      next += 1
      Task { @MainActor in send(group, to: 1) }
    }
    exit(0)
  }
  reader.start()
  dispatchMain()
}

/// A child process that answers each message with the next of a list of
/// replies, as ``HandoffEcho`` answers a frame: the least a call carrying
/// those messages can cost, codec included. It sends `Sent` (``HostMessage``
/// as the host, the child a plugin process; ``PluginMessage`` the other way)
/// and is answered with `Reply`, the other direction.
@MainActor
final class CodedEcho<Sent: WireMessage, Reply: WireMessage> {
  private let pid: pid_t
  private let socket: Int32
  private let handoff = MainActorHandoff()
  private var sent = 0

  /// An echo that answers the messages sent to it with `replies`, in turn,
  /// each a list of messages (a draw and the call's answer, say); the
  /// reply is taken as arrived when its last message has.
  init(benchmark: String, replies: [[Reply]]) {
    (pid, socket) = spawnOverSocketPair([benchmark, "--echo-coded", Sent.self == HostMessage.self ? "plugin" : "host"])
    guard let encoded = try? WireEncoder.encode(replies) else { fail("the replies did not encode") }
    send(payloads: [encoded], to: socket)
    let (socket, handoff) = (socket, handoff)
    let lengths = replies.map(\.count)
    Thread {
      var (group, received) = (0, 0)
      readPayloads(socket) { payload in
        // Decoded on this thread, as the host's reader decodes a plugin's messages.
        _ = decoded(payload, as: Reply.self)
        received += 1
        guard received == lengths[group % lengths.count] else { return }
        (group, received) = (group + 1, 0)
        Task { @MainActor in handoff.deliver() }
      }
    }.start()
  }

  /// Microseconds for `message` there and its reply back, each coded, to the main actor.
  func trip(_ message: Sent) async -> Double {
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
