import Testing
import ViperKit
import ViperKitHosting
import ViperKitTestKit

@Suite("Contract checks")
@MainActor
struct ContractCheckTests {
  private func problems(_ contract: Contract) -> [String] {
    ContractCheck.problems(contract)
  }

  @Test func wellFormedContractHasNoProblems() {
    let contract = Contract(
      urn: "profile:{userID}", summary: "A profile.",
      arguments: [
        .required("userID", .string, "Who."), .optional("compact", .bool, default: .bool(false), "Short form."),
      ],
      slots: [SlotSpec(name: "wallet", accepts: ["wallet:preview"], description: "Balance.")],
      services: [.storage])
    #expect(problems(contract) == [])
  }

  @Test(
    "each malformed contract names its problem",
    arguments: [
      (Contract(urn: "{x}", summary: "s"), "first segment must be a literal"),
      (Contract(urn: "a:{id}", summary: "s"), "placeholder {id} has no argument"),
      (
        Contract(urn: "a:{id}", summary: "s", arguments: [.optional("id", .int, default: .int(1), "d")]),
        "must be required"
      ),
      (
        Contract(urn: "a", summary: "s", arguments: [.required("n", .int, "d"), .required("n", .string, "d")]),
        "argument 'n' is declared twice"
      ),
      (
        Contract(urn: "a", summary: "s", arguments: [.optional("n", .int, default: .string("x"), "d")]),
        "its default 'x' is string"
      ),
      (
        Contract(
          urn: "a", summary: "s",
          arguments: [ArgumentSpec(name: "n", type: .int, required: false, defaultValue: nil, description: "d")]),
        "has no default"
      ),
      (
        Contract(
          urn: "a", summary: "s",
          arguments: [ArgumentSpec(name: "n", type: .int, required: true, defaultValue: .int(1), description: "d")]),
        "is required and has a default"
      ),
      (Contract(urn: "a", summary: "s", arguments: [.required("bad-name", .int, "d")]), "is not a name"),
      (Contract(urn: "a", version: 0, summary: "s"), "contract version is 0"),
      (
        Contract(urn: "a", summary: "s", slots: [SlotSpec(name: "tab", accepts: [], description: "d")]),
        "accepts no URN pattern"
      ),
      (
        Contract(urn: "a", summary: "s", slots: [SlotSpec(name: "tab", accepts: ["x::y"], description: "d")]),
        "slot 'tab'"
      ),
      (
        Contract(
          urn: "a", summary: "s",
          outputs: [MessageSpec(name: "done", description: "d"), MessageSpec(name: "done", description: "d")]),
        "output 'done' is declared twice"
      ),
    ])
  func malformed(contract: Contract, problem: String) async {
    let found = problems(contract)
    #expect(found.contains { $0.contains(problem) }, "\(found)")
  }
}
