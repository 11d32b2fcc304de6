import ViperKit

/// How a message crosses: through the wire's one codec (``WireEncoder``,
/// ``WireDecoder``), from its `Codable` form: each case by its name, each
/// field by its label, each value tagged with what it is.
extension WireMessage {
  /// The message as a frame's payload; throws only what a value's own
  /// `encode(to:)` throws.
  package func encoded() throws -> [UInt8] { try WireEncoder.encode(self) }

  /// The message a frame's payload holds; throws for anything else: an
  /// unknown case or tag (a message of the other direction among them), a
  /// value cut short, of another kind or out of range, bytes left over.
  package static func decode(_ payload: [UInt8]) throws(WireError) -> Self {
    try WireDecoder.decode(Self.self, from: payload)
  }

  /// The case's name, for error messages: `draw`.
  package var name: String { Mirror(reflecting: self).children.first?.label ?? "\(self)" }
}
