import Testing
import ViperKit

@testable import VivariumHost

/// Contracts are written field by field (`WireContracts.swift`) for plugin
/// processes and the registry cache. A field the SDK adds must be written
/// there too, or it would be dropped on the way: these counts fail first.
@Suite("Contracts on the wire")
struct WireContractsTests {
  @Test func everyFieldOfAContractIsOneTheCodingKnows() {
    let contract = WireProtocolTests.contracts[0]
    let counts = [
      ("Contract", Mirror(reflecting: contract).children.count, 10),
      ("NavigationTarget", Mirror(reflecting: contract.opens[0]).children.count, 4),
      ("ArgumentSpec", Mirror(reflecting: contract.arguments[0]).children.count, 6),
      ("MessageSpec", Mirror(reflecting: contract.outputs[0]).children.count, 3),
      ("SlotSpec", Mirror(reflecting: contract.slots[0]).children.count, 4),
      ("RouteGuard", Mirror(reflecting: contract.guards[0]).children.count, 3),
    ]
    for (type, fields, known) in counts {
      #expect(
        fields == known,
        "\(type) has \(fields) fields, WireContracts.swift writes \(known): write the new one, and bump WireProtocol.version and PluginRegistry.formatVersion"
      )
    }
  }

  @Test(arguments: WireProtocolTests.contracts)
  func aContractComesBackAsItWas(contract: Contract) throws {
    var writer = WireWriter()
    writer.contract(contract)
    var reader = WireReader(writer.bytes)
    #expect(try reader.contract() == contract)
    #expect(reader.isAtEnd)
  }
}
