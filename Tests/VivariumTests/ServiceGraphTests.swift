import Foundation
import Testing
import ViperKit

@testable import VivariumLoading
@testable import VivariumRuntime

/// The business services of an app, resolved from manifests alone: each
/// finding by its stable id, naming the plugins on both sides.
@Suite("Resolving business services")
struct ServiceGraphTests {
  enum Weather: ServiceInterface {
    static let name = "weather"
    static let version: SemanticVersion = "1.2"
  }

  enum API: ServiceInterface {
    static let name = "api"
    static let version: SemanticVersion = "2.0.1"
  }

  static func plugin(
    _ name: String, version: SemanticVersion = "1.0", provides: [ServiceProvision] = [],
    modules: [(urn: String, requires: [ServiceRequirement])] = []
  ) -> ServiceGraph.Plugin {
    ServiceGraph.Plugin(
      name: name, version: version, provides: provides,
      contracts: modules.map { Contract(urn: $0.urn, summary: "A screen.", requires: $0.requires) })
  }

  static let weatherPlugin = plugin(
    "Weather", version: "3.1", provides: [ServiceProvision(Weather.self, requires: [.required(API.self, "2"..<"3")])])
  static let apiPlugin = plugin("Network", provides: [ServiceProvision(API.self)])

  @Test func aServiceInRangeIsBoundToItsProviderWithEveryConsumer() {
    let dashboard = Self.plugin("Dashboard", modules: [("dashboard:home", [.required(Weather.self, "1.0"..<"2")])])
    let graph = ServiceGraph.resolve([dashboard, Self.weatherPlugin, Self.apiPlugin])
    #expect(graph.findings.isEmpty, "\(graph.findings)")
    #expect(graph.services.map(\.name) == ["api", "weather"])
    let weather = graph.services[1]
    #expect(weather.provider == "Weather")
    #expect(weather.version == SemanticVersion(1, 2))
    #expect(weather.consumers.map(\.plugin) == ["Dashboard"])
    #expect(weather.consumers.first?.user == .module("dashboard:home"))
    #expect(graph.services[0].consumers.map(\.user) == [.service("weather")], "a service's own requirements count")
  }

  @Test func aRequiredServiceNoPluginProvidesIsMissing() throws {
    let dashboard = Self.plugin("Dashboard", modules: [("dashboard:home", [.required(Weather.self, "1.0"..<"2")])])
    let graph = ServiceGraph.resolve([dashboard])
    let finding = try #require(graph.findings.first)
    #expect(graph.findings.map(\.id) == [.missing])
    #expect(finding.isError)
    #expect(finding.message.contains("dashboard:home") && finding.message.contains("Dashboard"))
    #expect(finding.message.contains("'weather'") && finding.message.contains("1.0.0..<2.0.0"))
  }

  @Test func anOptionalServiceNoPluginProvidesIsAbsentNotAnError() throws {
    let dashboard = Self.plugin("Dashboard", modules: [("dashboard:home", [.optional(Weather.self, "1.0"..<"2")])])
    let graph = ServiceGraph.resolve([dashboard])
    #expect(graph.findings.map(\.id) == [.optionalAbsent])
    #expect(graph.findings.allSatisfy { !$0.isError })
  }

  @Test func aProviderOutsideTheRangeNamesBothPlugins() throws {
    let dashboard = Self.plugin("Dashboard", modules: [("dashboard:home", [.required(Weather.self, "2.0"..<"3")])])
    let graph = ServiceGraph.resolve([dashboard, Self.weatherPlugin, Self.apiPlugin])
    let finding = try #require(graph.findings.first)
    #expect(graph.findings.map(\.id) == [.outOfRange])
    #expect(finding.message.contains("Dashboard") && finding.message.contains("Weather 3.1.0"))
    #expect(finding.message.contains("1.2.0"), "the version provided")
  }

  @Test func servicesRequiringEachOtherAreACycleReportedOnce() throws {
    let api = Self.plugin(
      "Network", provides: [ServiceProvision(API.self, requires: [.required(Weather.self, "1"..<"2")])])
    let graph = ServiceGraph.resolve([Self.weatherPlugin, api])
    let finding = try #require(graph.findings.first)
    #expect(graph.findings.map(\.id) == [.cycle])
    #expect(finding.message.contains("api → weather → api") || finding.message.contains("weather → api → weather"))
    #expect(finding.message.contains("Network") && finding.message.contains("Weather"))
  }

  @Test func twoProvidersAreAnErrorUnlessTheAppChooses() throws {
    let other = Self.plugin("OtherWeather", provides: [ServiceProvision(Weather.self)])
    let plugins = [Self.weatherPlugin, Self.apiPlugin, other]
    let graph = ServiceGraph.resolve(plugins)
    let finding = try #require(graph.findings.first)
    #expect(graph.findings.map(\.id) == [.twoProviders])
    #expect(finding.message.contains("Weather (1.2.0)") && finding.message.contains("OtherWeather (1.2.0)"))
    #expect(!graph.services.contains { $0.name == "weather" })

    let chosen = ServiceGraph.resolve(plugins, chosen: ["weather": "OtherWeather"])
    #expect(chosen.findings.isEmpty, "\(chosen.findings)")
    #expect(chosen.services.first { $0.name == "weather" }?.provider == "OtherWeather")

    let wrong = ServiceGraph.resolve(plugins, chosen: ["weather": "Network"])
    #expect(wrong.findings.map(\.id).sorted { $0.rawValue < $1.rawValue } == [.twoProviders, .unknownChoice])
  }

  @Test func versionsAndRangesReadAsWrittenAndRefuseTheRest() throws {
    #expect(SemanticVersion(parsing: "1") == SemanticVersion(1, 0, 0))
    #expect(SemanticVersion(parsing: "1.2.3")?.description == "1.2.3")
    for bad in ["", "1.", ".1", "1.2.3.4", "-1", "1.x", "١.٢", "1234567890"] {
      #expect(SemanticVersion(parsing: bad) == nil, "'\(bad)' read as a version")
    }
    #expect(SemanticVersion(1, 10) > "1.9")
    let range = try #require(VersionRange(parsing: "1.2..<2"))
    #expect(range.contains("1.2") && range.contains("1.99.0") && !range.contains("2") && !range.contains("1.1.9"))
    #expect(
      VersionRange(parsing: "2..<1") == nil && VersionRange(parsing: "1..<1") == nil
        && VersionRange(parsing: "1...2") == nil)
    // On the wire and in manifests, as strings.
    let requirement = ServiceRequirement.required(Weather.self, "1.2"..<"2")
    let json = String(decoding: try JSONEncoder().encode(requirement), as: UTF8.self)
    #expect(json.contains("\"1.2.0..<2.0.0\""))
    #expect(try JSONDecoder().decode(ServiceRequirement.self, from: Data(json.utf8)) == requirement)
    #expect(throws: DecodingError.self) {
      try JSONDecoder().decode(
        ServiceRequirement.self, from: Data(json.replacingOccurrences(of: "1.2.0..<", with: "3..<").utf8))
    }
  }

  @Test func aManifestMadeBeforeServicesReadsAsUnversionedProvidingNothing() throws {
    let manifest = PluginManifest(
      name: "Old", contracts: [Contract(urn: "old:home", summary: "Old.")], sdkVersion: ViperKitVersion.current,
      compiler: "swift")
    var json = try JSONSerialization.jsonObject(with: JSONEncoder().encode(manifest)) as? [String: Any] ?? [:]
    json["version"] = nil
    json["provides"] = nil
    var contract = (json["contracts"] as? [[String: Any]])?.first ?? [:]
    contract["requires"] = nil
    json["contracts"] = [contract]
    let old = try JSONDecoder().decode(PluginManifest.self, from: JSONSerialization.data(withJSONObject: json))
    #expect(old.version == SemanticVersion(0) && old.provides.isEmpty && old.contracts.first?.requires == [])
  }

  @Test func aThousandServicesAcrossTwoHundredPluginsResolve() {
    var plugins: [ServiceGraph.Plugin] = []
    for index in 0..<200 {
      let provides = (0..<5).map { offset in
        let number = index * 5 + offset
        // Each requires the one before it: a chain of 1,000.
        return ServiceProvision(
          service: "s\(number)", version: "1.0",
          requires: number == 0
            ? [] : [ServiceRequirement(service: "s\(number - 1)", versions: VersionRange("1"..<"2"), isOptional: false)]
        )
      }
      plugins.append(Self.plugin("P\(index)", provides: provides))
    }
    let graph = ServiceGraph.resolve(plugins)
    #expect(graph.findings.isEmpty)
    #expect(graph.services.count == 1000)
  }
}

/// The host refuses to build a module whose required service has no
/// usable provider, naming the service; an optional one may be absent.
@Suite("Modules requiring business services")
@MainActor
struct ServiceRequirementBuildTests {
  func runtime(requirement: ServiceRequirement, providers: [SemanticVersion]) throws -> HostRuntime {
    let recorder = ProbeRecorder()
    let consumer = LoadedPlugin(
      path: "dash.so", name: "Dash",
      factories: [
        ProbeFactory(
          contract: Contract(urn: "dash:home", summary: "Home.", requires: [requirement]), recorder: recorder
        ).factory
      ])
    var outcomes = [PluginOutcome.loaded(consumer)]
    for (index, version) in providers.enumerated() {
      var provider = LoadedPlugin(
        path: "weather\(index).so", name: "Weather\(index)",
        factories: [
          ProbeFactory(contract: Contract(urn: "weather\(index):x", summary: "X."), recorder: recorder).factory
        ])
      provider.provides = [ServiceProvision(service: "weather", version: version, requires: [])]
      outcomes.append(.loaded(provider))
    }
    return HostRuntime(catalog: PluginCatalog(outcomes: outcomes), services: try TestServices.make())
  }

  static let required = ServiceRequirement(service: "weather", versions: VersionRange("1"..<"2"), isOptional: false)

  @Test func aModuleWhoseRequiredServiceHasAProviderInRangeIsBuilt() async throws {
    let host = try runtime(requirement: Self.required, providers: ["1.4"])
    try await host.open("dash:home")
    #expect(host.top?.urn == "dash:home")
  }

  @Test(arguments: [[], ["2.0"], ["1.0", "1.1"]] as [[SemanticVersion]])
  func aModuleWhoseRequiredServiceIsUnusableIsRefusedNamingIt(providers: [SemanticVersion]) async throws {
    let host = try runtime(requirement: Self.required, providers: providers)
    await #expect {
      try await host.open("dash:home")
    } throws: { error in
      guard let error = error as? ResolveError else { return false }
      return error.kind == .serviceUnavailable && error.message.contains("'weather'")
    }
    #expect(host.top == nil)
  }

  @Test func anOptionalServiceMayBeAbsent() async throws {
    var optional = Self.required
    optional.isOptional = true
    let host = try runtime(requirement: optional, providers: [])
    try await host.open("dash:home")
    #expect(host.top?.urn == "dash:home")
  }

  @Test func theAppManifestsChoiceMakesTwoProvidersUsable() async throws {
    let host = try runtime(requirement: Self.required, providers: ["1.0", "1.1"])
    host.host.serviceProviders = ["weather": "Weather1"]
    try await host.open("dash:home")
    #expect(host.top?.urn == "dash:home")
  }
}

/// `vivarium services` on the demo's items plugins: ItemsList provides the
/// items service, ItemsDetail's module requires it.
@Suite("vivarium services")
struct ServicesCommandTests {
  struct Report: Decodable {
    struct Service: Decodable {
      struct Consumer: Decodable {
        let plugin: String
        let user: String
        let versions: String
        let optional: Bool
      }
      let name: String
      let version: String
      let provider: String
      let consumers: [Consumer]
    }
    struct Finding: Decodable {
      let id: String
      let service: String
      let message: String
      let error: Bool
    }
    let services: [Service]
    let findings: [Finding]
  }

  /// A directory linking the sample plugins named.
  static func plugins(_ names: [String]) throws -> TemporaryDirectory {
    let directory = try TemporaryDirectory()
    for name in names {
      try FileManager.default.createSymbolicLink(
        atPath: "\(directory.path)/lib\(name).so", withDestinationPath: "\(BuildProducts.directory)/lib\(name).so")
    }
    return directory
  }

  @Test func listsEachServiceWithItsProviderAndConsumers() throws {
    let (plugins, data) = (try Self.plugins(["ItemsList", "ItemsDetail"]), try TemporaryDirectory())
    let result = try ProcessRunner.vivarium(["services", "--plugins", plugins.path, "--data", data.path, "--json"])
    #expect(result.status == 0, "\(result.stderr)")
    let report = try JSONDecoder().decode(Report.self, from: Data(result.stdout.utf8))
    #expect(report.findings.isEmpty)
    let items = try #require(report.services.first)
    #expect(report.services.count == 1)
    #expect(items.name == "items" && items.version == "1.0.0" && items.provider == "ItemsListPlugin")
    // Both items modules use it: the list in the provider's own plugin.
    #expect(items.consumers.map(\.plugin) == ["ItemsDetailPlugin", "ItemsListPlugin"])
    #expect(items.consumers.map(\.user) == ["module items:detail:{itemID}", "module items:list"])
    #expect(items.consumers.allSatisfy { $0.versions == "1.0.0..<2.0.0" })
  }

  /// The dashboard can do without the people and weather services: with
  /// only the session's provider beside it (Login), each is a note.
  @Test func anAbsentOptionalServiceIsANoteNamingTheConsumer() throws {
    let (plugins, data) = (try Self.plugins(["Dashboard", "Login"]), try TemporaryDirectory())
    let json = try ProcessRunner.vivarium(["services", "--plugins", plugins.path, "--data", data.path, "--json"])
    #expect(json.status == 0, "\(json.stderr)")
    let report = try JSONDecoder().decode(Report.self, from: Data(json.stdout.utf8))
    #expect(report.findings.map(\.id) == ["service.optional-absent", "service.optional-absent"])
    #expect(report.findings.map(\.service).sorted() == ["people", "weather"])
    #expect(report.findings.allSatisfy { !$0.error })
    let text = try ProcessRunner.vivarium(["services", "--plugins", plugins.path, "--data", data.path])
    #expect(text.status == 0)
    #expect(text.stdout.contains("service.optional-absent") && text.stdout.contains("DashboardPlugin"))
  }

}
