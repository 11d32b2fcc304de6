import Testing
import ViperKit

@testable import VivariumWire

/// The wire's one codec reads back what it wrote, every field of every
/// value, from the values' own `Codable` forms: contracts as plugin
/// processes report them, and values that tell their kind only by trying
/// one after another.
@Suite("The wire's codec")
struct WireCodecTests {
  @Test(arguments: WireProtocolTests.contracts)
  func aContractComesBackAsItWas(contract: Contract) throws {
    let bytes = try WireEncoder.encode(contract)
    #expect(try WireDecoder.decode(Contract.self, from: bytes) == contract)
  }

  /// `ArgumentValue` decodes by trying Bool, Int, Double and String in
  /// turn: each comes back as the kind it was, because each value on the
  /// wire says what it is.
  @Test func aValueComesBackAsTheKindItWas() throws {
    let values: [ArgumentValue] = [
      .bool(true), .int(1), .int(0), .double(1), .double(0.5), .string("true"), .string("1"), .double(.infinity),
    ]
    let bytes = try WireEncoder.encode(values)
    #expect(try WireDecoder.decode([ArgumentValue].self, from: bytes) == values)
  }

  /// A number is not a flag, nor a signed number an unsigned one.
  @Test func aValueOfAnotherKindIsAMismatch() throws {
    #expect(throws: WireError.self) { try WireDecoder.decode(Bool.self, from: WireEncoder.encode(1)) }
    #expect(throws: WireError.self) { try WireDecoder.decode(UInt32.self, from: WireEncoder.encode(1)) }
    #expect(throws: WireError.self) { try WireDecoder.decode(Int.self, from: WireEncoder.encode(1.0)) }
    let bytes = try WireEncoder.encode(UInt32(256))
    do throws(WireError) {
      _ = try WireDecoder.decode(UInt8.self, from: bytes)
      Issue.record("256 decoded as a UInt8")
    } catch {
      #expect(error.kind == .mismatch)
    }
  }

  /// A dictionary of many keys (a plugin's storage) comes back whole: past
  /// 16 keys, a container's keys are found through an index.
  @Test func aLargeDictionaryComesBackWhole() throws {
    let entries = Dictionary(uniqueKeysWithValues: (0..<20_000).map { ("key\($0)", ArgumentValue.int($0)) })
    let bytes = try WireEncoder.encode(entries)
    #expect(try WireDecoder.decode([String: ArgumentValue].self, from: bytes) == entries)
  }

  /// A value is read where it lies, without a tree made of it first: a
  /// key is found as Swift compares strings (the Kelvin sign is `K`, a
  /// decomposed `é` a composed one), a missing optional is nil, an
  /// optional that holds nothing is nil too, and looking for a key goes
  /// past a nested list of lists in one step each.
  @Test func keysAreFoundAsSwiftComparesThem() throws {
    struct Reading: Decodable, Equatable {
      var K: Int
      var é: String
      var list: [[Int]]
      var missing: String?
      var empty: Int?
      var after: Bool
    }
    let bytes = try WireEncoder.encode([
      "\u{212A}": ArgumentValue.int(1), "e\u{301}": .string("é"), "after": .bool(true),
    ])
    // The same bytes with a list and a nothing spliced in before `after`:
    // written by hand, as no Encodable type here writes both.
    var spliced = try WireEncoder.encode(Spliced(list: [[1, 2], [], [3]]))
    spliced.removeFirst(5)
    let count = 5
    let whole =
      [WireTag.keyed.rawValue] + (0..<4).map { UInt8(truncatingIfNeeded: count >> (8 * $0)) }
      + bytes.dropFirst(5) + spliced
    let reading = try WireDecoder.decode(Reading.self, from: whole)
    #expect(reading == Reading(K: 1, é: "é", list: [[1, 2], [], [3]], missing: nil, empty: nil, after: true))
  }

  private struct Spliced: Encodable {
    var list: [[Int]]
    func encode(to encoder: any Encoder) throws {
      var container = encoder.container(keyedBy: Key.self)
      try container.encode(list, forKey: .list)
      try container.encodeNil(forKey: .empty)
    }
    enum Key: CodingKey { case list, empty }
  }

  /// Strings of every width of UTF-8 come back; bytes that are not UTF-8
  /// (a lead byte past U+10FFFF, a sequence cut short, a lone
  /// continuation) are refused, naming the reason.
  @Test func stringsAreCheckedAsUTF8() throws {
    let text = "a é € 𝄞 \u{10FFFF}"
    #expect(try WireDecoder.decode(String.self, from: WireEncoder.encode(text)) == text)
    for bad: [UInt8] in [[0xF5, 0x80, 0x80, 0x80], [0xF0, 0x9D, 0x84], [0x80], [0xE2, 0x28, 0xA1]] {
      let bytes = [WireTag.string.rawValue, UInt8(bad.count)] + bad
      do throws(WireError) {
        _ = try WireDecoder.decode(String.self, from: bytes)
        Issue.record("\(bad) decoded")
      } catch {
        #expect(error.kind == .notUTF8, "\(bad): \(error)")
      }
    }
  }

  /// Values are written as they are encoded: a type that finishes a nested
  /// container and goes on in the one holding it is read back whole; one
  /// that goes back to the nested container after that is refused, never
  /// written wrong.
  @Test func aTypeThatGoesBackToAFinishedContainerIsRefused() throws {
    struct Pair: Codable, Equatable {
      var list: [Int]
      var after: String
      var goesBack = false

      enum Key: String, CodingKey { case list, after }

      init(list: [Int], after: String, goesBack: Bool = false) {
        (self.list, self.after, self.goesBack) = (list, after, goesBack)
      }

      init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        (list, after) = (
          try container.decode([Int].self, forKey: .list), try container.decode(String.self, forKey: .after)
        )
      }

      func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        var nested = container.nestedUnkeyedContainer(forKey: .list)
        for value in list.dropLast() { try nested.encode(value) }
        try container.encode(after, forKey: .after)
        if goesBack, let last = list.last { try nested.encode(last) }
      }
    }
    let pair = Pair(list: [1, 2], after: "x")
    #expect(try WireDecoder.decode(Pair.self, from: WireEncoder.encode(pair)).list == [1])
    #expect(throws: EncodingError.self) { try WireEncoder.encode(Pair(list: [1, 2], after: "x", goesBack: true)) }
    // Asking for a nested container there (a call that cannot throw) fails the encoding too.
    struct NestsLate: Encodable {
      enum Key: String, CodingKey { case first, second }
      func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        var first = container.nestedUnkeyedContainer(forKey: .first)
        try first.encode(1)
        try container.encode(2, forKey: .second)
        var late = first.nestedUnkeyedContainer()
        try late.encode(3)
      }
    }
    #expect(throws: EncodingError.self) { try WireEncoder.encode(NestsLate()) }
  }
}
