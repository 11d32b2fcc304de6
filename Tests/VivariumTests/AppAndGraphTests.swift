import Foundation
import Testing
import VivariumHost

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
      (#"{"name": "Shop"}"#, #"has no "start""#),
      ("not json", "is not valid JSON"),
      (#"{"name": "Shop", "start": "a:b", "scheme": "Bad Scheme"}"#, "has the scheme 'Bad Scheme'"),
    ])
  func malformedManifestSaysWhatToFix(json: String, reason: String) throws {
    guard case .failure(let error)? = try manifest(json) else {
      Issue.record("expected a failure")
      return
    }
    #expect(error.reason.contains(reason), "\(error.reason)")
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
    #expect(error.reason.contains("one of several app manifests"))
  }

  @Test func runRefusesToStartOnABrokenManifest() throws {
    try dir.copy(BuildProducts.itemsList, as: "libItemsList.so")
    try dir.write(AppManifest.fileName, Data(#"{"name": "Shop"}"#.utf8))
    let result = try ProcessRunner.vivarium(["run", "--plugins", dir.path, "--data", dir.path + "/data"])
    #expect(result.status == 1)
    #expect(result.stderr.contains("\(dir.path)/vivarium-app.json has no \"start\""))
  }
}

@Suite("Graphviz output")
@MainActor
struct GraphTests {
  @Test func catalogShowsWhichModuleEmbedsWhich() {
    let dot = GraphvizReport.catalog(BuildProducts.demoCatalog)
    #expect(dot.hasPrefix("digraph vivarium {"))
    #expect(dot.contains(#""dashboard:home" -> "items:list" [label="tabs (tabs)"];"#))
    #expect(dot.contains(#""feed:home" -> "wallet:preview" [label="wallet (single)"];"#))
    #expect(dot.contains(#"label="libWallet.so""#))
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
  func closingReleasesEveryRole(urn: String) throws {
    let runtime = HostRuntime(catalog: BuildProducts.demoCatalog, services: try TestServices.make())
    try runtime.open(urn)
    let roles = runtime.nodes.flatMap(\.roles)
    #expect(roles.count >= 2)
    runtime.shutdown()
    let alive = roles.filter(\.isAlive).map(\.typeName)
    #expect(alive.isEmpty, "still alive after detach: \(alive)")
  }
}
