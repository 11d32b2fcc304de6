import Foundation

/// The lines of a session, read as they arrive from a terminal, a pipe or a
/// script file. Each byte is looked at once, and at most `limit` bytes of one
/// line are kept: a longer line is read to its end without being kept, and
/// reported as skipped. A line may end in CRLF.
package final class SessionLineReader {
  /// One line of input.
  package enum Line: Equatable, Sendable {
    /// A line's text, without its line ending.
    case text(String)
    /// A line longer than the limit, skipped; `bytes` is its length.
    case tooLong(bytes: Int)
  }

  /// The longest line kept, in bytes (64 KiB).
  package static let defaultLimit = 65_536

  /// The longest line kept, in bytes.
  package let limit: Int
  private let read: () -> Data
  private var buffer: [UInt8] = []
  /// The first byte not returned yet.
  private var start = 0
  /// Bytes before this index hold no newline after `start`.
  private var scanned = 0
  private var finished = false

  /// Lines from `read`, which returns the next bytes available, or no bytes
  /// at the end of the input.
  package init(limit: Int = SessionLineReader.defaultLimit, read: @escaping () -> Data) {
    self.limit = limit
    self.read = read
  }

  /// Lines from `handle`, read as they arrive.
  package convenience init(_ handle: FileHandle, limit: Int = SessionLineReader.defaultLimit) {
    self.init(limit: limit) { handle.availableData }
  }

  /// Bytes held now, returned or not: at most about `limit` and one read.
  var bufferedBytes: Int { buffer.count }

  /// The next line; nil at the end of the input.
  package func next() -> Line? {
    while true {
      if let newline = buffer[scanned...].firstIndex(of: UInt8(ascii: "\n")) {
        return take(upTo: newline, next: newline + 1)
      }
      scanned = buffer.count
      if buffer.count - start > limit { return skipToNewline() }
      if finished {
        return start == buffer.count ? nil : take(upTo: buffer.count, next: buffer.count)
      }
      let chunk = read()
      if chunk.isEmpty { finished = true } else { buffer.append(contentsOf: chunk) }
    }
  }

  /// The line from `start` to `end`; the next one begins at `next`.
  private func take(upTo end: Int, next: Int) -> Line {
    var bytes = buffer[start..<end]
    if bytes.last == UInt8(ascii: "\r") { bytes = bytes.dropLast() }
    let line: Line = bytes.count > limit ? .tooLong(bytes: bytes.count) : .text(String(decoding: bytes, as: UTF8.self))
    start = next
    scanned = next
    // Drop what was returned once it is most of the buffer: each byte moves at most once more.
    if start > 4_096, start * 2 > buffer.count {
      buffer.removeFirst(start)
      (start, scanned) = (0, 0)
    }
    return line
  }

  /// Reads the rest of an over-long line without keeping it.
  private func skipToNewline() -> Line {
    var count = buffer.count - start
    buffer.removeAll(keepingCapacity: true)
    (start, scanned) = (0, 0)
    while !finished {
      let chunk = read()
      guard !chunk.isEmpty else {
        finished = true
        break
      }
      if let newline = chunk.firstIndex(of: UInt8(ascii: "\n")) {
        count += newline - chunk.startIndex
        buffer.append(contentsOf: chunk[(newline + 1)...])
        break
      }
      count += chunk.count
    }
    return .tooLong(bytes: count)
  }
}
