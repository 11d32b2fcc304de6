import Foundation
import Testing
import ViperKit
import ViperKitHosting
import VivariumLoading

@testable import VivariumRuntime

/// Permissions the person grants (issue 30): a use of one never granted is
/// refused and logged, a grant is kept for the plugin's file and the name
/// it declares (not for the name alone), the person is asked once however
/// many uses wait, and a build that asks for more is widened.
/// A clock for tests that moves a second at each reading.
@MainActor
final class Ticks {
  private var now = 1_000.0
  func next() -> Double {
    now += 1
    return now
  }
}

@Suite("Permissions")
@MainActor
struct PermissionTests {
  private let data: TemporaryDirectory
  private let weather: PluginIdentity
  private let open = PluginPermission(.http, "api.open-meteo.com")

  init() throws {
    data = try TemporaryDirectory()
    weather = PluginIdentity(name: "WeatherPlugin", path: data.path + "/libWeather.so", hosts: ["api.open-meteo.com"])
  }

  /// A gate whose clock moves a second at each reading: uses kept in two
  /// files are told apart by their times.
  private func gate() -> PermissionGate {
    let clock = Ticks()
    return PermissionGate(dataDirectory: data.path, saveRefusal: nil) { clock.next() }
  }

  /// Refusals of one kind are counted, not each logged, and no number of
  /// them pushes an allowed use out of the log.
  @Test func refusalsAreCountedAndNeverPushAnAllowedUseOut() async throws {
    let gate = gate()
    gate.allowances = [try PermissionAllowance.parse("Weather:http:api.open-meteo.com").get()]
    #expect(await gate.use(open, by: weather, for: "GET https://api.open-meteo.com/v1", asking: nil) == .allowed)
    gate.allowances = []
    let refusals = 40_000
    for index in 0..<refusals {
      gate.record(.notGranted, open, by: weather, for: "GET https://api.open-meteo.com/\(index)")
    }
    gate.flushRefusals()
    let uses = gate.log.uses().uses
    #expect(uses.first?.outcome == .allowed, "the one allowed use is still there")
    let refused = uses.filter { $0.outcome == .notGranted }
    #expect(refused.count <= refusals / PermissionGate.refusalsPerLine + 1, "\(refused.count) lines")
    #expect(refused.map { $0.count ?? 1 }.reduce(0, +) == refusals, "every refusal counted")
    // Hosts made up one after another are one kind: no line, and no count
    // kept, per name.
    for index in 0..<5_000 {
      gate.record(
        .undeclared, PluginPermission(.http, "r\(index).example"), by: weather, for: "GET https://r\(index).example/")
    }
    gate.flushRefusals()
    let undeclared = gate.log.uses().uses.filter { $0.outcome == .undeclared }
    #expect(undeclared.count <= 5_000 / PermissionGate.refusalsPerLine + 1, "\(undeclared.count) lines")
    #expect(undeclared.map { $0.count ?? 1 }.reduce(0, +) == 5_000)
  }

  @Test func aPermissionNeverGrantedIsRefusedWhereNobodyIsAskedAndTheUseIsLogged() async throws {
    let gate = gate()
    #expect(await gate.use(open, by: weather, for: "GET https://api.open-meteo.com/v1", asking: nil) == .notGranted)
    gate.allowances = [try PermissionAllowance.parse("Weather:http:api.open-meteo.com").get()]
    #expect(await gate.use(open, by: weather, for: "GET https://api.open-meteo.com/v2", asking: nil) == .allowed)
    let uses = gate.log.uses().uses
    #expect(uses.map(\.outcome) == [.notGranted, .allowed])
    #expect(uses.map(\.permission) == ["http:api.open-meteo.com", "http:api.open-meteo.com"])
    #expect(uses.last?.what == "GET https://api.open-meteo.com/v2" && uses.last?.plugin == "WeatherPlugin")
    // --allow grants for the session only: nothing was kept.
    #expect(PermissionStore(dataDirectory: data.path).decision(open, for: weather) == .undecided)
  }

  @Test func theAnswerIsAskedOnceForUsesWaitingTogetherAndKeptForTheFileAndTheName() async throws {
    let gate = gate()
    let asker = PermissionAsker()
    var asked = 0
    asker.ask = { _, _ in
      asked += 1
      await Task.yield()
      return .granted
    }
    async let first = gate.use(open, by: weather, for: "GET /1", asking: asker)
    async let second = gate.use(open, by: weather, for: "GET /2", asking: asker)
    #expect(await [first, second] == [.allowed, .allowed])
    #expect(asked == 1)
    let store = PermissionStore(dataDirectory: data.path)
    #expect(store.decision(open, for: weather) == .granted)
    // Another file declaring the same name gets nothing of it.
    let impostor = PluginIdentity(name: "WeatherPlugin", path: data.path + "/libOther.so", hosts: weather.hosts)
    #expect(store.decision(open, for: impostor) == .undecided)
    // Nor does the same file declaring another name.
    let renamed = PluginIdentity(name: "Other", path: weather.path, hosts: weather.hosts)
    #expect(store.decision(open, for: renamed) == .undecided)
    // Revoked meanwhile (`vivarium permissions revoke`): the next use is not granted.
    var revoking = PermissionStore(dataDirectory: data.path)
    try revoking.decide(.undecided, [open], for: weather)
    asker.ask = nil
    #expect(await gate.use(open, by: weather, for: "GET /3", asking: asker) == .notGranted)
  }

  @Test func aDenialIsKeptAndRefusesWithoutAskingAgain() async throws {
    var store = PermissionStore(dataDirectory: data.path)
    try store.decide(.denied, [open], for: weather)
    let gate = gate()
    let asker = PermissionAsker()
    asker.ask = { _, _ in
      Issue.record("asked again about a denied permission")
      return .granted
    }
    #expect(await gate.use(open, by: weather, for: "GET /", asking: asker) == .denied)
  }

  @Test func aBuildDeclaringAPermissionNeverDecidedIsWidenedUntilThePersonDecides() throws {
    var store = PermissionStore(dataDirectory: data.path)
    #expect(store.widening(weather).isEmpty, "a plugin never decided about is asked, not widened")
    try store.decide(.granted, [open], for: weather)
    let wider = PluginIdentity(name: weather.name, path: weather.path, hosts: ["api.open-meteo.com", "evil.example"])
    #expect(store.widening(wider) == [PluginPermission(.http, "evil.example")])
    #expect(store.widening(weather).isEmpty, "the same permissions are not wider")
    let allowed = [try PermissionAllowance.parse("libWeather.so:http:evil.example").get()]
    #expect(store.widening(wider, allowances: allowed).isEmpty, "--allow covers what it widens")
    try store.decide(.denied, [PluginPermission(.http, "evil.example")], for: wider)
    #expect(store.widening(wider).isEmpty, "decided, even when denied")
  }

  /// Deciding about one of a build's permissions is deciding about that
  /// build: the others it declared, left undecided, do not make the same
  /// build wider; only a build declaring one it did not is.
  @Test func decidingOneOfABuildsPermissionsDoesNotMakeTheSameBuildWider() throws {
    var store = PermissionStore(dataDirectory: data.path)
    let three = PluginIdentity(name: weather.name, path: weather.path, hosts: ["a.example", "b.example", "c.example"])
    try store.decide(.denied, [PluginPermission(.http, "a.example")], for: three)
    #expect(store.widening(three).isEmpty, "the same build, two permissions still undecided")
    #expect(store.decision(PluginPermission(.http, "b.example"), for: three) == .undecided, "asked at first use")
    let four = PluginIdentity(
      name: weather.name, path: weather.path, hosts: ["a.example", "b.example", "c.example", "d.example"])
    #expect(store.widening(four) == [PluginPermission(.http, "d.example")])
  }

  @Test func aDamagedStoreIsNeverOverwrittenAndGrantsNothing() throws {
    let path = data.path + "/permissions.json"
    try Data("{ not json".utf8).write(to: URL(fileURLWithPath: path))
    var store = PermissionStore(dataDirectory: data.path)
    #expect(store.damage?.contains(path) == true)
    #expect(throws: PermissionStoreError.self) { try store.decide(.granted, [open], for: weather) }
    #expect(String(decoding: FileManager.default.contents(atPath: path) ?? Data(), as: UTF8.self) == "{ not json")
  }

  /// The store and the log are read as every file of the data directory
  /// is: a FIFO in their place neither hangs the host nor counts as read.
  @Test func aFIFOInPlaceOfTheStoreOrTheLogIsRefusedWithoutWaiting() throws {
    #expect(mkfifo(data.path + "/permissions.json", 0o600) == 0)
    #expect(mkfifo(data.path + "/permission-uses.jsonl", 0o600) == 0)
    let store = PermissionStore(dataDirectory: data.path)
    #expect(store.damage?.contains("FIFO") == true, "\(store.damage ?? "no damage")")
    #expect(store.decision(open, for: weather) == .undecided)
    let log = PermissionLog(dataDirectory: data.path).uses()
    #expect(log.uses.isEmpty && log.problems.count == 1 && log.problems[0].contains("FIFO"), "\(log.problems)")
  }

  @Test func allowancesAndPermissionsParseAndNonsenseIsRefusedNamingIt() throws {
    #expect(PluginPermission(parsing: "http:API.Example.com") == PluginPermission(.http, "api.example.com"))
    #expect(PluginPermission(parsing: "files:/etc") == nil)
    #expect(PluginPermission(parsing: "http:") == nil)
    let all = try PermissionAllowance.parse("WeatherPlugin").get()
    #expect(all.grants(open, to: weather))
    #expect(try PermissionAllowance.parse(weather.path + ":http:api.open-meteo.com").get().grants(open, to: weather))
    #expect(!(try PermissionAllowance.parse("Feed:http:api.open-meteo.com").get().grants(open, to: weather)))
    guard case .failure(let error) = PermissionAllowance.parse("Weather:http") else {
      Issue.record("'Weather:http' parsed")
      return
    }
    #expect(error.description.contains("'Weather:http'"))
  }
}

/// `vivarium permissions`, as a person runs it.
@Suite("The permissions command")
struct PermissionsCommandTests {
  @Test func grantListDenyAndRevokeByTheFileNameThenTheLogOfUses() throws {
    let plugins = try BuildProducts.demoPluginDirectory()
    let data = try TemporaryDirectory()
    let base = ["--plugins", plugins.path, "--data", data.path]
    let listed = try ProcessRunner.vivarium(["permissions", "--json"] + base)
    #expect(listed.status == 0, "\(listed.stderr)")
    #expect(listed.stdout.contains("\"not-decided\"") && listed.stdout.contains("http:api.open-meteo.com"))
    let granted = try ProcessRunner.vivarium(["permissions", "grant", "Weather"] + base)
    #expect(granted.status == 0, "\(granted.stderr)")
    let text = try ProcessRunner.vivarium(["permissions"] + base)
    #expect(text.stdout.contains("http:api.open-meteo.com  granted"), "\(text.stdout)")
    // A script that opens the forecast now gets it, and the use is logged.
    let script = data.path + "/forecast.vivarium"
    try Data("open weather:London\n".utf8).write(to: URL(fileURLWithPath: script))
    let run = try ProcessRunner.vivarium(["run", "--script", script] + base)
    #expect(run.status == 0 && run.stdout.contains("°C"), "\(run.stdout)\(run.stderr)")
    let log = try ProcessRunner.vivarium(["permissions", "--log", "--json", "--data", data.path])
    #expect(
      log.stdout.contains("\"allowed\"") && log.stdout.contains("GET https://api.open-meteo.com"), "\(log.stdout)")
    // Mistakes: a permission it does not declare, a plugin that is not there, an unknown action.
    let undeclared = try ProcessRunner.vivarium(["permissions", "grant", "Weather", "http:evil.example"] + base)
    #expect(undeclared.status == 1 && undeclared.stderr.contains("http:evil.example"))
    let nobody = try ProcessRunner.vivarium(["permissions", "deny", "Nobody"] + base)
    #expect(nobody.status == 1 && nobody.stderr.contains("'Nobody'"))
    // A misspelt plugin or action gets the closest one suggested.
    let misspelt = try ProcessRunner.vivarium(["permissions", "grant", "Waether"] + base)
    #expect(misspelt.status == 1 && misspelt.stderr.contains("did you mean 'Weather"), "\(misspelt.stderr)")
    let action = try ProcessRunner.vivarium(["permissions", "grnat", "Weather"] + base)
    #expect(action.status == 2 && action.stderr.contains("'grnat'"))
    #expect(action.stderr.contains("did you mean 'grant'"), "\(action.stderr)")
    let revoked = try ProcessRunner.vivarium(["permissions", "revoke", "libWeather.so"] + base)
    #expect(revoked.status == 0)
    let again = try ProcessRunner.vivarium(["run", "--script", script] + base)
    #expect(again.stdout.contains("notGranted") || again.stdout.contains("not granted"), "\(again.stdout)")
    // --allow naming no loaded plugin, or a permission it does not declare, is an error, not ignored.
    let unknown = try ProcessRunner.vivarium(["run", "--script", script, "--allow", "weather"] + base)
    #expect(unknown.status == 1 && unknown.stderr.contains("'weather'"), "\(unknown.stderr)")
    let wider = try ProcessRunner.vivarium(["run", "--script", script, "--allow", "Weather:http:evil.example"] + base)
    #expect(wider.status == 1 && wider.stderr.contains("http:evil.example"), "\(wider.stderr)")
  }

  /// A decision about a permission an earlier build declared is listed as
  /// such, and can be forgotten; a build asking for more is listed as kept off.
  @Test func decisionsAboutAnEarlierBuildAreListedAndRevokedAndAWidenedPluginIsMarked() throws {
    let plugins = try BuildProducts.demoPluginDirectory()
    let data = try TemporaryDirectory()
    let base = ["--plugins", plugins.path, "--data", data.path]
    var store = PermissionStore(dataDirectory: data.path)
    let earlier = PluginIdentity(name: "WeatherPlugin", path: plugins.path + "/libWeather.so", hosts: ["old.example"])
    try store.decide(.granted, [PluginPermission(.http, "old.example")], for: earlier)
    let listed = try ProcessRunner.vivarium(["permissions"] + base)
    #expect(listed.stdout.contains("kept off") && listed.stdout.contains("no longer declared"), "\(listed.stdout)")
    let run = try ProcessRunner.vivarium(["render", "weather:London"] + base)
    #expect(
      run.status == 1 && run.stderr.contains("permissions grant Weather http:api.open-meteo.com"), "\(run.stderr)")
    // The command it names works as written: with the directories this one ran on.
    #expect(
      run.stderr.contains("--plugins \(plugins.path) --data \(data.path)'"), "the directories named: \(run.stderr)")
    let revoked = try ProcessRunner.vivarium(["permissions", "revoke", "Weather", "http:old.example"] + base)
    #expect(revoked.status == 0, "\(revoked.stderr)")
    #expect(PermissionStore(dataDirectory: data.path).decided(for: earlier).isEmpty)
  }
}

/// A rebuilt plugin (`--watch`) whose new build asks for a permission never
/// decided is refused as at load: the running build stays.
@Suite("Permissions on reload")
@MainActor
struct PermissionReloadTests {
  @Test func aReloadThatWidensThePermissionsIsRefusedNamingThem() async throws {
    let data = try TemporaryDirectory()
    let runtime = HostRuntime(catalog: BuildProducts.demoCatalog, services: TestServices.make(in: data))
    defer { runtime.shutdown() }
    let weather = try #require(runtime.catalog.loaded.first { $0.name == "WeatherPlugin" })
    // The person decided about an earlier build that asked for another host only.
    var store = PermissionStore(dataDirectory: data.path)
    let earlier = PluginIdentity(name: weather.name, path: weather.path, hosts: ["old.example"])
    try store.decide(.granted, [PluginPermission(.http, "old.example")], for: earlier)
    let reload = await runtime.host.reload(.loaded(weather))
    #expect(!reload.accepted)
    #expect(reload.problems.joined().contains("http:api.open-meteo.com"), "\(reload.problems)")
    // Granted for the session, the same build is taken.
    runtime.services.permissions.allowances = [try PermissionAllowance.parse("Weather").get()]
    #expect(await runtime.host.reload(.loaded(weather)).accepted)
  }

  /// A new file that claims the name of a plugin loaded is refused as at
  /// load, and the plugin whose name it claims keeps running.
  @Test func aReloadClaimingAnotherPluginsNameIsRefusedAndTheOtherStays() async throws {
    let data = try TemporaryDirectory()
    let runtime = HostRuntime(catalog: BuildProducts.demoCatalog, services: TestServices.make(in: data))
    defer { runtime.shutdown() }
    let recorder = ProbeRecorder()
    let impostor = LoadedPlugin(
      path: "/elsewhere/libImpostor.so", name: "WeatherPlugin", sdkVersion: .current,
      factories: [
        ProbeFactory(contract: Contract(urn: "impostor:home", summary: "Claims a name."), recorder: recorder).factory
      ]
    )
    let reload = await runtime.host.reload(.loaded(impostor))
    #expect(!reload.accepted)
    #expect(reload.problems.joined().contains("'WeatherPlugin'"), "\(reload.problems)")
    #expect(runtime.catalog.loaded.contains { $0.name == "WeatherPlugin" && $0.path != impostor.path })
    #expect(runtime.catalog.routes.contains { $0.pattern.text == "weather:{city}" })
  }
}

/// While the person is asked, no business service call's deadline runs:
/// the time they take is not held against a provider.
@Suite("Deadlines held while the person is asked")
@MainActor
struct DeadlineHoldTests {
  @Test func aDeadlineHeldDoesNotExpireAndMovesOnByTheTimeHeld() async {
    let clock = ModuleClock(.virtual(start: 0))
    let deadlines = ServiceDeadlines(clock: clock)
    var expired: [Int] = []
    let settle = { for _ in 0..<20 { await Task.yield() } }
    _ = deadlines.add(in: 5) { expired.append(1) }
    await clock.advance(by: 2, settle: settle)
    deadlines.hold()
    // The person takes 30 s to answer.
    await clock.advance(by: 30, settle: settle)
    #expect(expired.isEmpty, "expired while held")
    deadlines.release()
    // 3 s of its 5 were left: not yet at 2 more, at 3.
    await clock.advance(by: 2, settle: settle)
    #expect(expired.isEmpty)
    await clock.advance(by: 1.5, settle: settle)
    #expect(expired == [1])
  }
}
