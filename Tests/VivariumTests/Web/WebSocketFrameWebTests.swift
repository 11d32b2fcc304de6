import Testing

@testable import VivariumWeb

/// The server's frames are RFC 6455's bytes, with lengths in the fewest
/// bytes at every boundary; close codes are the registry's.
@Suite("Web: WebSocket frames")
struct WebSocketFrameWebTests {
  @Test func theRFCsExamples() {
    // §5.7: a single-frame unmasked text message, and one in two fragments.
    #expect(WebSocketFrame.text("Hello").encoded() == [0x81, 0x05, 0x48, 0x65, 0x6C, 0x6C, 0x6F])
    #expect(WebSocketFrame(.text, payload: Array("Hel".utf8), fin: false).encoded() == [0x01, 0x03, 0x48, 0x65, 0x6C])
    #expect(WebSocketFrame(.continuation, payload: Array("lo".utf8)).encoded() == [0x80, 0x02, 0x6C, 0x6F])
    // An unmasked ping, and a pong.
    #expect(WebSocketFrame.ping(Array("Hello".utf8)).encoded() == [0x89, 0x05, 0x48, 0x65, 0x6C, 0x6C, 0x6F])
    #expect(WebSocketFrame.pong(Array("Hello".utf8)).encoded() == [0x8A, 0x05, 0x48, 0x65, 0x6C, 0x6C, 0x6F])
    // 256 bytes and 64 KiB of binary.
    let small = WebSocketFrame.binary([UInt8](repeating: 7, count: 256)).encoded()
    #expect(Array(small.prefix(4)) == [0x82, 0x7E, 0x01, 0x00])
    #expect(small.count == 4 + 256)
    let large = WebSocketFrame.binary([UInt8](repeating: 7, count: 65536)).encoded()
    #expect(Array(large.prefix(10)) == [0x82, 0x7F, 0, 0, 0, 0, 0, 1, 0, 0])
    #expect(large.count == 10 + 65536)
  }

  /// The header's length form at each boundary: 7 bits to 125, 16 bits
  /// from 126 to 65535, 64 bits from 65536.
  @Test func everyLengthBoundary() {
    for (length, headerLength) in [
      (0, 2), (1, 2), (124, 2), (125, 2), (126, 4), (127, 4), (65534, 4), (65535, 4), (65536, 10), (65537, 10),
      (1 << 20, 10),
    ] {
      let payload = (0..<length).map { UInt8(truncatingIfNeeded: $0) }
      let bytes = WebSocketFrame.binary(payload).encoded()
      #expect(bytes.count == headerLength + length, "\(length)")
      #expect(Array(bytes[headerLength...]) == payload, "\(length)")
      #expect(bytes[0] == 0x82)
      switch headerLength {
      case 2: #expect(Int(bytes[1]) == length)
      case 4: #expect(bytes[1] == 126 && Int(bytes[2]) << 8 | Int(bytes[3]) == length, "\(length)")
      default:
        #expect(bytes[1] == 127)
        #expect(bytes[2...9].reduce(0) { $0 << 8 | Int($1) } == length, "\(length)")
      }
      #expect(WebSocketFrame.header(.binary, fin: true, length: length) == Array(bytes.prefix(headerLength)))
    }
    // The largest length the 64-bit form takes.
    #expect(
      WebSocketFrame.header(.text, fin: false, length: Int.max) == [0x01, 127, 0x7F, 255, 255, 255, 255, 255, 255, 255])
  }

  @Test func closeFrames() {
    #expect(WebSocketFrame.close(nil).encoded() == [0x88, 0x00])
    #expect(WebSocketFrame.close(.normalClosure).encoded() == [0x88, 0x02, 0x03, 0xE8])
    #expect(
      WebSocketFrame.close(.normalClosure, reason: "bye").encoded() == [0x88, 0x05, 0x03, 0xE8] + Array("bye".utf8))
    #expect(WebSocketFrame.close(.application(4000)).encoded() == [0x88, 0x02, 0x0F, 0xA0])
    // A long reason is cut at a character, to 125 bytes of payload at most.
    for reason in [
      String(repeating: "\u{E9}", count: 200), String(repeating: "a", count: 200),
      String(repeating: "\u{1F44D}", count: 50),
    ] {
      let frame = WebSocketFrame.close(.goingAway, reason: reason)
      #expect(frame.payload.count <= 125)
      #expect(frame.payload.count >= 122)
      #expect(UTF8Validator.isValid(frame.payload[2...]))
      #expect(reason.utf8.starts(with: frame.payload[2...]))
    }
  }

  @Test func errorsSayHowToClose() {
    #expect(WebSocketError(.unmasked, "").closeFrame == [0x88, 0x02, 0x03, 0xEA])
    #expect(WebSocketError(.messageTooBig, "").closeFrame == [0x88, 0x02, 0x03, 0xF1])
    #expect(WebSocketError(.invalidUTF8, "").closeFrame == [0x88, 0x02, 0x03, 0xEF])
    for kind in WebSocketError.Kind.allCases {
      let code = WebSocketError(kind, "").closeCode
      switch kind {
      case .messageTooBig: #expect(code == .messageTooBig)
      case .invalidUTF8: #expect(code == .invalidPayload)
      default: #expect(code == .protocolError, "\(kind)")
      }
    }
  }

  @Test func replies() {
    #expect(WebSocketEvent.ping([1, 2]).reply == [0x8A, 0x02, 1, 2])
    #expect(WebSocketEvent.ping([]).reply == [0x8A, 0x00])
    #expect(WebSocketEvent.close(.goingAway, reason: "bye").reply == [0x88, 0x02, 0x03, 0xE9])
    #expect(WebSocketEvent.close(nil, reason: "").reply == [0x88, 0x00])
    #expect(WebSocketEvent.pong([1]).reply == nil)
    #expect(WebSocketEvent.text("a").reply == nil)
    #expect(WebSocketEvent.binary([1]).reply == nil)
  }

  /// Every number from 0 to 65535: the codes there are, which may be sent
  /// (§7.4.1, §7.4.2, and 1012–1014 since registered), and their numbers.
  @Test func closeCodes() {
    let sendable = Set<UInt16>([1000, 1001, 1002, 1003, 1007, 1008, 1009, 1010, 1011, 1012, 1013, 1014]).union(
      3000...4999)
    let unsendable: Set<UInt16> = [1005, 1006, 1015]
    var wrong: [UInt16] = []
    for number in UInt16.min...UInt16.max {
      let code = WebSocketCloseCode(code: number)
      let known = sendable.contains(number) || unsendable.contains(number)
      if (code != nil) != known || (code?.mayBeSent ?? false) != sendable.contains(number)
        || (code.map { $0.code != number } ?? false)
      {
        wrong.append(number)
      }
    }
    #expect(wrong.isEmpty, "\(wrong.prefix(10))")
    #expect(WebSocketCloseCode(code: 1009) == .messageTooBig)
    #expect(WebSocketCloseCode(code: 4321) == .application(4321))
    #expect(!WebSocketCloseCode.application(2000).mayBeSent)
    #expect("\(WebSocketCloseCode.protocolError)" == "1002")
  }

  @Test func opcodes() {
    let control = [WebSocketOpcode.close, .ping, .pong].filter { $0.isControl }
    #expect(control.count == 3)
    let data = [WebSocketOpcode.continuation, .text, .binary].filter { $0.isControl }
    #expect(data.isEmpty)
    #expect((0...15).compactMap { WebSocketOpcode(rawValue: UInt8($0)) }.count == 6)
  }
}
