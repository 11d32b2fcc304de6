import Testing

@testable import VivariumWeb

/// A client's frames become whole messages however they are split; every
/// way a client can break RFC 6455 is refused by name, with the code to
/// close with, as soon as it shows.
@Suite("Web: WebSocket decoding")
struct WebSocketDecoderWebTests {
  /// How a test frame writes its length.
  enum LengthForm {
    /// The fewest bytes.
    case minimal
    /// 126 and 16 bits, whatever the length.
    case sixteen
    /// 127 and 64 bits, whatever the length.
    case sixtyFour
  }

  /// RFC 6455 §5.7's masking key.
  static let key: [UInt8] = [0x37, 0xFA, 0x21, 0x3D]

  /// A client's frame, written here without the codec: `opcode` (any of
  /// the 16), the final bit, reserved bits `rsv` (already shifted: 0x40 is
  /// RSV1), masked with `mask` unless nil, its length in `lengthForm`, or
  /// `length` in place of the payload's.
  static func frame(
    _ opcode: UInt8, _ payload: [UInt8], fin: Bool = true, rsv: UInt8 = 0, mask: [UInt8]? = key,
    lengthForm: LengthForm = .minimal, length: UInt64? = nil
  ) -> [UInt8] {
    var bytes: [UInt8] = [(fin ? 0x80 : 0) | rsv | opcode]
    let maskBit: UInt8 = mask == nil ? 0 : 0x80
    let count = length ?? UInt64(payload.count)
    switch lengthForm {
    case .minimal where count < 126:
      bytes.append(maskBit | UInt8(count))
    case .sixteen,
      .minimal where count <= 0xFFFF:
      bytes += [maskBit | 126, UInt8(count >> 8 & 0xFF), UInt8(count & 0xFF)]
    default:
      bytes.append(maskBit | 127)
      bytes += (0..<8).reversed().map { UInt8(count >> (8 * UInt64($0)) & 0xFF) }
    }
    guard let mask else { return bytes + payload }
    return bytes + mask + payload.enumerated().map { $0.element ^ mask[$0.offset % 4] }
  }

  /// A text frame of `text`.
  static func text(_ text: String, fin: Bool = true) -> [UInt8] { frame(0x1, Array(text.utf8), fin: fin) }

  /// Every event of `bytes` fed at once, and the error that ends them, if any.
  static func events(_ bytes: [UInt8], decoder: WebSocketDecoder = WebSocketDecoder()) -> (
    [WebSocketEvent], WebSocketError?
  ) {
    var decoder = decoder
    decoder.feed(bytes)
    var events: [WebSocketEvent] = []
    do {
      while let event = try decoder.next() { events.append(event) }
      return (events, nil)
    } catch {
      return (events, error)
    }
  }

  /// The kind of error `bytes` end in, or nil.
  static func refusal(_ bytes: [UInt8], decoder: WebSocketDecoder = WebSocketDecoder()) -> WebSocketError.Kind? {
    events(bytes, decoder: decoder).1?.kind
  }

  @Test func theRFCsExamples() {
    // §5.7: a single-frame masked text message, and a masked pong.
    #expect(Self.events([0x81, 0x85, 0x37, 0xFA, 0x21, 0x3D, 0x7F, 0x9F, 0x4D, 0x51, 0x58]).0 == [.text("Hello")])
    #expect(
      Self.events([0x8A, 0x85, 0x37, 0xFA, 0x21, 0x3D, 0x7F, 0x9F, 0x4D, 0x51, 0x58]).0 == [.pong(Array("Hello".utf8))])
  }

  /// A payload of every length around the boundaries of the length's
  /// forms, as text and as binary.
  @Test(arguments: [0, 1, 124, 125, 126, 127, 65534, 65535, 65536, 65537, 200_000])
  func everyLengthBoundary(length: Int) {
    let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 * 7) }
    #expect(Self.events(Self.frame(0x2, bytes)) == ([.binary(bytes)], nil))
    let text = String(repeating: "x", count: length)
    #expect(Self.events(Self.frame(0x1, Array(text.utf8))) == ([.text(text)], nil))
  }

  /// What the server's encoder writes, masked as a client would, decodes
  /// to what was encoded.
  @Test func theEncodersFramesMaskedDecode() {
    for length in [0, 5, 125, 126, 65535, 65536] {
      let payload = (0..<length).map { UInt8(truncatingIfNeeded: $0 ^ 0x5A) }
      let encoded = WebSocketFrame.binary(payload).encoded()
      let headerLength = encoded.count - length
      var masked = Array(encoded[..<headerLength])
      masked[1] |= 0x80
      masked += Self.key + payload.enumerated().map { $0.element ^ Self.key[$0.offset % 4] }
      #expect(Self.events(masked) == ([.binary(payload)], nil), "\(length)")
    }
  }

  @Test func masksOfEveryKind() {
    for mask: [UInt8] in [[0, 0, 0, 0], [0xFF, 0xFF, 0xFF, 0xFF], [1, 2, 3, 4], [0x80, 0, 0, 0x01]] {
      #expect(
        Self.events(Self.frame(0x1, Array("caf\u{E9} \u{1F44D}".utf8), mask: mask)).0 == [.text("caf\u{E9} \u{1F44D}")])
    }
  }

  /// A conversation: fragments with control frames between them, every
  /// kind of event.
  static let conversation: [UInt8] =
    text("Hel", fin: false) + frame(0x9, [1, 2, 3]) + frame(0x0, Array("lo, w".utf8), fin: false)
    + frame(0xA, []) + frame(0x0, Array("orld".utf8)) + frame(0x2, (0..<300).map { UInt8($0 & 0xFF) })
    + frame(0x2, [], fin: false) + frame(0x0, [9], fin: false) + frame(0x0, [])
    + text("\u{65E5}\u{672C}") + frame(0x8, [0x03, 0xE8] + Array("done".utf8))
  /// Its events.
  static let conversationEvents: [WebSocketEvent] = [
    .ping([1, 2, 3]), .pong([]), .text("Hello, world"), .binary((0..<300).map { UInt8($0 & 0xFF) }), .binary([9]),
    .text("\u{65E5}\u{672C}"), .close(.normalClosure, reason: "done"),
  ]

  @Test func aConversation() {
    #expect(Self.events(Self.conversation) == (Self.conversationEvents, nil))
  }

  @Test func oneByteAtATime() throws {
    var decoder = WebSocketDecoder()
    var events: [WebSocketEvent] = []
    for byte in Self.conversation {
      decoder.feed(CollectionOfOne(byte))
      while let event = try decoder.next() { events.append(event) }
    }
    #expect(events == Self.conversationEvents)
  }

  @Test func splitAnywhere() throws {
    let bytes = Self.conversation
    for cut in 0...bytes.count {
      var decoder = WebSocketDecoder()
      var events: [WebSocketEvent] = []
      decoder.feed(bytes[..<cut])
      while let event = try decoder.next() { events.append(event) }
      decoder.feed(bytes[cut...])
      while let event = try decoder.next() { events.append(event) }
      #expect(events == Self.conversationEvents, "cut at \(cut)")
    }
  }

  /// Bytes fed in many pieces without reading them all between, as a
  /// server reading a socket in bursts would.
  @Test func feedingAheadOfReading() throws {
    var decoder = WebSocketDecoder()
    var events: [WebSocketEvent] = []
    var offset = 0
    var size = 1
    while offset < Self.conversation.count {
      let end = min(offset + size, Self.conversation.count)
      decoder.feed(Self.conversation[offset..<end])
      offset = end
      size = size * 3 % 17 + 1
      if size % 2 == 0, let event = try decoder.next() { events.append(event) }
    }
    while let event = try decoder.next() { events.append(event) }
    #expect(events == Self.conversationEvents)
  }

  /// A text message split inside a character, at every byte of it.
  @Test func textSplitInsideACharacter() {
    let text = "a\u{E9}\u{20AC}\u{1F44D}z"
    let bytes = Array(text.utf8)
    for first in 0...bytes.count {
      for second in first...bytes.count {
        let frames =
          Self.frame(0x1, Array(bytes[..<first]), fin: false)
          + Self.frame(0x0, Array(bytes[first..<second]), fin: false)
          + Self.frame(0x0, Array(bytes[second...]))
        #expect(Self.events(frames) == ([.text(text)], nil), "cut at \(first), \(second)")
      }
    }
  }

  @Test func closeFrames() {
    #expect(Self.events(Self.frame(0x8, [])) == ([.close(nil, reason: "")], nil))
    for number: UInt16 in [
      1000, 1001, 1002, 1003, 1007, 1008, 1009, 1010, 1011, 1012, 1013, 1014, 3000, 3999, 4000, 4999,
    ] {
      let payload = [UInt8(number >> 8), UInt8(number & 0xFF)] + Array("r\u{E9}ason".utf8)
      let (events, error) = Self.events(Self.frame(0x8, payload))
      #expect(error == nil, "\(number)")
      #expect(events == [.close(WebSocketCloseCode(code: number), reason: "r\u{E9}ason")], "\(number)")
      #expect(events.first?.reply == [0x88, 0x02] + payload.prefix(2), "\(number)")
    }
  }

  /// After a close frame, nothing is read: not even what breaks the protocol.
  @Test func nothingAfterAClose() throws {
    var decoder = WebSocketDecoder()
    decoder.feed(Self.frame(0x8, [0x03, 0xE8]) + Self.text("after"))
    #expect(try decoder.next() == .close(.normalClosure, reason: ""))
    #expect(try decoder.next() == nil)
    decoder.feed(Self.frame(0x1, [0xFF], mask: nil))
    #expect(try decoder.next() == nil)
  }

  @Test func pingsAreAnswered() throws {
    let payload = [UInt8](repeating: 0xAB, count: 125)
    let (events, _) = Self.events(Self.frame(0x9, payload))
    #expect(events == [.ping(payload)])
    #expect(events.first?.reply == [0x8A, 125] + payload)
  }

  /// Every refusal: its kind and what it closes with.
  static let refusals: [(String, [UInt8], WebSocketError.Kind, UInt16)] = [
    ("unmasked text", frame(0x1, Array("Hello".utf8), mask: nil), .unmasked, 1002),
    ("unmasked close", frame(0x8, [0x03, 0xE8], mask: nil), .unmasked, 1002),
    ("unmasked empty", frame(0x2, [], mask: nil), .unmasked, 1002),
    ("RSV1", frame(0x1, [], rsv: 0x40), .reservedBits, 1002),
    ("RSV2", frame(0x1, [], rsv: 0x20), .reservedBits, 1002),
    ("RSV3", frame(0x1, [], rsv: 0x10), .reservedBits, 1002),
    ("RSV1 on a ping", frame(0x9, [], rsv: 0x40), .reservedBits, 1002),
    ("opcode 3", frame(0x3, []), .unknownOpcode, 1002),
    ("opcode 7", frame(0x7, []), .unknownOpcode, 1002),
    ("opcode B", frame(0xB, []), .unknownOpcode, 1002),
    ("opcode F", frame(0xF, []), .unknownOpcode, 1002),
    ("fragmented ping", frame(0x9, [], fin: false), .fragmentedControl, 1002),
    ("fragmented close", frame(0x8, [0x03, 0xE8], fin: false), .fragmentedControl, 1002),
    ("ping of 126", frame(0x9, [UInt8](repeating: 0, count: 126)), .controlTooLong, 1002),
    ("close of 126", frame(0x8, [0x03, 0xE8] + [UInt8](repeating: 0x61, count: 124)), .controlTooLong, 1002),
    ("pong of 64 bits", frame(0xA, [1], lengthForm: .sixtyFour), .controlTooLong, 1002),
    ("125 in 16 bits", frame(0x2, [UInt8](repeating: 0, count: 125), lengthForm: .sixteen), .nonMinimalLength, 1002),
    ("0 in 16 bits", frame(0x2, [], lengthForm: .sixteen), .nonMinimalLength, 1002),
    (
      "65535 in 64 bits", frame(0x2, [UInt8](repeating: 0, count: 65535), lengthForm: .sixtyFour), .nonMinimalLength,
      1002
    ),
    ("5 in 64 bits", frame(0x1, Array("Hello".utf8), lengthForm: .sixtyFour), .nonMinimalLength, 1002),
    ("top bit set", frame(0x2, [], length: 1 << 63), .lengthOutOfRange, 1002),
    ("all bits set", frame(0x2, [], length: .max), .lengthOutOfRange, 1002),
    ("continuation first", frame(0x0, [1]), .unexpectedContinuation, 1002),
    ("continuation after a message", text("a") + frame(0x0, [1]), .unexpectedContinuation, 1002),
    ("text during text", text("a", fin: false) + text("b"), .expectedContinuation, 1002),
    ("binary during text", text("a", fin: false) + frame(0x2, [1]), .expectedContinuation, 1002),
    ("close of one byte", frame(0x8, [0x03]), .badClosePayload, 1002),
    ("invalid text", frame(0x1, [0x61, 0xFF, 0x62]), .invalidUTF8, 1007),
    ("overlong", frame(0x1, [0xC0, 0xAF]), .invalidUTF8, 1007),
    ("surrogate", frame(0x1, [0xED, 0xA0, 0x80]), .invalidUTF8, 1007),
    ("past U+10FFFF", frame(0x1, [0xF4, 0x90, 0x80, 0x80]), .invalidUTF8, 1007),
    ("text ends in a character", frame(0x1, [0x61, 0xE2, 0x82]), .invalidUTF8, 1007),
    ("fragments end in a character", text("a", fin: false) + frame(0x0, [0xF0, 0x9F, 0x91]), .invalidUTF8, 1007),
    ("close reason", frame(0x8, [0x03, 0xE8, 0xFF]), .invalidUTF8, 1007),
    ("close reason cut", frame(0x8, [0x03, 0xE8, 0xC3]), .invalidUTF8, 1007),
  ]

  @Test(arguments: refusals.indices)
  func eachRefusal(index: Int) {
    let (name, bytes, kind, code) = Self.refusals[index]
    var decoder = WebSocketDecoder()
    decoder.feed(bytes)
    do {
      while try decoder.next() != nil {}
      Issue.record("\(name) was read")
    } catch {
      #expect(error.kind == kind, "\(name): \(error)")
      #expect(error.closeCode.code == code, "\(name)")
      // The decoder stays refused, whatever comes next.
      decoder.feed(Self.text("more"))
      #expect(throws: error) { try decoder.next() }
    }
    // Fed one byte at a time, it is the same refusal.
    var bytewise = WebSocketDecoder()
    let error = #expect(throws: WebSocketError.self, "\(name)") {
      for byte in bytes {
        bytewise.feed([byte])
        while try bytewise.next() != nil {}
      }
    }
    #expect(error?.kind == kind, "\(name)")
  }

  @Test func badCloseCodes() {
    for number: UInt16 in [0, 1, 999, 1004, 1005, 1006, 1015, 1016, 1100, 2000, 2999, 5000, 65535] {
      let payload = [UInt8(number >> 8), UInt8(number & 0xFF)]
      #expect(Self.refusal(Self.frame(0x8, payload)) == .badCloseCode, "\(number)")
    }
  }

  /// A message of the limit is read; one byte more is refused from the
  /// header of the frame that would pass it, before its payload arrives.
  @Test func theMessageLimit() throws {
    let limited = WebSocketDecoder(maximumMessageSize: 1000)
    let whole = [UInt8](repeating: 1, count: 1000)
    #expect(Self.events(Self.frame(0x2, whole), decoder: limited) == ([.binary(whole)], nil))
    #expect(Self.refusal(Self.frame(0x2, whole + [1]), decoder: limited) == .messageTooBig)
    let inThree =
      Self.frame(0x2, Array(whole[..<400]), fin: false) + Self.frame(0x0, Array(whole[400..<999]), fin: false)
    #expect(Self.events(inThree + Self.frame(0x0, [1]), decoder: limited) == ([.binary(whole)], nil))
    #expect(Self.refusal(inThree + Self.frame(0x0, [1, 1]), decoder: limited) == .messageTooBig)
    // Control frames between fragments do not count.
    let withPing = Self.frame(0x1, Array(repeating: 0x61, count: 999), fin: false) + Self.frame(0x9, [1, 2, 3])
    #expect(
      Self.events(withPing + Self.frame(0x0, [0x62]), decoder: limited)
        == ([.ping([1, 2, 3]), .text(String(repeating: "a", count: 999) + "b")], nil))
    // A header alone saying too much is refused: its payload never needs to arrive.
    var decoder = limited
    decoder.feed(Array(Self.frame(0x2, [], length: 1 << 40).prefix(14)))
    let error = #expect(throws: WebSocketError.self) { try decoder.next() }
    #expect(error?.kind == .messageTooBig)
    #expect(error?.closeCode == .messageTooBig)
    // The default: 1 MiB.
    let megabyte = [UInt8](repeating: 0, count: 1 << 20)
    #expect(Self.events(Self.frame(0x2, megabyte)).1 == nil)
    #expect(Self.refusal(Self.frame(0x2, megabyte + [0])) == .messageTooBig)
    // A limit of nothing takes empty messages.
    #expect(Self.events(Self.text(""), decoder: WebSocketDecoder(maximumMessageSize: 0)) == ([.text("")], nil))
  }

  /// Bad text fails at its first bad byte: before the frame's end, and
  /// before the message's.
  @Test func badTextFailsAtOnce() throws {
    var decoder = WebSocketDecoder()
    let frame = Self.frame(0x1, [0x61, 0xFF] + [UInt8](repeating: 0x61, count: 1000), fin: false)
    // The header (2 + 2 + 4 bytes) and two bytes of payload.
    decoder.feed(frame.prefix(10))
    let error = #expect(throws: WebSocketError.self) { try decoder.next() }
    #expect(error?.kind == .invalidUTF8)
    // And in a later fragment, as soon as it shows.
    var later = WebSocketDecoder()
    later.feed(Self.text("ok", fin: false) + Self.frame(0x0, [0xC3, 0x28], fin: false))
    #expect(throws: WebSocketError.self) { try later.next() }
  }

  /// The header's first two bytes are checked before the rest arrives.
  @Test func badHeadersFailAtOnce() {
    for (first, second, kind) in [
      (0x81, 0x05, WebSocketError.Kind.unmasked), (0xC1, 0x85, .reservedBits), (0x83, 0x85, .unknownOpcode),
      (0x09, 0x80, .fragmentedControl), (0x89, 0xFE, .controlTooLong), (0x80, 0x81, .unexpectedContinuation),
    ] as [(UInt8, UInt8, WebSocketError.Kind)] {
      var decoder = WebSocketDecoder()
      decoder.feed([first, second])
      let error = #expect(throws: WebSocketError.self) { try decoder.next() }
      #expect(error?.kind == kind)
    }
  }
}
