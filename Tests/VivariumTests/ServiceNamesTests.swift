import Testing
import ViperKit
import ViperKitHosting
import ViperKitTestKit

/// The host services by name (``Services/Name``): every list of them, and
/// where each name meets its field of ``Services``, comes from the one
/// enumeration.
@Suite("Host service names")
@MainActor
struct ServiceNamesTests {
  /// A stand-in for each service in `names`, saying which it stands in for
  /// and (as its module) `who` made it.
  static func standIns(_ names: [Services.Name], by who: String = "probe") -> Services {
    Services(named: names) { UndeclaredService($0, module: who, now: { 0 }, report: { _ in }) }
  }

  /// The stand-ins `services` holds, by the name of the field holding each.
  static func standIns(in services: Services) -> [String: UndeclaredService] {
    var found: [String: UndeclaredService] = [:]
    for field in Mirror(reflecting: services).children {
      if let label = field.label, let standIn = field.value as? UndeclaredService { found[label] = standIn }
    }
    return found
  }

  /// Each name fills the field of its own name, and every field but the
  /// business services and the events has a name.
  @Test func eachNameFillsTheFieldOfItsName() {
    let all = Self.standIns(Services.Name.allCases)
    let fields = Mirror(reflecting: all).children.compactMap(\.label)
    #expect(fields == Services.Name.allCases.map(\.rawValue) + ["businessServices", "events"])
    let filled = Self.standIns(in: all)
    #expect(filled.count == Services.Name.allCases.count)
    for (field, standIn) in filled { #expect(field == standIn.service.rawValue) }
  }

  @Test(arguments: Services.Name.allCases)
  func aContainerNamesWhatItHolds(name: Services.Name) {
    #expect(Self.standIns([name]).names == [name])
    #expect(Array(Self.standIns(in: Self.standIns([name])).keys) == [name.rawValue])
    #expect(Services().names.isEmpty)
    #expect(Self.standIns(Services.Name.allCases.reversed()).names == Services.Name.allCases)
  }

  /// Filling takes another container's service only where this one has none.
  @Test(arguments: Services.Name.allCases)
  func fillingTakesOnlyWhatIsMissing(name: Services.Name) {
    let filled = Self.standIns([name], by: "own").filling(Self.standIns(Services.Name.allCases, by: "other"))
    #expect(filled.names == Services.Name.allCases)
    for (field, standIn) in Self.standIns(in: filled) {
      #expect(standIn.module == (field == name.rawValue ? "own" : "other"), "\(field)")
    }
  }

  /// The test kit hands out the service a contract lists, and a stand-in
  /// for every other one.
  @Test(arguments: Services.Name.allCases)
  func theTestKitHandsOutWhatTheContractLists(name: Services.Name) {
    let services = FakeServices().services(for: Contract(urn: "probe", summary: "s", services: [name]))
    #expect(services.names == Services.Name.allCases)
    #expect(Set(Self.standIns(in: services).keys) == Set(Services.Name.allCases.filter { $0 != name }.map(\.rawValue)))
  }
}
