import Foundation
import Testing
import ViperKit

@testable import VivariumLoading
@testable import VivariumRuntime
@testable import VivariumSupport
@testable import VivariumTools

@Suite("App manifest")
@MainActor
struct AppManifestTests {
  let dir: TemporaryDirectory

  init() throws {
    dir = try TemporaryDirectory()
  }

  private func manifest(_ json: String) throws -> Result<AppManifest, ManifestError>? {
    try dir.write(AppManifest.fileName, Data(json.utf8))
    return AppManifest.find(in: [dir.path])
  }

  @Test func readsNameStartAndScheme() throws {
    let found = try #require(try manifest(#"{"name": "Shop", "start": "login:form", "scheme": "shop"}"#)).get()
    #expect(found.name == "Shop")
    #expect(found.start == "login:form")
    #expect(found.scheme == "shop")
    #expect(found.path == dir.path + "/" + AppManifest.fileName)
  }

  @Test(
    arguments: [
      (#"{"name": "Shop"}"#, ManifestError.Kind.missingKey, #""start""#),
      ("not json", .notJSON, "JSON"),
      (#"{"name": "Shop", "start": "a:b", "scheme": "Bad Scheme"}"#, .badScheme, "'Bad Scheme'"),
    ])
  func malformedManifestSaysWhatToFix(json: String, kind: ManifestError.Kind, fact: String) throws {
    guard case .failure(let error)? = try manifest(json) else {
      Issue.record("expected a failure")
      return
    }
    #expect(error.kind == kind)
    #expect(error.reason.contains(fact), "the key, the format or the scheme: \(error.reason)")
  }

  /// A FIFO in its place used to hang every command that looks for it; a
  /// manifest anyone can write would choose what the app starts.
  @Test func aManifestThatIsNoTrustedFileIsRefusedNamingWhy() throws {
    let path = dir.path + "/" + AppManifest.fileName
    #expect(mkfifo(path, 0o600) == 0)
    let fifo = HangGuard.bounding("reading a FIFO as the app manifest") { AppManifest.find(in: [dir.path]) }
    guard case .failure(let refused)? = fifo else {
      Issue.record("a FIFO was read as an app manifest: \(String(describing: fifo))")
      return
    }
    #expect(refused.kind == .untrusted && refused.reason.contains("FIFO"), "\(refused.reason)")
    #expect(unlink(path) == 0)
    try dir.write(AppManifest.fileName, Data(#"{"name": "A", "start": "a:b"}"#.utf8))
    #expect(chmod(path, 0o666) == 0)
    guard case .failure(let writable)? = AppManifest.find(in: [dir.path]) else {
      Issue.record("a manifest anyone can write was used")
      return
    }
    #expect(writable.kind == .untrusted)
    #expect(writable.reason.contains("chmod go-w"), "the command that fixes it: \(writable.reason)")
    // Through a link, a good one is read.
    #expect(chmod(path, 0o644) == 0)
    let other = try TemporaryDirectory()
    #expect(symlink(path, other.path + "/" + AppManifest.fileName) == 0)
    #expect((try AppManifest.find(in: [other.path])?.get())?.name == "A")
  }

  @Test func noManifestIsNotAnError() {
    #expect(AppManifest.find(in: [dir.path]) == nil)
  }

  @Test func twoManifestsAreRefused() throws {
    let other = try TemporaryDirectory()
    try dir.write(AppManifest.fileName, Data(#"{"name": "A", "start": "a:b"}"#.utf8))
    try other.write(AppManifest.fileName, Data(#"{"name": "B", "start": "a:b"}"#.utf8))
    guard case .failure(let error)? = AppManifest.find(in: [dir.path, other.path]) else {
      Issue.record("two manifests should be refused")
      return
    }
    #expect(error.kind == .several)
    #expect(error.reason.contains(dir.path) && error.reason.contains(other.path), "both manifests: \(error.reason)")
  }

  @Test func runRefusesToStartOnABrokenManifest() throws {
    try dir.copy(BuildProducts.itemsList, as: "libItemsList.so")
    try dir.write(AppManifest.fileName, Data(#"{"name": "Shop"}"#.utf8))
    let result = try ProcessRunner.vivarium(["run", "--plugins", dir.path, "--data", dir.path + "/data"])
    #expect(result.status == 1)
    #expect(result.stderr.contains("\(dir.path)/vivarium-app.json") && result.stderr.contains(#""start""#))
  }
}

@Suite("Graphviz output")
@MainActor
struct GraphTests {
  @Test func theDemosFlowConnectsEveryScreenAndIsTheOneInTheReadme() throws {
    let directory = try BuildProducts.demoPluginDirectory()
    let result = try ProcessRunner.vivarium(["graph", "--plugins", directory.path])
    #expect(result.status == 0, "\(result.stderr)")
    let dot = result.stdout
    #expect(dot.hasPrefix("digraph vivarium {"))
    #expect(dot.contains(#""dashboard:home" -> "items:list" [label="tabs", arrowtail=odiamond"#))
    #expect(dot.contains(#""login:form" -> "dashboard:home" [label="replace", style=bold];"#))
    #expect(dot.contains(#""items:list" -> "items:detail:{itemID}" [label="push"];"#))
    #expect(dot.contains(#""wallet:preview" -> "wallet:topup" [label="present", style=dashed];"#))
    #expect(dot.contains(#"start -> "login:form";"#))
    #expect(dot.contains(#""login:form" [peripheries=2"#))
    #expect(!dot.contains("unreachable"), "every screen of the demo is connected")
    #expect(dot.contains(#"label="libWallet.so""#))
    let committed = try String(
      contentsOfFile: BuildProducts.repository + "/Plugins/demo-flow.dot", encoding: .utf8)
    #expect(
      dot == committed, "the demo's graph (README, docs/checking.md) is out of date: run Scripts/update-demo-graph")
  }

  /// 40 modules in 8 plugins: each plugin a cluster, each module one node;
  /// a module nothing declared leads to is marked, a pattern nothing answers shown.
  @Test func aLargeAppIsClusteredByPluginWithWhatIsUnreachableMarked() {
    let recorder = ProbeRecorder()
    let outcomes = (0..<8).map { plugin in
      let factories = (0..<5).map { module in
        let next = plugin * 5 + module + 1
        let opens: [NavigationTarget] = next < 39 ? [.push("app:m\(next)")] : [.present("app:missing")]
        return ProbeFactory(
          contract: Contract(urn: "app:m\(plugin * 5 + module)", summary: "One.", opens: opens), recorder: recorder
        ).factory
      }
      return PluginOutcome.loaded(
        LoadedPlugin(path: "/p/libP\(plugin).so", name: "P\(plugin)", sdkVersion: .current, factories: factories))
    }
    let flow = AppFlow(
      catalog: PluginCatalog(outcomes: outcomes), manifest: AppManifest(name: "Big", start: "app:m0", scheme: nil))
    let dot = GraphvizReport.flow(flow)
    #expect(dot.components(separatedBy: "subgraph cluster_").count - 1 == 8)
    #expect(dot.contains(#"label="libP7.so""#))
    #expect(dot.contains(#""app:m38" -> "app:missing" [label="present", style=dashed];"#))
    #expect(dot.contains(#""app:missing" [style="rounded,dashed", label="app:missing\n(no module answers)"];"#))
    #expect(
      dot.contains(
        #""app:m39" [style="rounded,dashed", color=gray50, fontcolor=gray40, label="app:m39\n(unreachable)"];"#))
    #expect(dot.components(separatedBy: "(unreachable)").count - 1 == 1)
    // With a scheme, a deep link reaches it: labelled as check --app names it.
    let linked = AppFlow(
      catalog: PluginCatalog(outcomes: outcomes), manifest: AppManifest(name: "Big", start: "app:m0", scheme: "big"))
    let linkedDot = GraphvizReport.flow(linked)
    #expect(linkedDot.contains(#"label="app:m39\n(deep-link-only)""#), "\(linkedDot)")
    #expect(AppCheck.findings(linked).contains { $0.name == "app.deep-link-only" && $0.module == "app:m39" })
  }

  @Test func liveTreeFromTheCommandLine() throws {
    let data = try TemporaryDirectory()
    _ = TestServices.make(in: data, signedIn: true)  // the dashboard's guard wants a user
    let result = try ProcessRunner.vivarium(
      ["graph", "--urn", "dashboard:home/feed:home/profile:ada", "--data", data.path])
    #expect(result.status == 0, "\(result.stderr)")
    let dot = result.stdout
    #expect(dot.contains(#"label="tabs"];"#))
    #expect(dot.contains(#"label="wallet"];"#))
    #expect(dot.contains(#"[style=dashed, label="push"];"#))
    #expect(dot.contains(#"profile:ada\nlibProfile.so"#))
  }

  /// A modal presented by an embedded module is drawn from that module,
  /// not from the screen it is embedded in.
  @Test func aModalsEdgeComesFromItsOpener() throws {
    let data = try TemporaryDirectory()
    _ = TestServices.make(in: data, signedIn: true)
    let result = try ProcessRunner.vivarium(
      ["graph", "--urn", "dashboard:home/feed:home/wallet:topup", "--data", data.path])
    #expect(result.status == 0, "\(result.stderr)")
    let lines = result.stdout.split(separator: "\n").map(String.init)
    func node(_ urn: String) -> String? {
      lines.first { $0.contains("label=\"\(urn)\\n") }?.trimmingCharacters(in: .whitespaces).split(separator: " ")
        .first.map(String.init)
    }
    let preview = try #require(node("wallet:preview"), "\(result.stdout)")
    let topUp = try #require(node("wallet:topup"), "\(result.stdout)")
    #expect(lines.contains("  \(preview) -> \(topUp) [style=dotted, label=\"present\"];"), "\(result.stdout)")
  }
}

/// Every demo module, opened and closed, leaves none of its roles alive.
@Suite("Leaks in the demo modules")
@MainActor
struct DemoLeakTests {
  @Test(
    arguments: [
      "login:form", "dashboard:home", "items:list", "items:detail:1", "products:search", "feed:home",
      "feed:home?style=compact", "wallet:preview", "wallet:topup", "profile:ada",
    ])
  func closingReleasesEveryRole(urn: String) async throws {
    let runtime = HostRuntime(catalog: BuildProducts.demoCatalog, services: try TestServices.make())
    try await runtime.open(urn)
    let roles = runtime.nodes.flatMap(\.roles)
    #expect(roles.count >= 2)
    runtime.shutdown()
    let alive = roles.filter(\.isAlive).map(\.typeName)
    #expect(alive.isEmpty, "still alive after detach: \(alive)")
  }
}

/// `vivarium routes` as text says what `--json` says of each contract.
@Suite("The routes catalog")
@MainActor
struct RoutesTextTests {
  @Test func theTextNamesRequiresOpensGuardsAndSettingsAsTheJSONDoes() {
    let text = RoutesReport(catalog: BuildProducts.demoCatalog).text(style: .plain, width: 100)
    let dashboard = text.components(separatedBy: "dashboard:home  ").dropFirst().first ?? ""
    let section = dashboard.components(separatedBy: "\nfeed:home").first ?? ""
    for heading in ["requires:", "opens:", "guards:"] {
      #expect(section.contains("    \(heading)"), "\(heading) in \(section)")
    }
    #expect(section.contains("replace login:form"), "\(section)")
    #expect(section.contains("session.user"), "the guard's setting: \(section)")
    let login = text.components(separatedBy: "login:form  ").dropFirst().first ?? ""
    #expect(login.contains("    settings:"), "\(login)")
  }
}
