import Testing
import ViperKit

@testable import VivariumWire

/// The wire's one codec reads back what it wrote, every field of every
/// value, from the values' own `Codable` forms: contracts as plugin
/// processes report them and the registry cache keeps them, and values
/// that tell their kind only by trying one after another.
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
