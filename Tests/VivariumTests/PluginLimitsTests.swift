import Foundation
import Testing
import ViperKit
import ViperKitHosting

@testable import VivariumApp
@testable import VivariumLoading
@testable import VivariumRuntime
@testable import VivariumTerminal
@testable import VivariumTools
@testable import VivariumWire

/// A plugin with many modules loads in both modes and from its manifest;
/// past the documented limits it is refused with its count and the limit,
/// never as a crash. The sizes are measured through the encoders (a
/// manifest of 10,000 modules is too big a Swift literal to compile in a
/// test); one plugin of 10,000 modules is probed and rendered for real. Off
/// the main actor: encoding and the child processes take seconds the main
/// actor's tests need.
@Suite("Plugins with many modules")
struct PluginLimitsTests {
  /// The richest contract of the sample plugins, copied `count` times under
  /// URNs of their own.
  static func contracts(_ count: Int) throws -> [Contract] {
    let samples = BuildProducts.demoCatalog.loaded.flatMap(\.contracts)
    let size = { (contract: Contract) in (try? JSONEncoder().encode(contract).count) ?? 0 }
    let richest = try #require(samples.max { size($0) < size($1) })
    return (0..<count).map { index in
      var contract = richest
      contract.urn = "generated\(index):" + richest.urn
      return contract
    }
  }

  /// The wire carries the largest set of contracts the loader accepts, in
  /// one `ready` message, with room for the rest of it.
  @Test func theWireCarriesTheContractsTheLoaderAccepts() {
    #expect(WireProtocol.messageLimit >= PluginLimits.contractBytes + (1 << 20))
  }

  @Test func tenThousandModulesFitTheProbesReportTheManifestAndThePluginProcesssFrame() throws {
    let contracts = try Self.contracts(10_000)
    let path = "/p/libBig.so"
    let record = PluginRecord(name: "Big", sdkVersion: .current, contracts: contracts)
    let report = ProbeReport(record: record, rejection: nil).bytes(path: path)
    let probed = try JSONDecoder().decode(ProbeReport.self, from: report)
    #expect(probed.rejection == nil)
    #expect(probed.record?.contracts.count == 10_000)
    #expect(report.count <= ChildProcess.replyLimit - ChildChannel.headerLimit, "\(report.count) bytes")

    let manifest = PluginManifest(
      name: "Big", contracts: contracts, sdkVersion: .current, compiler: swiftCompilerIdentity()
    ).json
    #expect(manifest.count <= ELFFile.manifestLimit, "\(manifest.count) bytes")
    #expect(try PluginManifest.record(manifest, path: path, validatingContracts: false).get().contracts.count == 10_000)

    let ready = PluginMessage.ready(
      version: WireProtocol.version, name: "Big", sdkVersion: "2.4.0", contracts: contracts, pluginVersion: "1.0",
      provides: [], hosts: [])
    var reader = WireFrameReader()
    WireFrame.frame(try ready.encoded()).withUnsafeBytes { reader.append($0) }
    let received = try #require(try reader.nextMessage(PluginMessage.self))
    let sent: [Contract]? = if case .ready(_, _, _, let sent, _, _, _, _, _) = received.message { sent } else { nil }
    #expect(try #require(sent, "a ready message").count == 10_000)
    #expect(PluginInbox.limit > received.size)
    // The limits hold ten times as many modules as rich as these.
    #expect(max(report.count, manifest.count, received.size) * 10 <= PluginLimits.contractBytes)
  }

  /// Probed, then one of its modules drawn in a plugin process of its own.
  @Test func aPluginWithTenThousandModulesLoadsAndRenders() throws {
    let library = try SwiftPluginBuilder.manyModules.get()
    let scan = try ProcessRunner.vivarium(["plugins", "--plugins", library, "--no-cache", "--json"])
    struct Report: Decodable {
      struct Row: Decodable {
        let status: String
        let urns: [String]
      }
      let plugins: [Row]
    }
    let row = try #require(try JSONDecoder().decode(Report.self, from: Data(scan.stdout.utf8)).plugins.first)
    #expect(row.status == "loaded", "\(scan.stdout.prefix(2000))")
    #expect(row.urns.count == 10_000)
    let render = try ProcessRunner.vivarium(["render", "many9999:item:7", "--plugins", library, "--no-cache"])
    #expect(render.status == 0, "\(render.stderr)")
    #expect(render.stdout.contains("many9999:item:7"), "\(render.stdout)")
  }

  @Test func pastTheLimitsAPluginIsRefusedNamingItsCountAndTheLimit() throws {
    let path = "/p/libBig.so"
    #expect(PluginLimits.rejection(path, count: PluginLimits.modules) == nil)
    let tooMany = try #require(PluginLimits.rejection(path, count: 100_001))
    #expect(tooMany.kind == .tooManyModules)
    #expect(tooMany.reasons.joined().contains("100001") && tooMany.reasons.joined().contains("100000"))
    let tooLarge = try #require(
      PluginLimits.rejection(path, count: 12, bytes: PluginLimits.contractBytes + 1, as: "the probe's report"))
    #expect(tooLarge.kind == .tooManyModules)
    let reason = tooLarge.reasons.joined()
    #expect(reason.contains("\(PluginLimits.contractBytes + 1)"), "what it takes: \(reason)")
    #expect(reason.contains("\(PluginLimits.contractBytes) "), "the limit: \(reason)")
    #expect(Rejection.Kind.tooManyModules.check == "load.entry")
  }
}
