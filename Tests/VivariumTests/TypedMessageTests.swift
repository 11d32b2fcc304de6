import Testing
import ViperKit
import ViperKitHosting

/// Typed messages: a `Codable` struct is its fields, declared in the contract
/// from the type, and read back typed; anything else is refused, never guessed.
@Suite("Typed messages")
struct TypedMessageTests {
  struct ItemChanged: ModuleMessage, Equatable {
    var itemID: Int
    var enabled: Bool
    var title: String
    var ratio: Double
  }

  struct Renamed: ModuleMessage {
    static var name: String { "picked" }
    var amount: Int
  }

  struct WithList: ModuleMessage {
    var ids: [Int]
  }

  @Test func aValueBecomesTheFieldsTheContractNames() {
    let message = Message(ItemChanged(itemID: 7, enabled: true, title: "Mug", ratio: 1))
    #expect(message.name == "itemChanged")
    #expect(
      message.fields == ["itemID": .int(7), "enabled": .bool(true), "title": .string("Mug"), "ratio": .double(1)])
  }

  @Test func theMessageReadsBackAsTheSameValue() {
    let value = ItemChanged(itemID: 7, enabled: false, title: "São Paulo", ratio: 2.5)
    #expect(ItemChanged(Message(value)) == value)
  }

  @Test func anotherMessageOrWrongFieldsReadAsNothing() {
    #expect(ItemChanged(Message("picked", ["amount": .int(20)])) == nil)
    #expect(ItemChanged(Message("itemChanged", ["itemID": .string("7"), "enabled": .bool(true)])) == nil)
    #expect(ItemChanged(Message("itemChanged", ["itemID": .int(7)])) == nil)
  }

  @Test func theContractDeclaresTheTypesFields() {
    let spec = MessageSpec(ItemChanged.self, "Changed.")
    #expect(spec.name == "itemChanged")
    #expect(spec.fields == ["itemID": .int, "enabled": .bool, "title": .string, "ratio": .double])
    #expect(MessageSpec(Renamed.self, "Picked.").name == "picked")
    #expect(Renamed(Message("picked", ["amount": .int(20)]))?.amount == 20)
  }

  @Test func aFieldMessagesCannotCarryIsDeclaredSoTheChecksReportIt() {
    let spec = MessageSpec(WithList.self, "Lists are not fields.")
    #expect(spec.fields == ["(unsupported)": .string])
    let problems = ContractCheck.problems(
      Contract(urn: "demo:list", summary: "Emits lists.", outputs: [spec]))
    #expect(
      problems == [
        "demo:list: output 'withList' has a field messages cannot carry; a message's fields are String, Int, Bool or Double, not lists or nested values"
      ])
  }
}

/// URNs built from values: whatever a value holds, it stays one segment or
/// one argument value.
@Suite("URN builder")
@MainActor
struct URNBuilderTests {
  @Test func valuesArePercentEncoded() {
    #expect(URN("weather", "city", "São Paulo").text == "weather:city:S%C3%A3o%20Paulo")
    #expect(URN("items", "detail", 7).text == "items:detail:7")
    #expect(URN("a", "b").query("q", "x&y=z").query("n", 2).text == "a:b?q=x%26y%3Dz&n=2")
  }

  @Test func theHostReadsBackExactlyTheValuesPutIn() throws {
    let hostile = "a/b:c?d&e=f %zz São"
    let resolved = try ProbeRoutes.catalog().resolve(URN("probe", "args").query("name", hostile).text)
    #expect(resolved.arguments.string("name") == hostile)
    let parsed = try ParsedURN(parsing: URN("weather", "city", "São Paulo").text)
    #expect(parsed.segments == ["weather", "city", "São Paulo"])
  }
}
