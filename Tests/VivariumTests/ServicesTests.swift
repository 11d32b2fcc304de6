import Foundation
import Testing
import ViperKit
import ViperKitHosting
import ViperKitTestKit

@testable import VivariumLoading
@testable import VivariumRuntime
@testable import VivariumSupport

@Suite("Services")
@MainActor
struct ServicesTests {
  let data: TemporaryDirectory

  init() throws {
    data = try TemporaryDirectory()
  }

  static let shop = PluginIdentity(name: "ShopPlugin", path: "/p/libShop.so")
  static let storage = Contract(urn: "shop:cart", summary: "s", services: [.storage])

  private func services(for contract: Contract, plugin: PluginIdentity = shop) -> Services {
    TestServices.make(in: data).services(for: contract, plugin: plugin, urn: contract.urn)
  }

  @Test func storageSurvivesARestart() throws {
    let contract = Contract(urn: "shop:cart", summary: "s", services: [.storage])
    try #require(services(for: contract).storage).set("3,7", forKey: "favourites")
    let restarted = services(for: contract)
    #expect(restarted.storage?.value(forKey: "favourites") == "3,7")
    #expect(restarted.storage?.keys() == ["favourites"])
  }

  @Test func storageIsPrivateToEachPlugin() throws {
    let contract = Contract(urn: "shop:cart", summary: "s", services: [.storage])
    try #require(services(for: contract).storage).set("x", forKey: "k")
    let other = PluginIdentity(name: "OtherPlugin", path: "/p/libOther.so")
    #expect(services(for: contract, plugin: other).storage?.value(forKey: "k") == nil)
  }

  @Test func anInterruptedWriteLosesNothingAlreadySaved() throws {
    let path = data.path + "/store.json"
    try AtomicFile.write(Data("{\"a\":\"saved\"}".utf8), to: path)
    #expect(throws: AtomicFile.WriteError.self) {
      try AtomicFile.write(
        Data("{\"a\":\"half-written and never finished\"}".utf8), to: path, fault: .crash(afterBytes: 9))
    }
    let store = PersistentDictionary<String>(path: path) { Issue.record("unexpected problem: \($0)") }
    #expect(store.values == ["a": "saved"])
  }

  @Test func anUnreadableFileIsKeptAsideNotOverwritten() throws {
    let path = data.path + "/storage/Shop.json"
    try FileManager.default.createDirectory(atPath: data.path + "/storage", withIntermediateDirectories: true)
    try Data("not json".utf8).write(to: URL(fileURLWithPath: path))
    var problems: [String] = []
    let store = PersistentDictionary<String>(path: path) { problems.append($0) }
    #expect(store.values.isEmpty)
    #expect(problems.count == 1 && problems[0].contains("\(path).unreadable-1"), "where it was kept: \(problems)")
    #expect(FileManager.default.contents(atPath: path + ".unreadable-1") == Data("not json".utf8))
  }

  @Test func settingsAreSharedAndTyped() throws {
    let services = TestServices.make(in: data)
    let one = services.services(
      for: Contract(urn: "a", summary: "s", services: [.settings]), plugin: Self.shop, urn: "a")
    let two = services.services(
      for: Contract(urn: "b", summary: "s", services: [.settings]),
      plugin: PluginIdentity(name: "OtherPlugin", path: "/b.so"), urn: "b")
    try one.settings?.set(.bool(true), forKey: "dark")
    #expect(two.settings?.value(forKey: "dark") == .bool(true))
    let reopened = TestServices.make(in: data).services(
      for: Contract(urn: "a", summary: "s", services: [.settings]), plugin: Self.shop, urn: "a")
    #expect(reopened.settings?.value(forKey: "dark") == .bool(true))
  }

  @Test func onlyDeclaredServicesAreHandedOut() {
    let declared = services(for: Contract(urn: "a", summary: "s", services: [.clock, .log]))
    #expect(declared.clock?.now() == TestServices.now)
    #expect(declared.log != nil && !(declared.log is UndeclaredService))
    #expect(declared.storage is UndeclaredService)
    #expect(declared.settings is UndeclaredService)
    #expect(declared.notifications is UndeclaredService)
  }

  /// The host hands out the service a contract lists, and a stand-in for
  /// every other one.
  @Test(arguments: Services.Name.allCases)
  func theHostHandsOutWhatTheContractLists(name: Services.Name) {
    let services = services(for: Contract(urn: "a", summary: "s", services: [name]))
    #expect(services.names == Services.Name.allCases)
    let standIns = ServiceNamesTests.standIns(in: services)
    #expect(Set(standIns.keys) == Set(Services.Name.allCases.filter { $0 != name }.map(\.rawValue)))
  }

  /// A module using a service its contract does not list gets nothing from
  /// it (a sleep throws instead of waiting forever), and each service's first
  /// use is logged and noticed, naming the module and the service to add.
  @Test func usingAnUndeclaredServiceIsLoggedAndNoticedNamingTheServiceToAdd() async throws {
    let host = TestServices.make(in: data)
    let urn = "weather:home"
    let person = HostNotifications()
    let services = host.services(
      for: Contract(urn: urn, summary: "s", services: [.log]), plugin: Self.shop, urn: urn, telling: person)
    let clock = try #require(services.clock)
    await #expect(throws: UndeclaredService.Refused.self) { try await clock.sleep(for: 30) }
    _ = clock.now()
    let storage = try #require(services.storage)
    #expect(storage.value(forKey: "k") == nil)
    #expect(throws: UndeclaredService.Refused.self) { try storage.set("v", forKey: "k") }
    let logged = host.recentLog.filter { $0.contains(" error [ShopPlugin] \(urn): ") }
    try #require(logged.count == 2, "once per service: \(host.recentLog)")
    // The service, named where it is used and in what to add to the contract.
    #expect(logged[0].contains("'clock'") && logged[0].contains("add .clock to"), "\(logged)")
    #expect(logged[1].contains("'storage'") && logged[1].contains("add .storage to"), "\(logged)")
    let notices = person.notices
    #expect(notices.map(\.tone) == [.warning, .warning])
    #expect(notices.first?.text.contains(urn) == true && notices.first?.text.contains("add .clock") == true)
  }

  @Test func logLinesAreTaggedWithThePluginAndTheModuleAndWrittenToTheDataDirectory() throws {
    let services = TestServices.make(in: data)
    services.services(for: Contract(urn: "a:b", summary: "s", services: [.log]), plugin: Self.shop, urn: "a:b")
      .log?.log(.warning, "disk nearly full")
    let line = "2026-11-21T12:00:00Z warning [ShopPlugin] a:b: disk nearly full"
    #expect(services.recentLog == [line])
    #expect(try String(contentsOfFile: data.path + "/vivarium.log", encoding: .utf8) == line + "\n")
  }

  /// In JSON (manifests, caches, the wire) a contract lists its host
  /// services by name, as it always did; a name ViperKit does not know
  /// does not decode.
  @Test func aContractListsItsHostServicesByName() throws {
    let contract = Contract(urn: "a", summary: "s", services: [.storage, .clock])
    let encoder = JSONEncoder()
    encoder.outputFormatting = .sortedKeys
    let json = String(decoding: try encoder.encode(contract), as: UTF8.self)
    #expect(json.contains(#""services":["storage","clock"]"#), "\(json)")
    #expect(try JSONDecoder().decode(Contract.self, from: Data(json.utf8)) == contract)
    let unknown = json.replacingOccurrences(of: #""clock""#, with: #""payments""#)
    #expect(throws: DecodingError.self) { try JSONDecoder().decode(Contract.self, from: Data(unknown.utf8)) }
  }
}
