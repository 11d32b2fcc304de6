import Testing
import ViperKit
import VivariumLoading
import VivariumSupport

@testable import VivariumRuntime

/// The demo's business services as a person meets them: the items both
/// items plugins share, and today's weather on the dashboard, which comes
/// from two services of other plugins (people, then weather, whose http is
/// replayed from Plugins/demo-http).
@Suite("The demo's business services")
@MainActor
struct DemoServicesTests {
  private func text(_ runtime: HostRuntime) -> String {
    runtime.screen()?.lines(TextRenderer(width: 200)).joined(separator: "\n") ?? ""
  }

  private func opened(_ urn: String, in data: TemporaryDirectory) async throws -> HostRuntime {
    let services = TestServices.make(in: data)
    // The person granted the forecast's plugin its host.
    services.permissions.allowances = [try PermissionAllowance.parse("Weather").get()]
    let runtime = HostRuntime(catalog: BuildProducts.demoCatalog, services: services)
    try await runtime.open(urn)
    await runtime.settleAll()
    return runtime
  }

  @Test func whatWasSavedUnderTheOldItemsSettingsIsCarriedOverOnFirstStart() async throws {
    let data = try TemporaryDirectory()
    do {
      // Saved before the items service: item 1 deleted, item 3 enabled.
      let services = TestServices.make(in: data)
      try services.setSetting(.bool(true), forKey: "items.1.deleted")
      try services.setSetting(.bool(true), forKey: "items.3.enabled")
    }
    do {
      let runtime = try await opened("items:list", in: data)
      #expect(text(runtime).contains("3 items, 2 enabled"), "\(text(runtime))")
      #expect(!text(runtime).contains("Buy milk"))
      // Carried into the plugin's storage, then gone from the settings.
      #expect(runtime.services.setting("items.1.deleted") == nil)
      #expect(runtime.services.setting("items.3.enabled") == nil)
      runtime.shutdown()
    }
    // After a restart, the storage alone holds them.
    let again = try await opened("items:detail:3", in: data)
    #expect(text(again).contains("State: enabled"), "\(text(again))")
    again.shutdown()
  }

  @Test func theDashboardShowsTodaysWeatherInThePersonsCityThroughTwoServices() async throws {
    let runtime = try await opened("dashboard:home?user=grace", in: try TemporaryDirectory())
    // 6.8 °C and -0.4 °C, rounded; WMO code 1.
    #expect(text(runtime).contains("Today in New York: 7 °C, low 0 °C, mainly clear"), "\(text(runtime))")
    let log = runtime.services.recentLog
    #expect(log.contains { $0.contains("service call people.person") && $0.contains("answered") }, "\(log)")
    #expect(log.contains { $0.contains("service call weather.forecast") && $0.contains("answered") }, "\(log)")
    #expect(log.contains { $0.contains("http GET api.open-meteo.com 200") }, "\(log)")
    // Its Weather button opens the forecast screen, day by day.
    try await runtime.actUntilIdle(.tap(button: "weather"))
    #expect(runtime.top?.urn == "weather:New%20York")
    #expect(text(runtime).contains("2026-11-28: 5 °C, low -2 °C, snow"), "\(text(runtime))")
    runtime.shutdown()
  }

  @Test func theDashboardsWeatherFollowsTheUnitThePersonChose() async throws {
    let runtime = try await opened("dashboard:home?user=grace", in: try TemporaryDirectory())
    #expect(text(runtime).contains("Today in New York: 7 °C, low 0 °C"), "\(text(runtime))")
    // The Weather plugin's own setting, which it lets others read.
    try runtime.services.settingsEditor.set(TypedSettingsTests.units, to: "fahrenheit")
    await runtime.settleAll()
    // 6.8 °C and -0.4 °C: 44.2 °F and 31.3 °F, rounded.
    #expect(text(runtime).contains("Today in New York: 44 °F, low 31 °F, mainly clear"), "\(text(runtime))")
    try runtime.services.settingsEditor.reset(TypedSettingsTests.units)
    await runtime.settleAll()
    #expect(text(runtime).contains("Today in New York: 7 °C, low 0 °C"), "\(text(runtime))")
    runtime.shutdown()
  }

  @Test func theProfileShowsTheMembersCity() async throws {
    let runtime = try await opened("profile:ada", in: try TemporaryDirectory())
    #expect(text(runtime).contains("Lives in London"), "\(text(runtime))")
    runtime.shutdown()
  }

  /// Replaying, a request never recorded fails; the forecast screen says
  /// why and how to record it, and so does an unknown city.
  @Test func aForecastThatCannotBeHadIsShownAsTheServicesFailure() async throws {
    let tokyo = try await opened("weather:Tokyo", in: try TemporaryDirectory())
    #expect(text(tokyo).contains("VIVARIUM_HTTP=record:"), "\(text(tokyo))")
    let log = tokyo.services.recentLog
    #expect(
      log.contains { $0.contains("service call weather.forecast") && $0.contains("the operation's error") }, "\(log)")
    tokyo.shutdown()
    let nowhere = try await opened("weather:Atlantis", in: try TemporaryDirectory())
    #expect(text(nowhere).contains("'Atlantis'") && text(nowhere).contains("London"), "\(text(nowhere))")
    nowhere.shutdown()
  }
}
