import Foundation
import Testing

@testable import VivariumRuntime

@Suite("Reading session lines")
@MainActor
struct SessionLineReaderTests {
  /// Hands out `bytes` in chunks of `size`, recording the most the reader held.
  private final class Chunks {
    let bytes: [UInt8]
    let size: Int
    private var offset = 0
    private(set) var reads = 0

    init(_ text: String, size: Int) {
      bytes = Array(text.utf8)
      self.size = size
    }

    func read() -> Data {
      reads += 1
      defer { offset = min(offset + size, bytes.count) }
      return Data(bytes[offset..<min(offset + size, bytes.count)])
    }
  }

  private func lines(_ reader: SessionLineReader, afterEach: () -> Void = {}) -> [SessionLineReader.Line] {
    var lines: [SessionLineReader.Line] = []
    while let line = reader.next() {
      lines.append(line)
      afterEach()
    }
    return lines
  }

  @Test(arguments: [1, 3, 4_096])
  func linesEndInLFOrCRLFAndTheLastNeedsNone(chunk: Int) {
    let input = Chunks("tap signIn\r\n\ntype user ada\r\n\r\nback\nquit", size: chunk)
    let reader = SessionLineReader(read: input.read)
    #expect(
      lines(reader) == [
        .text("tap signIn"), .text(""), .text("type user ada"), .text(""), .text("back"), .text("quit"),
      ]
    )
  }

  @Test func aLineOverTheLimitIsSkippedWithoutBeingKept() {
    let limit = 1_000
    let input = Chunks("back\n" + String(repeating: "x", count: 200_000) + "\nquit\n", size: 512)
    let reader = SessionLineReader(limit: limit, read: input.read)
    var held: [Int] = []
    let result = lines(reader) { held.append(reader.bufferedBytes) }
    #expect(result == [.text("back"), .tooLong(bytes: 200_000), .text("quit")])
    #expect(held.allSatisfy { $0 <= limit + 512 }, "held \(held.max() ?? 0) bytes")
  }

  @Test func aLineOfExactlyTheLimitIsKept() {
    let line = String(repeating: "é", count: 50)
    let input = Chunks(line + "\n" + line + "e\n", size: 7)
    #expect(lines(SessionLineReader(limit: 100, read: input.read)) == [.text(line), .tooLong(bytes: 101)])
  }

  /// A long line arriving a byte at a time is looked at once, not rescanned
  /// on every read (which took minutes for a megabyte); many short lines are
  /// not moved up the buffer one by one.
  @Test func longInputCompletesAndEveryLineComesBack() {
    let long = String(repeating: "a", count: 60_000)
    let input = Chunks(long + "\n" + String(repeating: "tap ok\n", count: 50_000), size: 1)
    let result = lines(SessionLineReader(read: input.read))
    #expect(result.count == 50_001)
    #expect(result.first == .text(long))
    #expect(result.dropFirst().allSatisfy { $0 == .text("tap ok") })
    #expect(input.reads == long.utf8.count + 1 + 7 * 50_000 + 1)
  }
}
