import Foundation
import Testing
import ViperKit
import ViperKitHosting
import ViperKitTestKit
import VivariumLoading

@testable import VivariumRuntime

/// Settings a plugin declares with a type are the person's to change: read
/// at their defaults until set, checked against their declaration, edited
/// with `vivarium settings` beside a running app and in its settings
/// screen, and a module showing one redraws when it changes.
@Suite("Typed settings")
@MainActor
struct TypedSettingsTests {
  static let units = "weather.units"

  @Test func aDeclarationThatCannotHoldItsDefaultIsNotWellFormed() {
    func problems(_ declarations: [SettingDeclaration]) -> [String] {
      ContractCheck.problems(Contract(urn: "a:b", summary: "s", services: [.settings], settings: declarations))
    }
    #expect(
      problems([
        SettingDeclaration("a.flag", .bool(default: true), description: "A flag."),
        SettingDeclaration("a.count", .int(default: 3, in: 1...9), description: "A count."),
        SettingDeclaration("a.text", .string(default: ""), description: "A text."),
        SettingDeclaration("a.pick", .choice(default: "x", among: ["x", "y"]), description: "A pick."),
        SettingDeclaration("a.untyped"),
      ]).isEmpty)
    let bad = [
      SettingDeclaration("b.count", .int(default: 10, in: 1...9), description: "Out of its range."),
      SettingDeclaration("b.pick", .choice(default: "z", among: ["x", "y"]), description: "Not a choice."),
      SettingDeclaration("b.none", .choice(default: "x", among: []), description: "No choices."),
      SettingDeclaration("b.twice", .choice(default: "x", among: ["x", "x"]), description: "A choice twice."),
      SettingDeclaration("b.silent", .bool(default: false), description: ""),
      SettingDeclaration("b space"),
    ]
    for declaration in bad {
      let found = problems([declaration])
      #expect(found.count == 1 && found[0].contains(declaration.key), "\(declaration.key): \(found)")
    }
    #expect(problems([SettingDeclaration("c.twice"), SettingDeclaration("c.twice")]).count == 1)
  }

  @Test func aDeclarationOfAnEarlierViperKitReadsAsUntypedAndTypesRoundTrip() throws {
    let old = #"{"key":"session.user","readableByOthers":true}"#
    let declaration = try JSONDecoder().decode(SettingDeclaration.self, from: Data(old.utf8))
    #expect(declaration == SettingDeclaration("session.user", readableByOthers: true) && declaration.type == nil)
    let types: [SettingType] = [
      .bool(default: false), .int(default: -1, in: -5...5), .string(default: "é"),
      .choice(default: "b", among: ["a", "b"]),
    ]
    for type in types {
      let typed = SettingDeclaration("k", type, description: "d")
      #expect(try JSONDecoder().decode(SettingDeclaration.self, from: JSONEncoder().encode(typed)) == typed)
    }
    let backwards = #"{"kind":"int","default":1,"lowest":5,"highest":2}"#
    #expect(throws: DecodingError.self) { try JSONDecoder().decode(SettingType.self, from: Data(backwards.utf8)) }
  }

  @Test func aValueIsReadAsItsTypeAndRefusedOutsideIt() {
    let count = SettingType.int(default: 3, in: 1...9)
    #expect(count.value(parsing: "9") == .int(9) && count.value(parsing: "10") == nil)
    #expect(count.value(parsing: "three") == nil)
    #expect(SettingType.bool(default: false).value(parsing: "true") == .bool(true))
    #expect(SettingType.bool(default: false).value(parsing: "yes") == nil)
    let pick = SettingType.choice(default: "a", among: ["a", "b"])
    #expect(pick.value(parsing: "b") == .string("b") && pick.value(parsing: "c") == nil)
    #expect(!pick.admits(.int(1)) && SettingType.string(default: "").admits(.string("")))
  }

  @Test func aTypedSettingReadsAsItsDefaultIsCheckedAndTellsWhoObservesIt() throws {
    let data = try TemporaryDirectory()
    let runtime = HostRuntime(catalog: BuildProducts.demoCatalog, services: TestServices.make(in: data))
    let weather = try #require(runtime.catalog.loaded.first { $0.name == "WeatherPlugin" })
    let contract = Contract(urn: "probe", summary: "reads settings", services: [.settings])
    let settings = try #require(
      runtime.services.services(for: contract, plugin: PluginIdentity(weather), urn: "probe").settings)
    #expect(settings.value(forKey: Self.units) == .string("celsius"), "its default, never set")
    #expect((settings as? any CopiedStore)?.entries[Self.units] == .string("celsius"), "in a process's copy too")
    #expect(throws: SaveRefused.self) { try settings.set(.string("kelvin"), forKey: Self.units) }
    #expect(throws: SaveRefused.self) { try settings.set(.int(1), forKey: Self.units) }

    final class Owner {}
    var owner: Owner? = Owner()
    var told: [ArgumentValue?] = []
    settings.observe(Self.units, by: try #require(owner)) { told.append($0) }
    let editor = runtime.services.settingsEditor
    try editor.set(Self.units, to: "fahrenheit")
    #expect(told == [.string("fahrenheit")])
    #expect(try editor.row(Self.units).isDefault == false)
    try editor.reset(Self.units)
    #expect(told == [.string("fahrenheit"), .string("celsius")], "reset: its default")
    #expect(try editor.row(Self.units).isDefault)
    // The mistakes, by their names.
    #expect(throws: SettingFailure.self) { try editor.set(Self.units, to: "kelvin") }
    do { try editor.set(Self.units, to: "kelvin") } catch { #expect(error.kind == .badValue) }
    do { try editor.set("weather.unit", to: "celsius") } catch { #expect(error.kind == .unknownKey) }
    do { try editor.set("session.user", to: "ada") } catch { #expect(error.kind == .unknownKey, "not the person's") }
    // Nobody told once the observer is gone.
    owner = nil
    try editor.set(Self.units, to: "fahrenheit")
    #expect(told.count == 2)
  }

  /// `vivarium settings` beside a running app: a store of its own over the
  /// same file, whose save the app takes at its next look.
  @Test func aChangeSavedByAnotherProcessReachesTheAppAtItsNextLook() throws {
    let data = try TemporaryDirectory()
    let runtime = HostRuntime(catalog: BuildProducts.demoCatalog, services: TestServices.make(in: data))
    var told: [String] = []
    runtime.services.observeSettings(by: runtime) { key, _ in told.append(key) }
    let beside = SettingsEditor(dataDirectory: data.path, ownership: runtime.services.settingOwnership) { _ in }
    try beside.set(Self.units, to: "fahrenheit")
    #expect(runtime.services.setting(Self.units) == .string("celsius"), "not looked yet")
    runtime.services.takeSettingsSavedElsewhere()
    #expect(runtime.services.setting(Self.units) == .string("fahrenheit") && told == [Self.units])
    runtime.services.takeSettingsSavedElsewhere()
    #expect(told == [Self.units], "nothing new: nobody told again")
  }

  @Test func theSettingsScreenChangesAChoiceAndResetsIt() async throws {
    let data = try TemporaryDirectory()
    let runtime = HostRuntime(catalog: BuildProducts.demoCatalog, services: TestServices.make(in: data))
    try await runtime.open(SettingsScreen.urn)
    await runtime.settleAll()
    let screen = try #require(runtime.top)
    #expect(screen.urn == SettingsScreen.urn && screen.pluginPath.isEmpty, "a screen of the host's own")
    try await runtime.act(.select(list: SettingsScreen.listID, row: Self.units))
    try await runtime.act(.tap(button: SettingsScreen.choosePrefix + "fahrenheit"))
    #expect(runtime.services.setting(Self.units) == .string("fahrenheit"))
    #expect(screen.tree?.contains(.button(id: SettingsScreen.resetID, title: "Reset to default")) == true)
    try await runtime.act(.tap(button: SettingsScreen.resetID))
    #expect(try runtime.services.settingsEditor.row(Self.units).isDefault)
    #expect(screen.tree?.contains(.button(id: SettingsScreen.resetID, title: "Reset to default")) == false)
  }

  @Test func aNumberOrTextIsTypedInAFieldAndAWrongOneIsRefusedOnTheScreen() {
    let row = SettingsEditor.Row(
      plugin: "P", key: "p.count", kind: "int", values: "a whole number from 1 to 9", choices: [], defaultValue: "3",
      value: "3", isDefault: true, description: "A count.")
    let tree = SettingsScreen.tree([row], selected: row.key, typed: "12", said: (.negative, "refused"))
    #expect(tree.contains(.field(id: SettingsScreen.valueID, label: "Value", value: "12", placeholder: row.values)))
    #expect(tree.contains(.button(id: SettingsScreen.saveID, title: "Save")))
    #expect(!tree.contains(.button(id: SettingsScreen.resetID, title: "Reset to default")), "at its default")
    #expect(tree.contains(.notice(.negative, "refused")))
  }
}

/// The same, for a module in a plugin process of its own: the change comes
/// over the wire to the process's copy of the settings, and the module
/// that observes it draws again.
@Suite("Typed settings in a plugin process")
@MainActor
struct TypedSettingsProcessTests {
  @Test func theForecastRedrawsInTheUnitChosenWhereverItIsChosen() async throws {
    let host = try await FaultyHost(plugins: ["Weather"])
    host.runtime.services.permissions.allowances = [try PermissionAllowance.parse("Weather").get()]
    try await host.runtime.open("weather:London")
    var text = try await host.waitForText("°C")
    #expect(text.contains("9 °C, low 4 °C"), "\(text)")
    try host.runtime.services.settingsEditor.set(TypedSettingsTests.units, to: "fahrenheit")
    text = try await host.waitForText("°F")
    #expect(text.contains("49 °F, low 39 °F") && !text.contains("°C"), "\(text)")
    // Set back beside the app, as `vivarium settings` does, and looked at.
    let beside = SettingsEditor(dataDirectory: host.data.path, ownership: host.runtime.services.settingOwnership) { _ in
    }
    try beside.reset(TypedSettingsTests.units)
    host.runtime.services.takeSettingsSavedElsewhere()
    text = try await host.waitForText("°C")
    #expect(text.contains("9 °C, low 4 °C") && !text.contains("°F"), "\(text)")
  }
}

/// The app's log screen: this run's latest lines, filtered by plugin and
/// level with its buttons, in the terminal app and the page alike.
@Suite("The log screen")
@MainActor
struct LogScreenTests {
  @Test func theLogScreenShowsTheLinesOfThePluginAndLevelChosen() async throws {
    let data = try TemporaryDirectory()
    let runtime = HostRuntime(catalog: BuildProducts.demoCatalog, services: TestServices.make(in: data))
    runtime.services.logLine(.info, module: "wallet:preview", "balance read", by: "WalletPlugin")
    runtime.services.logLine(.error, module: "wallet:preview", "storage full", by: "WalletPlugin")
    runtime.services.logLine(.warning, module: "feed:home", "posts late", by: "FeedPlugin")
    try await runtime.open(LogScreen.urn)
    await runtime.settleAll()
    let screen = try #require(runtime.top)
    #expect(screen.urn == LogScreen.urn && screen.pluginPath.isEmpty, "a screen of the host's own")
    func shows(_ words: String) -> Bool {
      screen.tree?.contains { if case .text(let text, _) = $0 { text.contains(words) } else { false } } == true
    }
    #expect(shows("balance read") && shows("storage full") && shows("posts late"))
    try await runtime.act(.tap(button: LogScreen.pluginPrefix + "WalletPlugin"))
    #expect(shows("balance read") && shows("storage full") && !shows("posts late"))
    try await runtime.act(.tap(button: LogScreen.levelPrefix + LogLevel.error.rawValue))
    #expect(!shows("balance read") && shows("storage full"))
    try await runtime.act(.tap(button: LogScreen.allPluginsID))
    try await runtime.act(.tap(button: LogScreen.levelPrefix + LogLevel.warning.rawValue))
    #expect(shows("posts late") && shows("storage full") && !shows("balance read"))
    // A line logged while it is shown appears at the next look.
    runtime.services.logLine(.error, module: "feed:home", "feed gone", by: "FeedPlugin")
    (screen.module?.presenter as? LogScreen.Presenter)?.refresh()
    #expect(shows("feed gone"))
  }
}
