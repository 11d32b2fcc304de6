/// Why a WebSocket connection must close: ``kind`` is stable, for tests and
/// programs; the description says what is wrong, for people;
/// ``closeCode`` and ``closeFrame`` are what to send before closing.
package struct WebSocketError: Error, Equatable, CustomStringConvertible {
  /// What is wrong, as a stable name.
  package enum Kind: String, Sendable, CaseIterable {
    /// A client's frame is not masked (§5.1).
    case unmasked
    /// A reserved bit (RSV1–3) is set, and no extension was agreed (§5.2).
    case reservedBits
    /// The opcode is a reserved one (§5.2).
    case unknownOpcode
    /// A control frame is not final (§5.5).
    case fragmentedControl
    /// A control frame carries more than 125 bytes (§5.5).
    case controlTooLong
    /// A length is not in the fewest bytes (§5.2).
    case nonMinimalLength
    /// A 64-bit length has its top bit set (§5.2).
    case lengthOutOfRange
    /// A continuation frame with no message under way (§5.4).
    case unexpectedContinuation
    /// A new text or binary frame while a message is under way (§5.4).
    case expectedContinuation
    /// A close frame of one byte: half a code (§5.5.1).
    case badClosePayload
    /// A close frame's code is not one that may be sent (§7.4).
    case badCloseCode
    /// A message is over the decoder's limit (1009).
    case messageTooBig
    /// A text message or a close reason is not UTF-8 (1007, §8.1).
    case invalidUTF8
  }

  /// What is wrong, as a stable name.
  package let kind: Kind
  /// What is wrong, for people.
  package let description: String

  /// An error of `kind` saying `description`.
  package init(_ kind: Kind, _ description: String) {
    self.kind = kind
    self.description = description
  }

  /// The code to close with: 1009 for a message too big, 1007 for text
  /// that is not UTF-8, 1002 (protocol error) for the rest.
  package var closeCode: WebSocketCloseCode {
    switch kind {
    case .messageTooBig: .messageTooBig
    case .invalidUTF8: .invalidPayload
    default: .protocolError
    }
  }

  /// The close frame to send before closing the connection, encoded.
  package var closeFrame: [UInt8] { WebSocketFrame.close(closeCode).encoded() }
}
