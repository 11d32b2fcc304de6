import Foundation
import Testing
import ViperKit

@testable import VivariumLoading
@testable import VivariumTools

/// `vivarium check --app` proves an app's links from its contracts: each
/// broken variant fails with its finding, naming both sides and their files.
@Suite("Whole-app check")
@MainActor
struct AppCheckTests {
  static let login = Contract(
    urn: "login:form", summary: "Sign in.", opens: [.replace("home:main", arguments: ["user": .string])])
  static let home = Contract(
    urn: "home:main", summary: "Home.", arguments: [.optional("user", .string, default: .string("ada"), "Who.")],
    slots: [SlotSpec(name: "tabs", accepts: ["items:list"], kind: .tabs, description: "Tabs.")],
    opens: [.push("profile:{userID}", arguments: ["userID": .string])])
  static let items = Contract(
    urn: "items:list", summary: "Items.",
    opens: [
      .present(
        "items:pick", expects: [MessageSpec(name: "picked", fields: ["itemID": .int], description: "The pick.")])
    ])
  static let picker = Contract(
    urn: "items:pick", summary: "Pick.",
    outputs: [MessageSpec(name: "picked", fields: ["itemID": .int], description: "The pick.")])
  static let profile = Contract(
    urn: "profile:{userID}", summary: "Profile.", arguments: [.required("userID", .string, "Who.")])

  /// Findings for an app of one plugin file per contract, `plugins/NAME.so`
  /// named after each contract's namespace, starting at login:form.
  /// With a note of what stops working without each plugin named in `without`.
  func findings(
    _ contracts: [Contract], start: String? = "login:form", scheme: String? = nil,
    oldSDK: Set<String> = [], without: Set<String> = []
  ) -> [AppFinding] {
    let recorder = ProbeRecorder()
    let outcomes = contracts.enumerated().map { index, contract in
      let name = "\(contract.urn.prefix { $0 != ":" })\(index)"
      return PluginOutcome.loaded(
        LoadedPlugin(
          path: "plugins/lib\(name).so", name: name,
          sdkVersion: oldSDK.contains(contract.urn) ? ViperKitVersion(major: 2, minor: 3, patch: 0) : .current,
          factories: [ProbeFactory(contract: contract, recorder: recorder).factory]))
    }
    let manifest = start.map { AppManifest(name: "Probe app", start: $0, scheme: scheme, path: "plugins/app.json") }
    return AppCheck.findings(AppFlow(catalog: PluginCatalog(outcomes: outcomes), manifest: manifest), without: without)
  }

  static let app = [login, home, items, picker, profile]

  @Test func aSubscriptionNoPluginPublishesIsNotedAndOneSomePluginPublishesIsNot() {
    let recorder = ProbeRecorder()
    func plugin(_ name: String, publishes: [String] = [], subscribes: [String] = []) -> PluginOutcome {
      var plugin = LoadedPlugin(
        path: "plugins/lib\(name).so", name: name,
        factories: [
          ProbeFactory(contract: Contract(urn: "\(name.lowercased()):x", summary: "X."), recorder: recorder).factory
        ])
      plugin.topics = PluginTopics(publishes: publishes, subscribes: subscribes)
      return .loaded(plugin)
    }
    let outcomes = [
      plugin("Wallet", publishes: ["wallet.changed"], subscribes: ["wallet.changed"]),
      plugin("Feed", subscribes: ["wallet.changed", "feed.nobody"]),
    ]
    let flow = AppFlow(catalog: PluginCatalog(outcomes: outcomes), manifest: nil)
    let notes = AppCheck.findings(flow).filter { $0.name == "app.event-unpublished" }
    #expect(notes.count == 1 && notes[0].severity == .note && notes[0].files == ["plugins/libFeed.so"], "\(notes)")
    #expect(notes.first?.message.contains("'feed.nobody'") == true)
    // Without the wallet, its topic has no publisher either.
    let without = AppCheck.findings(flow, without: ["Wallet"]).filter { $0.name == "app.event-unpublished" }
    #expect(without.count == 2, "\(without)")
  }

  /// The app with home:main requiring a weather service, and the plugins
  /// named in `providers` each providing it at `version`.
  func serviceFindings(
    providers: [String], version: SemanticVersion = "1.0", chosen: [String: String]? = nil
  ) -> [AppFinding] {
    let recorder = ProbeRecorder()
    var home = Self.home
    home.requires = [ServiceRequirement(service: "weather", versions: VersionRange("1"..<"2"), isOptional: false)]
    var outcomes = [Self.login, home, Self.items, Self.picker, Self.profile].enumerated().map { index, contract in
      let name = "\(contract.urn.prefix { $0 != ":" })\(index)"
      return PluginOutcome.loaded(
        LoadedPlugin(
          path: "plugins/lib\(name).so", name: name,
          factories: [ProbeFactory(contract: contract, recorder: recorder).factory]))
    }
    for name in providers {
      var plugin = LoadedPlugin(
        path: "plugins/lib\(name).so", name: name,
        factories: [
          ProbeFactory(contract: Contract(urn: "\(name.lowercased()):x", summary: "X."), recorder: recorder).factory
        ])
      plugin.provides = [ServiceProvision(service: "weather", version: version, requires: [])]
      outcomes.append(.loaded(plugin))
    }
    let manifest = AppManifest(
      name: "Probe app", start: "login:form", scheme: "probe", providers: chosen, path: "plugins/app.json")
    return AppCheck.findings(AppFlow(catalog: PluginCatalog(outcomes: outcomes), manifest: manifest))
      .filter { $0.name.hasPrefix("app.service-") }
  }

  @Test func everyRequiredServiceHasExactlyOneProviderInRange() throws {
    #expect(serviceFindings(providers: ["Weather"]).isEmpty)
    let missing = try #require(serviceFindings(providers: []).first)
    #expect(missing.name == "app.service-missing" && missing.severity == .failed)
    #expect(missing.files == ["plugins/libhome1.so"])
    let old = try #require(serviceFindings(providers: ["Weather"], version: "2.1").first)
    #expect(old.name == "app.service-out-of-range")
    #expect(old.files == ["plugins/libhome1.so", "plugins/libWeather.so"])
    let two = try #require(serviceFindings(providers: ["Weather", "Meteo"]).first)
    #expect(two.name == "app.service-two-providers")
    #expect(two.files == ["plugins/libMeteo.so", "plugins/libWeather.so", "plugins/app.json"])
    #expect(two.fix.contains("providers"))
    #expect(serviceFindings(providers: ["Weather", "Meteo"], chosen: ["weather": "Meteo"]).isEmpty)
    #expect(
      serviceFindings(providers: ["Weather", "Meteo"], chosen: ["weather": "Sky"]).map(\.name).sorted() == [
        "app.service-two-providers", "app.service-unknown-choice",
      ])
  }

  /// A required string, compact or extended.
  static let style: ArgumentSpec = {
    var spec = ArgumentSpec.required("style", .string, "How.")
    spec.choices = [.string("compact"), .string("extended")]
    return spec
  }()

  @Test func anAppWhoseLinksAllResolvePasses() {
    #expect(findings(Self.app) == [])
  }

  /// For each plugin named, a note of what stops working when it is
  /// turned off: its files, the depending plugins' after it.
  @Test func whatStopsWorkingWithoutAPluginIsNoted() {
    let notes = findings(Self.app, without: ["items2", "items3", "login0"])
    #expect(notes.allSatisfy { $0.name == "app.without-plugin" && $0.severity == .note })
    let byPlugin = Dictionary(uniqueKeysWithValues: notes.map { ($0.files[0], $0) })
    #expect(byPlugin.keys.sorted() == ["libitems2", "libitems3", "liblogin0"].map { "plugins/\($0).so" })
    #expect(byPlugin["plugins/libitems2.so"]?.files == ["plugins/libitems2.so", "plugins/libhome1.so"])
    #expect(byPlugin["plugins/libitems2.so"]?.message.contains("home:main embeds items:list") == true)
    #expect(byPlugin["plugins/libitems3.so"]?.files == ["plugins/libitems3.so", "plugins/libitems2.so"])
    #expect(byPlugin["plugins/liblogin0.so"]?.files == ["plugins/liblogin0.so"], "only the start needs it")
  }

  @Test func aChangedArgumentTypeNamesBothSides() throws {
    let changed = Contract(
      urn: "profile:{userID}", summary: "Profile.", arguments: [.required("userID", .int, "Who.")])
    let found = findings([Self.login, Self.home, Self.items, Self.picker, changed])
    let finding = try #require(found.first)
    #expect(found.count == 1)
    #expect(finding.name == "app.target-arguments")
    #expect(finding.module == "home:main")
    #expect(finding.files == ["plugins/libhome1.so", "plugins/libprofile4.so"])
    // Both modules and files, the argument, and both types.
    #expect(
      ["home:main", "libhome1.so", "profile:{userID}", "libprofile4.so", "'userID'", "string", "int"].allSatisfy(
        finding.message.contains), "\(finding.message)")
    // What to change on either side.
    #expect(
      ["Contract.opens", "home:main", "profile:{userID}"].allSatisfy(finding.fix.contains), "\(finding.fix)")
  }

  @Test func argumentsATargetDoesNotTakeOrRequiresAndLacksAreFindings() {
    let profile = Contract(
      urn: "profile:{userID}", summary: "Profile.",
      arguments: [.required("userID", .string, "Who."), .required("tab", .string, "Which tab.")])
    let login = Contract(
      urn: "login:form", summary: "Sign in.", opens: [.replace("home:main", arguments: ["usr": .string])])
    let messages = findings([login, Self.home, Self.items, Self.picker, profile]).map(\.message)
    #expect(
      messages == [
        "login:form (liblogin0.so) replaces itself with home:main passing 'usr', which home:main (libhome1.so) does not take; it takes user (string, default ada)",
        "home:main (libhome1.so) pushes profile:{userID} without 'tab', which profile:{userID} (libprofile4.so) requires (string)",
      ])
  }

  @Test func aTargetNoModuleOrSeveralAnswerIsAFinding() {
    let login = Contract(urn: "login:form", summary: "Sign in.", opens: [.replace("hom:main"), .replace("home:main")])
    // Two plugins answering the same URNs: the host routes neither.
    let twin = Contract(urn: "profile:{name}", summary: "Twin.", arguments: [.required("name", .string, "Who.")])
    let found = findings([login, Self.home, Self.items, Self.picker, Self.profile, twin])
    #expect(found.map(\.name) == ["app.target-unresolved", "app.target-ambiguous"])
    // The module and file declaring the target, and the target.
    #expect(
      ["login:form", "liblogin0.so", #".replace("hom:main")"#].allSatisfy(found[0].message.contains),
      "\(found[0].message)")
    // Every module the pattern matches, with its file.
    #expect(
      ["profile:{userID} (libprofile4.so)", "profile:{name} (libprofile5.so)"].allSatisfy(found[1].message.contains),
      "\(found[1].message)")
    #expect(found[1].files == ["plugins/libhome1.so", "plugins/libprofile4.so", "plugins/libprofile5.so"])
  }

  @Test func anExpectedOutputTheTargetDoesNotDeclareAlikeIsAFinding() {
    let picker = Contract(
      urn: "items:pick", summary: "Pick.",
      outputs: [MessageSpec(name: "picked", fields: ["itemID": .string], description: "The pick.")])
    let found = findings([Self.login, Self.home, Self.items, picker, Self.profile])
    #expect(found.map(\.name) == ["app.expects"])
    // Both modules and files, the output, and both sides' fields.
    #expect(
      ["items:list (libitems2.so)", "'picked'", "items:pick (libitems3.so)", "itemID (string)", "itemID (int)"]
        .allSatisfy { found.first?.message.contains($0) == true }, "\(found)")
  }

  @Test func aSlotPatternIsCheckedLikeATarget() {
    let home = Contract(
      urn: "home:main", summary: "Home.", arguments: [.optional("user", .string, default: .string("ada"), "Who.")],
      slots: [SlotSpec(name: "tabs", accepts: ["items:lists"], kind: .tabs, description: "Tabs.")])
    let found = findings([Self.login, home, Self.items, Self.picker, Self.profile])
    #expect(found.first?.name == "app.target-unresolved", "\(found)")
    #expect(
      found.first?.message.contains("'tabs'") == true && found.first?.message.contains(#""items:lists""#) == true,
      "the slot and its pattern: \(found)")
  }

  @Test func theStartMustOpenAndEveryModuleBeReachable() {
    let start = findings(Self.app, start: "login:from")
    #expect(start.map(\.name) == ["app.start"])
    #expect(start.first?.files == ["plugins/app.json"])
    #expect(start.first?.message.contains("'login:from'") == true, "\(start)")
    #expect(findings(Self.app, start: nil).map(\.name) == ["app.manifest"])
    let lonely = Contract(urn: "lonely:screen", summary: "Nobody opens it.")
    let unreachable = findings(Self.app + [lonely])
    #expect(unreachable.map(\.name) == ["app.unreachable"])
    #expect(unreachable.first?.severity == .failed)
    let linked = findings(Self.app + [lonely], scheme: "probe")
    #expect(linked.map(\.name) == ["app.deep-link-only"])
    #expect(linked.first?.severity == .note)
  }

  @Test func aStartLinkMayNameTheSchemeItself() {
    #expect(findings(Self.app, start: "probe://login:form", scheme: "probe") == [])
    let other = findings(Self.app, start: "other://login:form", scheme: "probe")
    #expect(other.map(\.name) == ["app.start"])
    #expect(
      other.first?.message.contains("'other'") == true && other.first?.message.contains("'probe'") == true,
      "both schemes: \(other)")
  }

  @Test func aDeclaredPatternLeadsWhereTheRouterSendsItsURNs() {
    let new = Contract(urn: "profile:new", summary: "A new member.")
    let home = Contract(
      urn: "home:main", summary: "Home.", arguments: [.optional("user", .string, default: .string("ada"), "Who.")],
      slots: [SlotSpec(name: "tabs", accepts: ["items:list"], kind: .tabs, description: "Tabs.")],
      opens: [.push("profile:{userID}", arguments: ["userID": .string]), .present("profile:new")])
    #expect(findings([Self.login, home, Self.items, Self.picker, Self.profile, new]) == [])
  }

  @Test func aPluginBuiltBeforeDeclarationsLeavesReachUnproven() {
    // Built against 2.3: its slots are known, what it opens is not.
    var home = Self.home
    home.opens = []
    let found = findings([Self.login, home, Self.items, Self.picker, Self.profile], oldSDK: ["home:main"])
    #expect(found.map(\.name) == ["app.navigation-undeclared", "app.reach-unproven"])
    #expect(found.allSatisfy { $0.severity == .note })
    #expect(
      found[0].message.contains("libhome1.so") && found[0].message.contains("2.3.0"), "the file, its SDK: \(found[0])")
    #expect(found[1].module == "profile:{userID}")
  }

  @Test func aLiteralMustBeAValueTheTargetAccepts() {
    let feed = Contract(
      urn: "feed:{style}", summary: "Feed.",
      arguments: [Self.style])
    let home = Contract(
      urn: "home:main", summary: "Home.", arguments: [.optional("user", .string, default: .string("ada"), "Who.")],
      slots: [
        SlotSpec(name: "tabs", accepts: ["items:list"], kind: .tabs, description: "Tabs."),
        SlotSpec(name: "feed", accepts: ["feed:wide"], description: "The feed."),
      ],
      opens: [.push("profile:{userID}", arguments: ["userID": .string])])
    let found = findings([Self.login, home, Self.items, Self.picker, Self.profile, feed])
    #expect(
      found.map(\.message) == [
        "home:main (libhome1.so) embeds feed:wide, whose 'wide' is the argument 'style' of feed:{style} (libfeed5.so), which must be one of compact, extended"
      ])
  }

  @Test func theDocsExplainEveryFinding() throws {
    let page = try String(contentsOfFile: BuildProducts.repository + "/docs/checking.md", encoding: .utf8)
    for (name, _) in AppFinding.names {
      #expect(page.contains("| `\(name)` |"), "docs/checking.md, Checking a whole app: add a row for \(name)")
    }
  }
}
