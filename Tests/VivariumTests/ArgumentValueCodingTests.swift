import Foundation
import Testing
import ViperKit

@testable import VivariumApp
@testable import VivariumLoading

/// `ArgumentValue` through JSON: every case comes back as the case it was,
/// and what earlier hosts wrote still reads.
@Suite("Argument values in JSON")
@MainActor
struct ArgumentValueCodingTests {
  nonisolated static let values: [ArgumentValue] = [
    .string(""), .string("ada"), .string("1"), .string("1.0"), .string("true"), .string("{\"double\": 1}"),
    .int(0), .int(1), .int(-42), .int(.max), .int(.min),
    .bool(true), .bool(false),
    .double(0), .double(1), .double(1.0), .double(-3), .double(1.5), .double(0.1), .double(-2.25),
    .double(1e18), .double(1e300), .double(.greatestFiniteMagnitude), .double(.leastNonzeroMagnitude),
    .double(.infinity), .double(-.infinity),
  ]

  private func roundTrip<T: Codable>(_ value: T) throws -> T {
    try JSONDecoder().decode(T.self, from: try JSONEncoder().encode(value))
  }

  @Test(arguments: values)
  func everyValueComesBackAsTheCaseItWas(value: ArgumentValue) throws {
    let decoded = try roundTrip(value)
    #expect(decoded == value)
    #expect(decoded.type == value.type)
  }

  @Test func theSignOfZeroAndNotANumberSurvive() throws {
    let zero = try roundTrip(ArgumentValue.double(-0.0))
    #expect(zero.doubleValue?.sign == .minus)
    #expect(try roundTrip(ArgumentValue.double(.nan)).doubleValue?.isNaN == true)
  }

  @Test func valuesInsideMessagesAndContractsComeBackTyped() throws {
    let message = Message("moved", ["x": .double(2), "n": .int(2), "on": .bool(true), "s": .string("2")])
    #expect(try roundTrip(message) == message)
    let spec = ArgumentSpec.optional("ratio", .double, default: .double(1), "A ratio.")
    #expect(try roundTrip(spec).defaultValue == .double(1))
  }

  /// What earlier hosts wrote: every value bare, a whole-number double as a
  /// whole number.
  @Test func bareValuesWrittenByEarlierHostsStillRead() throws {
    let old = Data(#"{"dark": true, "name": "ada", "count": 3, "ratio": 0.5, "volume": 1, "big": 1e+300}"#.utf8)
    let values = try JSONDecoder().decode([String: ArgumentValue].self, from: old)
    #expect(
      values == [
        "dark": .bool(true), "name": .string("ada"), "count": .int(3), "ratio": .double(0.5),
        // Written from .double(1.0) or .int(1): nothing in the file tells, so it reads as before.
        "volume": .int(1), "big": .double(1e300),
      ])
  }

  @Test func malformedTaggedValuesAreRefused() {
    for json in [#"{"double": "one"}"#, #"{"float": 1}"#, #"{}"#, #"[1]"#, #"null"#] {
      #expect(throws: DecodingError.self, "\(json)") {
        try JSONDecoder().decode(ArgumentValue.self, from: Data(json.utf8))
      }
    }
  }
}

/// The settings file across a restart of the host.
@Suite("Settings file")
@MainActor
struct SettingsFileTests {
  let data: TemporaryDirectory

  init() throws {
    data = try TemporaryDirectory()
  }

  private func settings() throws -> any SettingsStore {
    let contract = Contract(urn: "a", summary: "s", services: [.settings])
    let services = TestServices.make(in: data).services(
      for: contract, plugin: PluginIdentity(name: "ShopPlugin", path: "/p/libShop.so"), urn: "a")
    return try #require(services.settings)
  }

  @Test func aDoubleSettingIsStillADoubleAfterARestart() throws {
    let values: [String: ArgumentValue] = [
      "volume": .double(1), "ratio": .double(0.5), "count": .int(1), "dark": .bool(true), "name": .string("1"),
    ]
    let store = try settings()
    for (key, value) in values { try store.set(value, forKey: key) }
    let restarted = try settings()
    for (key, value) in values { #expect(restarted.value(forKey: key) == value, "\(key)") }
  }

  @Test func aSettingsFileSavedByAnEarlierHostLoadsWithItsValues() throws {
    // As the host before this fix wrote it: pretty-printed, sorted, every value bare.
    let old = """
      {
        "dark" : true,
        "login.lastUser" : "grace",
        "pageSize" : 20,
        "ratio" : 0.75,
        "volume" : 1
      }
      """
    try data.write("settings.json", Data(old.utf8), mode: 0o600)
    let store = try settings()
    #expect(store.value(forKey: "dark") == .bool(true))
    #expect(store.value(forKey: "login.lastUser") == .string("grace"))
    #expect(store.value(forKey: "pageSize") == .int(20))
    #expect(store.value(forKey: "ratio") == .double(0.75))
    #expect(store.value(forKey: "volume") == .int(1))
    #expect(!FileManager.default.fileExists(atPath: data.path + "/settings.json.unreadable-1"))
    // Saving something else keeps every old value as it was.
    try store.set(.double(2), forKey: "zoom")
    let restarted = try settings()
    #expect(restarted.value(forKey: "ratio") == .double(0.75))
    #expect(restarted.value(forKey: "volume") == .int(1))
    #expect(restarted.value(forKey: "pageSize") == .int(20))
    #expect(restarted.value(forKey: "zoom") == .double(2))
  }
}
