import Foundation
import Glibc

/// The journal of the saved screens (`state/navigation-KEY.journal`): the
/// steps taken since the snapshot beside it, one record a line, appended and
/// flushed to disk as each step is taken, so that saving a step costs what
/// the step changed, not the whole state.
///
/// The first line names the snapshot the journal continues
/// (`{"base":GENERATION}`), so a journal left over from an earlier snapshot
/// is never replayed onto a newer one. Every line is its checksum (16 hex
/// digits, 64-bit FNV-1a of the rest of the line), a space, and a JSON
/// array of ``NavigationState/Change``, ending in a newline: a line cut
/// short by a crash has no newline or the wrong checksum, and is left out.
enum NavigationJournal {
  /// The header naming the snapshot a journal continues.
  struct Header: Codable { let base: Int }

  /// The line holding `payload` (JSON), checksum first.
  static func line(_ payload: Data) -> Data {
    let sum = String(checksum(payload), radix: 16)
    return Data((String(repeating: "0", count: 16 - sum.count) + sum + " ").utf8) + payload + Data("\n".utf8)
  }

  /// 64-bit FNV-1a of `bytes`.
  static func checksum<Bytes: Sequence<UInt8>>(_ bytes: Bytes) -> UInt64 {
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
    return hash
  }

  /// What a journal holds for the snapshot of generation `base`.
  struct Replay {
    /// The steps, in order.
    var steps: [[NavigationState.Change]] = []
    /// Why the records stopped before the end of the file, when a record
    /// that is not the last is damaged (a torn last one is expected after
    /// a crash, and not said).
    var damage: String?
  }

  /// The steps `data` records after the snapshot of generation `base`;
  /// none when it continues another snapshot (or is empty).
  static func replay(_ data: Data, base: Int) -> Replay {
    var replay = Replay()
    let lines = data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
    // The last piece follows the last newline: empty, or a record cut short.
    let complete = lines.dropLast()
    guard let first = complete.first, let header = payload(of: first),
      (try? JSONDecoder().decode(Header.self, from: header))?.base == base
    else { return replay }
    let decoder = JSONDecoder()
    for (number, line) in complete.enumerated().dropFirst() {
      guard let payload = payload(of: line),
        let step = try? decoder.decode([NavigationState.Change].self, from: payload)
      else {
        // A torn record is the last one written; anything after it means damage.
        if number < complete.count - 1 || !(lines.last ?? Data()).isEmpty {
          replay.damage = "record \(number) of \(complete.count - 1) is damaged"
        }
        break
      }
      replay.steps.append(step)
    }
    return replay
  }

  /// The JSON of a line whose checksum holds; nil for a damaged one.
  static func payload(of line: Data.SubSequence) -> Data? {
    guard line.count > 17, line[line.startIndex + 16] == UInt8(ascii: " "),
      let sum = UInt64(String(decoding: line.prefix(16), as: UTF8.self), radix: 16)
    else { return nil }
    let payload = line.dropFirst(17)
    return checksum(payload) == sum ? Data(payload) : nil
  }
}
