/// SHA-1 (RFC 3174, FIPS 180-4), for the one thing the web layer needs it
/// for: a WebSocket handshake's `Sec-WebSocket-Accept` (RFC 6455 §4.2.2).
/// SHA-1 is broken for collisions; nothing here relies on it for security.
///
/// Bytes may be added in pieces (``update(_:)``): each is read once, and at
/// most one block of 64 bytes is held between pieces.
package struct SHA1: Sendable {
  /// The length of a digest, in bytes.
  package static let digestLength = 20

  /// The five words of the state (H0…H4).
  private var h0: UInt32 = 0x6745_2301
  /// H1.
  private var h1: UInt32 = 0xEFCD_AB89
  /// H2.
  private var h2: UInt32 = 0x98BA_DCFE
  /// H3.
  private var h3: UInt32 = 0x1032_5476
  /// H4.
  private var h4: UInt32 = 0xC3D2_E1F0
  /// The bytes of a block not yet complete (fewer than 64).
  private var pending: [UInt8] = []
  /// How many bytes were added in all.
  private var length: UInt64 = 0

  /// A digest of no bytes yet.
  package init() {
    pending.reserveCapacity(64)
  }

  /// The digest of `bytes`.
  package static func digest(_ bytes: some Sequence<UInt8>) -> [UInt8] {
    var sha1 = SHA1()
    sha1.update(bytes)
    return sha1.finish()
  }

  /// Adds `bytes` to what the digest is of.
  package mutating func update(_ bytes: some Sequence<UInt8>) {
    for byte in bytes {
      pending.append(byte)
      if pending.count == 64 {
        compressPending()
      }
    }
  }

  /// The digest of every byte added: 20 bytes, the state's words big-endian.
  package consuming func finish() -> [UInt8] {
    let bits = length &* 8 &+ UInt64(pending.count) &* 8
    pending.append(0x80)
    if pending.count > 56 {
      while pending.count < 64 { pending.append(0) }
      compressPending()
    }
    while pending.count < 56 { pending.append(0) }
    for shift in stride(from: 56, through: 0, by: -8) {
      pending.append(UInt8(truncatingIfNeeded: bits >> UInt64(shift)))
    }
    compressPending()
    var digest: [UInt8] = []
    digest.reserveCapacity(Self.digestLength)
    for word in [h0, h1, h2, h3, h4] {
      digest += [
        UInt8(word >> 24), UInt8(truncatingIfNeeded: word >> 16), UInt8(truncatingIfNeeded: word >> 8),
        UInt8(truncatingIfNeeded: word),
      ]
    }
    return digest
  }

  /// Folds the 64 bytes in ``pending`` into the state and empties it.
  private mutating func compressPending() {
    withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 80) { w in
      for t in 0..<16 {
        w[t] =
          UInt32(pending[4 * t]) << 24 | UInt32(pending[4 * t + 1]) << 16 | UInt32(pending[4 * t + 2]) << 8
          | UInt32(pending[4 * t + 3])
      }
      for t in 16..<80 {
        w[t] = rotateLeft(w[t - 3] ^ w[t - 8] ^ w[t - 14] ^ w[t - 16], 1)
      }
      var a = h0
      var b = h1
      var c = h2
      var d = h3
      var e = h4
      for t in 0..<80 {
        let f: UInt32
        let k: UInt32
        switch t {
        case 0..<20:
          f = (b & c) | (~b & d)
          k = 0x5A82_7999
        case 20..<40:
          f = b ^ c ^ d
          k = 0x6ED9_EBA1
        case 40..<60:
          f = (b & c) | (b & d) | (c & d)
          k = 0x8F1B_BCDC
        default:
          f = b ^ c ^ d
          k = 0xCA62_C1D6
        }
        let temp = rotateLeft(a, 5) &+ f &+ e &+ k &+ w[t]
        e = d
        d = c
        c = rotateLeft(b, 30)
        b = a
        a = temp
      }
      h0 = h0 &+ a
      h1 = h1 &+ b
      h2 = h2 &+ c
      h3 = h3 &+ d
      h4 = h4 &+ e
    }
    length &+= 64
    pending.removeAll(keepingCapacity: true)
  }
}

/// `word` rotated left by `count` bits (0 < count < 32).
private func rotateLeft(_ word: UInt32, _ count: UInt32) -> UInt32 {
  word << count | word >> (32 - count)
}
