import Testing
import ViperKit
import ViperKitTestKit

/// The conformance checks exercise each module's declared navigation: a
/// request it makes that its contract does not declare fails
/// `navigation.declared`, and so does one its own plugin's module would
/// refuse; a Back on a first screen is flagged by `navigation.back`.
@Suite("Navigation conformance")
@MainActor
struct NavigationConformanceTests {
  static let weather = Contract(
    urn: "weather:today:{city}", summary: "Today's weather.",
    arguments: [
      .required("city", .string, "Where."), .optional("units", .string, default: .string("metric"), "Which units."),
    ])

  /// A plugin whose `weather:home` has a button asking its router for `request`.
  func plugin(_ request: TapFactory.Request, opens: [NavigationTarget]) -> [any ModuleFactory] {
    let home = Contract(urn: "weather:home", summary: "Home.", opens: opens)
    return [
      TapFactory(contract: home, request: request).factory, TapFactory(contract: Self.weather, request: .none).factory,
    ]
  }

  func result(_ check: CheckID, _ factories: [any ModuleFactory], sdk: ViperKitVersion = .current) -> CheckResult {
    Conformance.run(check, on: factories[0], strictness: 5, plugin: factories, sdkVersion: sdk)
  }

  @Test func theUnitsTypoFailsAlthoughThePatternIsDeclared() {
    let factories = plugin(.push("weather:today:london?unit=imperial"), opens: [.push("weather:today:{city}")])
    let typo = result(.navigationDeclared, factories)
    #expect(typo.status == .failed)
    #expect(typo.message.contains("'unit'"), "the argument: \(typo.message)")
    // Declared by the opener, the typo is still refused by the module that answers it.
    let declared = plugin(
      .push("weather:today:london?unit=imperial"), opens: [.push("weather:today:{city}", arguments: ["unit": .string])])
    let refused = result(.navigationDeclared, declared)
    #expect(refused.status == .failed)
    // The module, what it asked for, the argument refused, and the arguments the target takes.
    #expect(
      ["weather:home", "'weather:today:london?unit=imperial'", "'unit'", "weather:today:{city}", "units"].allSatisfy(
        refused.message.contains), "\(refused.message)")
    let right = plugin(
      .push("weather:today:london?units=imperial"),
      opens: [.push("weather:today:{city}", arguments: ["units": .string])])
    #expect(result(.navigationDeclared, right).status == .passed)
  }

  @Test func anUndeclaredRequestFailsUnlessThePluginPredatesDeclarations() {
    let factories = plugin(.present("weather:today:london"), opens: [.push("weather:today:{city}")])
    let undeclared = result(.navigationDeclared, factories)
    #expect(undeclared.status == .failed)
    #expect(undeclared.message.contains(".present"), "the kind it does not declare: \(undeclared.message)")
    #expect(
      result(.navigationDeclared, factories, sdk: ViperKitVersion(major: 2, minor: 3, patch: 0)).status == .skipped)
    let noURN = result(.navigationDeclared, plugin(.push("weather:"), opens: []))
    #expect(noURN.status == .failed)
    #expect(noURN.message.contains("weather:home") && noURN.message.contains("'weather:'"), "\(noURN.message)")
  }

  @Test func backOnTheFirstScreenIsFlagged() {
    let back = result(.navigationBack, plugin(.pop, opens: []))
    #expect(back.status == .warning)
    #expect(back.message.contains("pop()"), "the request: \(back.message)")
    #expect(result(.navigationBack, plugin(.none, opens: [])).status == .passed)
  }
}

/// A module drawing one button, `go`, that asks its router for `request`.
struct TapFactory: RuntimeModule {
  enum Request: Sendable { case push(String), present(String), pop, none }
  let contract: Contract
  let request: Request

  func build(_ context: ModuleContext) throws -> Module {
    let view = TapView(canvas: context.canvas, router: context.router, request: request)
    return Module(view: view, presenter: view)
  }
}

/// View and presenter in one: there is nothing to present.
final class TapView: ViperView, ViperPresenter {
  let canvas: any Canvas
  let router: any AppRouter
  let request: TapFactory.Request

  init(canvas: any Canvas, router: any AppRouter, request: TapFactory.Request) {
    self.canvas = canvas
    self.router = router
    self.request = request
  }

  func lifecycle(_ event: LifecycleEvent) {
    if event == .attach { canvas.draw(.button(id: "go", title: "Go")) }
  }

  func handle(_ event: ViewEvent) {
    switch request {
    case .push(let urn): router.push(urn)
    case .present(let urn): router.present(urn)
    case .pop: router.pop()
    case .none: break
    }
  }
}
