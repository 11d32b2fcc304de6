import Testing
import ViperKit
import ViperKitHosting

@testable import VivariumLoading
@testable import VivariumRuntime

/// Contracts declare where their module navigates (ViperKit 2.4,
/// `Contract.opens`); the host reports a request that is not declared, and
/// refuses it.
@Suite("Declared navigation")
@MainActor
struct NavigationDeclarationTests {
  static let list = Contract(
    urn: "probe:list", summary: "A list.", opens: [.push("probe:child:{n}"), .present("probe:new")])

  @Test func aRequestIsDeclaredWhenADeclaredPatternOfItsKindMatches() throws {
    #expect(NavigationCheck.problem(.push, "probe:child:7", from: Self.list) == nil)
    let query = try #require(NavigationCheck.problem(.push, "probe:child:7?compact=true", from: Self.list))
    // Wording matters: this sentence is what a plugin's author reads to fix the request, from `vivarium check` and the log.
    #expect(
      query
        == "probe:list asked to push 'probe:child:7?compact=true', but .push(\"probe:child:{n}\") does not pass the argument 'compact' (it passes no query argument); correct the name, or add \"compact\" and its type to the target's arguments"
    )
    #expect(NavigationCheck.problem(.present, "probe:new", from: Self.list) == nil)
    #expect(NavigationCheck.problem(.push, "not a urn at all", from: Self.list) == nil, "refused for that instead")
    let wrongKind = try #require(NavigationCheck.problem(.replace, "probe:child:7", from: Self.list))
    // The request, and what to add to the contract.
    #expect(
      ["'probe:child:7'", #".replace("probe:child:7")"#, "Contract.opens"].allSatisfy(wrongKind.contains),
      "\(wrongKind)")
    let typo = try #require(NavigationCheck.problem(.push, "probe:chlid:7", from: Self.list))
    #expect(typo.contains("'probe:chlid:7'") && typo.contains(#"probe:child:{n}"#), "what it declares: \(typo)")
  }

  @Test func aRequestPassesOnlyTheArgumentsItsTargetDeclaresWithTheirTypes() throws {
    let weather = Contract(
      urn: "probe:list", summary: "A list.",
      opens: [.push("weather:today:{city}", arguments: ["units": .string, "days": .int])])
    #expect(NavigationCheck.problem(.push, "weather:today:london?units=metric&days=3", from: weather) == nil)
    #expect(NavigationCheck.problem(.push, "weather:today:london", from: weather) == nil, "all are optional")
    let typo = try #require(NavigationCheck.problem(.push, "weather:today:london?unit=imperial", from: weather))
    #expect(typo.contains("'unit'") && typo.contains("days") && typo.contains("units"), "what it passes: \(typo)")
    let type = try #require(NavigationCheck.problem(.push, "weather:today:london?days=many", from: weather))
    #expect(
      type.hasSuffix(
        "but .push(\"weather:today:{city}\") passes 'days' as an int, and 'many' (in the URN query) is not one"),
      "\(type)")
  }

  @Test func aDeclaredPatternThatIsNoPatternIsAContractProblem() {
    let broken = Contract(urn: "probe:list", summary: "A list.", opens: [.push("probe::x"), .push("probe::x")])
    let problems = ContractCheck.problems(broken)
    #expect(problems.contains { $0.hasPrefix("probe:list: opens .push(\"probe::x\"): ") }, "\(problems)")
    #expect(problems.contains { $0.contains("'push probe::x'") }, "the target declared twice: \(problems)")
  }

  /// A runtime whose `probe:list` module (of a plugin built against `sdk`)
  /// declares ``list``.
  private func host(sdk: ViperKitVersion) async throws -> (HostRuntime, ProbeRecorder) {
    let recorder = ProbeRecorder()
    let child = Contract(urn: "probe:child:{n}", summary: "Child.", arguments: [.required("n", .int, "Which.")])
    let factories: [any ModuleFactory] = [Self.list, child].map {
      ProbeFactory(contract: $0, recorder: recorder).factory
    }
    let plugin = LoadedPlugin(path: "probe.so", name: "Probe", sdkVersion: sdk, factories: factories)
    let runtime = HostRuntime(catalog: PluginCatalog(outcomes: [.loaded(plugin)]), services: try TestServices.make())
    try await runtime.open("probe:list")
    return (runtime, recorder)
  }

  @Test func anUndeclaredRequestIsReportedAndRefused() async throws {
    let (runtime, recorder) = try await host(sdk: .current)
    try #require(recorder.context("probe:list")).router.push("probe:child:1")
    runtime.drain()
    #expect(runtime.problems.isEmpty, "a declared push: \(runtime.problems)")
    #expect(runtime.top?.urn == "probe:child:1", "a declared push is carried out")
    try #require(recorder.context("probe:child:1")).router.replace("probe:child:2")
    try #require(recorder.context("probe:child:1")).router.push("probe:list")
    runtime.drain()
    #expect(runtime.top?.urn == "probe:child:1", "neither undeclared request was carried out")
    #expect(runtime.problems.map(\.module) == ["probe:child:1", "probe:child:1"])
    #expect(runtime.problems.first?.message.contains("'probe:child:2'") == true)
  }

  @Test func requestsOfPluginsBuiltBeforeDeclarationsAreNotChecked() async throws {
    let (runtime, recorder) = try await host(sdk: ViperKitVersion(major: 2, minor: 3, patch: 0))
    try #require(recorder.context("probe:list")).router.replace("probe:child:2")
    runtime.drain()
    #expect(runtime.top?.urn == "probe:child:2")
    #expect(runtime.problems.isEmpty, "\(runtime.problems)")
  }
}
