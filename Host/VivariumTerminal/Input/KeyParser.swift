/// Reads ``KeyEvent``s from the bytes a terminal in raw mode sends: UTF-8
/// text, control keys, VT100/xterm key sequences, xterm SGR mouse reports
/// and bracketed paste. Bytes may arrive in any pieces: what may be the
/// start of a sequence waits for the next ``feed(_:)``, or for ``flush()``
/// when nothing more came (a lone ESC is the Escape key only once it is
/// clear nothing follows). No input makes it crash, leak a sequence as
/// text, or hold more than a few dozen bytes besides a paste; each byte is
/// looked at a bounded number of times, so any input is read in time
/// proportional to its size.
///
/// An escape sequence that does not end is given up, never waited on or
/// skipped without end: a CSI (`ESC [`) still without its final byte after
/// ``EscapeSequence/longest`` bytes, or cut by a byte that cannot be in
/// one (another ESC, a control key, text beyond ASCII), is `.unknown` for
/// the bytes read so far, and what follows is read afresh as keys and
/// text: a `q` or Ctrl-C after it is that key.
package struct KeyParser: Sendable {
  /// The most bytes of a paste kept; the rest is dropped.
  package static let pasteLimit = 64 * 1024
  /// The end of a bracketed paste.
  private static let pasteEnd: [UInt8] = [0x1B, 0x5B, 0x32, 0x30, 0x31, 0x7E]

  /// Bytes not yet read: the start of a sequence, or an unfinished
  /// character.
  private var pending: [UInt8] = []
  /// The paste being read, or nil outside one.
  private var paste: [UInt8]?
  /// Whether the paste being read was longer than ``pasteLimit``.
  private var pasteTruncated = false

  /// A parser with nothing read.
  package init() {}

  /// Whether bytes read may be the start of something not yet complete (a
  /// lone ESC, half a character, a paste without its end). When true and
  /// nothing more arrives within a short time, call ``flush()``.
  package var isWaitingForMore: Bool { !pending.isEmpty || paste != nil }

  /// The events `bytes` complete, in order. Bytes that may be the start of
  /// a sequence are kept for the next call (see ``isWaitingForMore``).
  package mutating func feed(_ bytes: some Sequence<UInt8>) -> [KeyEvent] {
    pending.append(contentsOf: bytes)
    return read(final: false)
  }

  /// The events of everything kept, now that no more is coming: a lone
  /// ESC is `.escape`, an unfinished sequence is its parts (`ESC [` is
  /// `.escape` then `[`), half a character is U+FFFD, and an unfinished
  /// paste is pasted as it is. Nothing is kept after.
  package mutating func flush() -> [KeyEvent] {
    read(final: true)
  }

  /// Reads `pending` as far as it goes; when `final`, all of it.
  private mutating func read(final: Bool) -> [KeyEvent] {
    var events: [KeyEvent] = []
    var text = ""
    func endText() {
      for character in text { events.append(.character(character)) }
      text = ""
    }
    var index = 0
    reading: while index < pending.count {
      if paste != nil {
        endText()
        index = readPaste(from: index, final: final, into: &events)
        if paste != nil { break }
        continue
      }
      let byte = pending[index]
      switch byte {
      case 0x20..<0x7F:
        text.unicodeScalars.append(Unicode.Scalar(byte))
        index += 1
      case 0x80...:
        guard let (scalar, length) = character(at: index, final: final) else { break reading }
        if let scalar {
          text.unicodeScalars.append(scalar)
        } else {
          endText()
          events.append(.unknown(EscapeSequence.printable(pending[index..<index + length])))
        }
        index += length
      case 0x1B:
        guard let (length, found) = escape(at: index, final: final) else { break reading }
        endText()
        events += found
        index += length
      default:
        endText()
        events.append(KeyParser.control(byte))
        index += 1
      }
    }
    endText()
    pending.removeFirst(index)
    if final { endPaste(into: &events) }
    return events
  }

  /// The key a C0 control byte or DEL is.
  private static func control(_ byte: UInt8) -> KeyEvent {
    switch byte {
    case 0x0D, 0x0A: .enter
    case 0x09: .tab
    case 0x08, 0x7F: .backspace
    case 0x01...0x1A: .control(Character(Unicode.Scalar(byte + 0x60)))
    default: .unknown(EscapeSequence.printable([byte]))
    }
  }

  /// The UTF-8 character starting at `index` and its length: U+FFFD for
  /// bytes that cannot start or continue one, nil scalar for a C1 control
  /// character; nil when it may still be completed.
  private func character(at index: Int, final: Bool) -> (Unicode.Scalar?, Int)? {
    let lead = pending[index]
    let length: Int
    var second: ClosedRange<UInt8> = 0x80...0xBF
    switch lead {
    case 0xC2...0xDF: length = 2
    case 0xE0:
      length = 3
      second = 0xA0...0xBF
    case 0xE1...0xEC, 0xEE, 0xEF: length = 3
    case 0xED:
      length = 3
      second = 0x80...0x9F
    case 0xF0:
      length = 4
      second = 0x90...0xBF
    case 0xF1...0xF3: length = 4
    case 0xF4:
      length = 4
      second = 0x80...0x8F
    default: return ("\u{FFFD}", 1)
    }
    var value = UInt32(lead) & (0x7F >> length)
    for offset in 1..<length {
      guard index + offset < pending.count else { return final ? ("\u{FFFD}", offset) : nil }
      let byte = pending[index + offset]
      guard (offset == 1 ? second : 0x80...0xBF).contains(byte) else { return ("\u{FFFD}", offset) }
      value = value << 6 | UInt32(byte & 0x3F)
    }
    if value < 0xA0 { return (nil, length) }
    return (Unicode.Scalar(value) ?? "\u{FFFD}", length)
  }

  /// The events of the escape sequence at `index` and its length, nil when
  /// it may still be completed.
  private mutating func escape(at index: Int, final: Bool) -> (Int, [KeyEvent])? {
    let count = pending.count
    guard index + 1 < count else { return final ? (1, [.escape]) : nil }
    switch pending[index + 1] {
    case UInt8(ascii: "["):
      var end = index + 2
      while end < count {
        let byte = pending[end]
        if (0x40...0x7E).contains(byte) {
          let meaning = EscapeSequence.csi(
            pending[index...end], parameters: pending[index + 2..<end], final: byte)
          guard case .event(let event) = meaning else {
            paste = []
            pasteTruncated = false
            return (end - index + 1, [])
          }
          return (end - index + 1, [event])
        }
        guard (0x20...0x3F).contains(byte) else {
          return (end - index, [.unknown(EscapeSequence.printable(pending[index..<end]))])
        }
        if end - index + 1 >= EscapeSequence.longest {
          // Given up: no key is this long. What follows is read afresh.
          return (end - index + 1, [.unknown(EscapeSequence.printable(pending[index...end]))])
        }
        end += 1
      }
      return final ? (1, [.escape]) : nil
    case UInt8(ascii: "O"):
      guard index + 2 < count else { return final ? (1, [.escape]) : nil }
      let byte = pending[index + 2]
      guard (0x40...0x7E).contains(byte) else { return (1, [.escape]) }
      return (3, [EscapeSequence.ss3(final: byte)])
    default:
      // Alt+key: Escape, then the key.
      return (1, [.escape])
    }
  }

  /// Reads paste text from `index` up to the paste's end, or as far as
  /// can be told is not its end; returns the index after what was read.
  private mutating func readPaste(from index: Int, final: Bool, into events: inout [KeyEvent]) -> Int {
    let count = pending.count
    var search = index
    while let escape = pending[search..<count].firstIndex(of: 0x1B) {
      let available = min(count - escape, KeyParser.pasteEnd.count)
      if pending[escape..<escape + available].elementsEqual(KeyParser.pasteEnd.prefix(available)) {
        if available == KeyParser.pasteEnd.count {
          keepPasted(pending[index..<escape])
          endPaste(into: &events)
          return escape + available
        }
        if !final {
          keepPasted(pending[index..<escape])
          return escape
        }
      }
      search = escape + 1
    }
    keepPasted(pending[index..<count])
    if final { endPaste(into: &events) }
    return count
  }

  /// Adds `bytes` to the paste, up to ``pasteLimit``.
  private mutating func keepPasted(_ bytes: ArraySlice<UInt8>) {
    let room = KeyParser.pasteLimit - (paste?.count ?? 0)
    if bytes.count > room { pasteTruncated = true }
    paste?.append(contentsOf: bytes.prefix(max(room, 0)))
  }

  /// Ends the paste with its event; a truncated one loses the character
  /// cut in half.
  private mutating func endPaste(into events: inout [KeyEvent]) {
    guard var bytes = paste else { return }
    if pasteTruncated, let lead = bytes.suffix(4).lastIndex(where: { $0 & 0xC0 != 0x80 }) {
      let needed = bytes[lead] >= 0xF0 ? 4 : bytes[lead] >= 0xE0 ? 3 : bytes[lead] >= 0xC0 ? 2 : 1
      if bytes.count - lead < needed { bytes.removeSubrange(lead...) }
    }
    events.append(.paste(String(decoding: bytes, as: UTF8.self)))
    paste = nil
    pasteTruncated = false
  }
}
