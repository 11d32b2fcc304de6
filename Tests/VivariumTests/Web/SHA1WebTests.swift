import Foundation
import Testing

@testable import VivariumWeb

/// SHA-1 gives the digests of RFC 3174 and FIPS 180's examples, and the
/// same digest as coreutils' sha1sum for every length across block and
/// padding boundaries, however the bytes are split.
@Suite("Web: SHA-1")
struct SHA1WebTests {
  /// `bytes` as lowercase hexadecimal.
  static func hex(_ bytes: [UInt8]) -> String {
    bytes.map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined()
  }

  /// The published examples and their digests.
  static let vectors: [(String, String)] = [
    ("abc", "a9993e364706816aba3e25717850c26c9cd0d89d"),
    ("", "da39a3ee5e6b4b0d3255bfef95601890afd80709"),
    (
      "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
      "84983e441c3bd26ebaae4aa1f95129e5e54670f1"
    ),
    (
      "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
      "a49b2446a02c645bf419f995b67091253a04a259"
    ),
    ("The quick brown fox jumps over the lazy dog", "2fd4e1c67a2d28fced849ee1bb76e7391b93eb12"),
  ]

  @Test(arguments: vectors.indices)
  func thePublishedExamples(index: Int) {
    let (message, digest) = Self.vectors[index]
    #expect(Self.hex(SHA1.digest(Array(message.utf8))) == digest)
  }

  @Test func aMillionAs() {
    #expect(
      Self.hex(SHA1.digest(repeatElement(UInt8(ascii: "a"), count: 1_000_000)))
        == "34aa973cd4c4daa4f61eeb2bdbad27316534016f")
  }

  /// RFC 3174's fourth test: "0123456701234567…" (64 bytes) ten times.
  @Test func theRFCsRepeatedBlock() {
    let block = Array("0123456701234567012345670123456701234567012345670123456701234567".utf8)
    var sha1 = SHA1()
    for _ in 0..<10 { sha1.update(block) }
    #expect(Self.hex(sha1.finish()) == "dea356a2cddd90c7a7ecedc5ebb563934f460452")
  }

  /// The `length` bytes the length test digests: different for each length.
  static func message(length: Int) -> [UInt8] {
    (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ length) }
  }

  @Test func everyLengthUpTo130MatchesSha1sum() throws {
    let sha1sum = "/usr/bin/sha1sum"
    try #require(FileManager.default.isExecutableFile(atPath: sha1sum))
    let directory = try TemporaryDirectory()
    let files = try (0...130).map { try directory.write("m\($0)", Data(Self.message(length: $0))) }
    let process = SpawnedProcess()
    process.executableURL = URL(fileURLWithPath: sha1sum)
    process.arguments = files
    let output = Pipe()
    process.standardOutput = output
    try process.run()
    let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    #expect(process.terminationStatus == 0)
    let expected = text.split(separator: "\n").map { String($0.prefix(40)) }
    try #require(expected.count == 131)
    for length in 0...130 {
      let bytes = Self.message(length: length)
      #expect(Self.hex(SHA1.digest(bytes)) == expected[length], "length \(length)")
      // Split at every point: the digest does not depend on the pieces.
      for cut in stride(from: 0, through: length, by: 7) {
        var sha1 = SHA1()
        sha1.update(bytes[..<cut])
        sha1.update(bytes[cut...])
        #expect(Self.hex(sha1.finish()) == expected[length], "length \(length) cut at \(cut)")
      }
    }
  }

  @Test func oneByteAtATime() {
    var sha1 = SHA1()
    for byte in "abc".utf8 { sha1.update(CollectionOfOne(byte)) }
    #expect(Self.hex(sha1.finish()) == "a9993e364706816aba3e25717850c26c9cd0d89d")
  }
}
