import CVivariumSystem
import Foundation
import Glibc
import VivariumSupport

/// How a child process (``ChildProcess``) answers its parent: one frame on a
/// descriptor of its own, carrying a nonce the parent gave it on stdin.
///
/// The child reads the nonce before it loads any plugin code, so a plugin
/// constructor that prints a made-up report on stdout, or exits 0 early,
/// produces no valid frame, and the parent treats the run as failed. This
/// guards against mistakes and naive forgery, not against a plugin set on
/// deceiving the host: plugin code runs in the child with its memory and
/// descriptors (docs/checking.md, "Loading checks").
///
/// Frame: `VIVARIUM-REPLY NONCE LENGTH\n` then exactly LENGTH bytes.
package enum ChildChannel {
  /// The child's descriptor for its reply.
  package static let replyDescriptor: Int32 = 3
  /// The child's descriptor for the plugin file its parent opened and checked.
  package static let fileDescriptor: Int32 = 4

  private static let tag = "VIVARIUM-REPLY"
  /// The environment variable carrying the parent's pid.
  package static let parentVariable = "VIVARIUM_PARENT_PID"

  /// Starts the child side: ties this process's life to its parent's (it
  /// runs in a process group of its own, so Ctrl-C or a kill of the host
  /// would otherwise leave it running), then returns the nonce the parent
  /// sent on stdin. Call it first, before any plugin code is loaded.
  package static func begin() -> String {
    let parent = ProcessInfo.processInfo.environment[parentVariable].flatMap { pid_t($0) } ?? getppid()
    if vivarium_die_with_parent(parent) != 0 { exit(1) }
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 256)
    while bytes.count < 256 {
      let count = buffer.withUnsafeMutableBytes { read(STDIN_FILENO, $0.baseAddress, $0.count) }
      guard count > 0 else { break }
      bytes += buffer[0..<count]
    }
    return String(decoding: bytes, as: UTF8.self)
  }

  /// Sends `payload` to the parent as the next reply of this run.
  package static func reply(_ payload: Data, nonce: String) {
    var frame = Data("\(tag) \(nonce) \(payload.count)\n".utf8)
    frame.append(payload)
    // A failed write leaves the parent without a reply, which it reports.
    _ = frame.withUnsafeBytes { DescriptorOutput.write($0, to: replyDescriptor) }
  }

  /// A fresh random nonce.
  static func makeNonce() -> String {
    (0..<4).map { _ in String(UInt64.random(in: .min ... .max), radix: 16) }.joined(separator: "-")
  }

  /// The longest header: the tag, a nonce and a length.
  static let headerLimit = 256

  /// The payload length a frame header (without its newline) announces;
  /// nil when `header` is not one. The nonce is not checked here.
  static func length(header: Data.SubSequence) -> Int? {
    let fields = String(decoding: header, as: UTF8.self).split(separator: " ")
    guard fields.count == 3, fields[0] == tag, let length = Int(fields[2]), length >= 0 else { return nil }
    return length
  }

  /// The payloads of the frames `stream` holds, in order, up to the first
  /// that is cut short or does not carry `nonce`.
  static func payloads(of stream: Data, nonce: String) -> [Data] {
    var payloads: [Data] = []
    var rest = stream[...]
    while let newline = rest.firstIndex(of: UInt8(ascii: "\n")) {
      let header = String(decoding: rest[rest.startIndex..<newline], as: UTF8.self).split(separator: " ")
      guard header.count == 3, header[0] == tag, header[1] == nonce, let length = Int(header[2]), length >= 0
      else { break }
      let start = rest.index(after: newline)
      guard rest.distance(from: start, to: rest.endIndex) >= length else { break }
      let end = rest.index(start, offsetBy: length)
      payloads.append(Data(rest[start..<end]))
      rest = rest[end...]
    }
    return payloads
  }
}
