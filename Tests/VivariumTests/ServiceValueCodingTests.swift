import Foundation
import Testing
import ViperKit

@testable import VivariumWire

/// A business service's values as they cross between plugins
/// (``ServiceValue``): any `Codable` value comes back as it was, through
/// the value form and through the wire's codec, and a field one side does
/// not know is absent, not an error.
@Suite("Service values")
struct ServiceValueCodingTests {
  struct Forecast: Codable, Equatable {
    enum Sky: String, Codable { case clear, cloudy }
    struct Hour: Codable, Equatable {
      var hour: Int
      var celsius: Double
    }
    var city: String
    var sky: Sky
    var hours: [Hour]
    var warning: String?
    var tags: Set<String>
    var byName: [String: Int]
    var small: Int8
    var big: UInt64
    var ratio: Float
    var nested: [[Bool]]
  }

  static let forecast = Forecast(
    city: "Zürich ✓", sky: .cloudy, hours: [.init(hour: 9, celsius: -2.5), .init(hour: 12, celsius: 3)],
    warning: nil, tags: ["wind"], byName: ["a": 1, "b": -2], small: -8, big: 1 << 40, ratio: 0.5,
    nested: [[true], [], [false, true]])

  @Test func aNestedValueComesBackAsItWas() throws {
    let value = try ServiceValue(encoding: Self.forecast)
    #expect(try value.decode(as: Forecast.self) == Self.forecast)
  }

  @Test func theValueFormCrossesTheWireUnchanged() throws {
    let value = try ServiceValue(encoding: Self.forecast)
    let bytes = try WireEncoder.encode(value)
    let back = try WireDecoder.decode(ServiceValue.self, from: bytes)
    #expect(back == value)
    #expect(try back.decode(as: Forecast.self) == Self.forecast)
  }

  @Test func theValueFormIsPlainJSON() throws {
    let value = try ServiceValue(encoding: Forecast.Hour(hour: 9, celsius: 1.5))
    #expect(value == .record(["hour": .int(9), "celsius": .double(1.5)]))
    let json = try JSONEncoder().encode(value)
    #expect(try JSONDecoder().decode(ServiceValue.self, from: json) == value)
  }

  /// A consumer of version 1.0 and a provider of 1.1 that added an optional field.
  @Test func aFieldTheOtherSideDoesNotKnowIsAbsentWhereOptional() throws {
    struct Old: Codable, Equatable { var city: String }
    struct New: Codable, Equatable {
      var city: String
      var country: String?
    }
    #expect(try ServiceValue(encoding: New(city: "Oslo", country: "NO")).decode(as: Old.self) == Old(city: "Oslo"))
    #expect(try ServiceValue(encoding: Old(city: "Oslo")).decode(as: New.self) == New(city: "Oslo", country: nil))
  }

  @Test func aMismatchNamesTheField() throws {
    struct Wants: Codable { var hours: [Forecast.Hour] }
    let value = ServiceValue.record(["hours": .list([.record(["hour": .string("nine"), "celsius": .int(1)])])])
    do {
      _ = try value.decode(as: Wants.self)
      Issue.record("a string decoded as an Int")
    } catch DecodingError.typeMismatch(_, let context) {
      #expect(context.codingPath.map(\.stringValue) == ["hours", "[0]", "hour"])
    }
  }

  class Base: Codable {
    var id = 1
  }

  final class Derived: Base, @unchecked Sendable {
    var name = "x"
    private enum CodingKeys: String, CodingKey { case name }
    override init() { super.init() }
    required init(from decoder: any Decoder) throws {
      let container = try decoder.container(keyedBy: CodingKeys.self)
      name = try container.decode(String.self, forKey: .name)
      try super.init(from: container.superDecoder())
    }
    override func encode(to encoder: any Encoder) throws {
      var container = encoder.container(keyedBy: CodingKeys.self)
      try container.encode(name, forKey: .name)
      try super.encode(to: container.superEncoder())
    }
  }

  @Test func aSubclassEncodesItsSuperclassUnderSuper() throws {
    let value = try ServiceValue(encoding: Derived())
    #expect(value == .record(["name": .string("x"), "super": .record(["id": .int(1)])]))
    let back = try value.decode(as: Derived.self)
    #expect(back.name == "x" && back.id == 1)
  }

  @Test func foundationValuesDictionariesOptionalsAndEmptyContainersComeBack() throws {
    struct Mixed: Codable, Equatable {
      var when: Date
      var bytes: Data
      var link: URL
      var byNumber: [Int: String]
      var nothing: [String]
      var none: [String: Int]
      var maybe: Int?
    }
    let mixed = Mixed(
      when: Date(timeIntervalSince1970: 1_795_262_400.5), bytes: Data([0, 255, 7]),
      link: URL(string: "https://example.com/a?b=c")!, byNumber: [3: "c", -1: "z"], nothing: [], none: [:], maybe: nil)
    #expect(try ServiceValue(encoding: mixed).decode(as: Mixed.self) == mixed)
    let optional: Int? = nil
    #expect(try ServiceValue(encoding: optional) == .null)
    #expect(try ServiceValue.null.decode(as: Int?.self) == nil)
  }

  @Test func aValueNestedDeeperThanTheLimitDoesNotEncode() throws {
    indirect enum Chain: Codable {
      case end
      case link(Chain)
    }
    var chain = Chain.end
    for _ in 0..<ServiceValue.depthLimit { chain = .link(chain) }
    #expect(throws: EncodingError.self) { try ServiceValue(encoding: chain) }
    var shallow = Chain.end
    for _ in 0..<(ServiceValue.depthLimit / 2 - 2) { shallow = .link(shallow) }
    #expect(try ServiceValue(encoding: shallow).depth <= ServiceValue.depthLimit)
  }

  @Test func anIntegerOutOfItsTypesRangeIsRefused() {
    #expect(throws: DecodingError.self) { try ServiceValue.int(300).decode(as: UInt8.self) }
    #expect(throws: EncodingError.self) { try ServiceValue(encoding: UInt64.max) }
  }
}
