import Foundation
import Testing
import VivariumTools

@Suite("Plugins of your own")
@MainActor
struct ThirdPartyTests {
  @Test(
    arguments: [
      ("weather", "is not a plugin name"), ("Weather Now", "is not a plugin name"), ("9Lives", "is not a plugin name"),
      ("ViperKit", "is taken by the SDK"), (String(repeating: "A", count: 41), "is not a plugin name"),
    ])
  func badNamesAreRefused(name: String, reason: String) {
    #expect {
      try PluginScaffold(name: name, urn: "a:b", sdkPath: "/sdk")
    } throws: { error in
      (error as? PluginScaffold.ScaffoldError)?.message.contains(reason) == true
    }
  }

  @Test func badURNIsRefusedWithTheURNError() {
    #expect {
      try PluginScaffold(name: "Weather", urn: "weather:{}", sdkPath: "/sdk")
    } throws: { error in
      let message = (error as? PluginScaffold.ScaffoldError)?.message ?? ""
      return message.contains("--urn") && message.contains("'weather:{}'")
    }
  }

  /// The module pushes itself with `?entry=N`, so a placeholder of that name
  /// would give its contract two arguments named alike.
  @Test func aPlaceholderNamedLikeTheEntryArgumentIsRefused() {
    #expect {
      try PluginScaffold(name: "Things", urn: "things:{entry}", sdkPath: "/sdk")
    } throws: { error in
      let message = (error as? PluginScaffold.ScaffoldError)?.message ?? ""
      return message.contains("--urn") && message.contains("{entry}")
    }
  }

  @Test func writesEveryRoleATestAndAReadme() throws {
    let dir = try TemporaryDirectory()
    let scaffold = try PluginScaffold(name: "Weather", urn: "weather:today:{city}", sdkPath: "/opt/vivarium/Host/SDK")
    try scaffold.write(to: dir.path + "/Weather")
    let files = Set(try FileManager.default.subpathsOfDirectory(atPath: dir.path + "/Weather"))
    for role in ["Contract", "View", "Presenter", "Interactor", "Router", "Factory"] {
      #expect(files.contains("Sources/Weather/Weather\(role).swift"), "missing \(role)")
    }
    #expect(
      files.isSuperset(of: ["Package.swift", "README.md", "exports.map", "Tests/WeatherTests/WeatherTests.swift"]))
    let manifest = try String(contentsOfFile: dir.path + "/Weather/Package.swift", encoding: .utf8)
    #expect(manifest.contains(#".package(path: "/opt/vivarium/Host/SDK")"#))
    #expect(manifest.contains(#".product(name: "ViperKitTestKit", package: "TestKit")"#))
    let contract = try String(
      contentsOfFile: dir.path + "/Weather/Sources/Weather/WeatherContract.swift", encoding: .utf8)
    #expect(contract.contains(#"urn: "weather:today:{city}""#))
    #expect(contract.contains(#".required("city", .string"#))
    #expect(scaffold.sampleURN == "weather:today:sample")
  }

  /// As the guide says: the factory reads its argument and throws the SDK's
  /// build error when it is missing, instead of drawing a placeholder.
  @Test func theFactoryReadsItsArgumentsAndRefusesAMissingOne() throws {
    let dir = try TemporaryDirectory()
    try PluginScaffold(name: "Weather", urn: "weather:{default}:{city}", sdkPath: "/sdk").write(to: dir.path + "/W")
    let factory = try String(contentsOfFile: dir.path + "/W/Sources/Weather/WeatherFactory.swift", encoding: .utf8)
    #expect(factory.contains(#"guard let city = context.arguments.string("city") else {"#))
    #expect(factory.contains(#"guard let `default` = context.arguments.string("default") else {"#))
    #expect(
      factory.contains(
        #"throw ModuleBuildError("city is missing; open the module as weather:{default}:{city}")"#))
    #expect(factory.contains(#"details: ["default: \(`default`)", "city: \(city)"]"#))
    #expect(!factory.contains(#"?? "?""#))
  }

  /// `vivarium new NAME --service SERVICE`: the interface, the provider and
  /// the consumer side by side, each plugin depending on the interface by a
  /// relative path; checked as written, without building (the smoke test
  /// builds them).
  @Test func writesAServiceInThreePackages() throws {
    let dir = try TemporaryDirectory()
    let result = try ProcessRunner.vivarium(["new", "Tides", "--service", "tides", "--dir", dir.path + "/tides"])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stdout.contains("vivarium render tides:ask:hello --plugins Tides/.build/debug/libTides.so"))
    let root = dir.path + "/tides"
    let files = Set(try FileManager.default.subpathsOfDirectory(atPath: root))
    let expected: Set<String> = [
      "README.md", "TidesInterface/Package.swift", "TidesInterface/Sources/TidesInterface/TidesService.swift",
      "Tides/Package.swift", "Tides/exports.map", "Tides/Sources/Tides/TidesProvider.swift",
      "Tides/Sources/Tides/TidesAbout.swift", "Tides/Sources/TidesEntryPoint/TidesEntryPoint.swift",
      "Tides/Sources/TidesManifest/main.swift", "Tides/Plugins/Manifest/Manifest.swift",
      "Tides/Tests/TidesTests/TidesTests.swift", "TidesConsumer/Package.swift", "TidesConsumer/exports.map",
      "TidesConsumer/Sources/TidesConsumerEntryPoint/TidesConsumerEntryPoint.swift",
      "TidesConsumer/Sources/TidesConsumerManifest/main.swift", "TidesConsumer/Plugins/Manifest/Manifest.swift",
      "TidesConsumer/Tests/TidesConsumerTests/TidesConsumerTests.swift",
    ]
    #expect(expected.subtracting(files).isEmpty, "missing: \(expected.subtracting(files).sorted())")
    for role in ["Contract", "View", "Presenter", "Interactor", "Factory"] {
      #expect(files.contains("TidesConsumer/Sources/TidesConsumer/TidesConsumer\(role).swift"), "missing \(role)")
    }
    func read(_ path: String) throws -> String { try String(contentsOfFile: root + "/" + path, encoding: .utf8) }
    let sdk = BuildProducts.repository + "/Host/SDK"
    #expect(try read("TidesInterface/Package.swift").contains(".package(path: \"\(sdk)\")"))
    let interface = try read("TidesInterface/Sources/TidesInterface/TidesService.swift")
    #expect(interface.contains("public enum TidesService: ServiceInterface {"))
    #expect(interface.contains(#"public static let name = "tides""#))
    #expect(interface.contains(#"ServiceOperation<TidesQuery, TidesAnswer>("#))
    #expect(interface.contains("failure: TidesFailure.self"))
    for plugin in ["Tides", "TidesConsumer"] {
      let manifest = try read(plugin + "/Package.swift")
      #expect(manifest.contains(#".package(path: "../TidesInterface")"#), "\(plugin)")
      #expect(manifest.contains(".package(path: \"\(sdk)/TestKit\")"), "\(plugin)")
      #expect(manifest.contains(#".product(name: "TidesInterface", package: "TidesInterface")"#), "\(plugin)")
    }
    let provider = try read("Tides/Sources/Tides/TidesProvider.swift")
    #expect(provider.contains("final class TidesProvider: ServiceProvider {"))
    #expect(provider.contains("func answer(_ answers: inout ServiceAnswers<TidesService>) {"))
    #expect(provider.contains("public static var providers: [any ServiceProvider.Type] { [TidesProvider.self] }"))
    let providerTests = try read("Tides/Tests/TidesTests/TidesTests.swift")
    #expect(providerTests.contains("fake.provide(TidesProvider.self)"))
    #expect(providerTests.contains("Conformance.run(providers: TidesPlugin.providers)"))
    let consumer = "TidesConsumer/Sources/TidesConsumer/TidesConsumer"
    #expect(try read(consumer + "Contract.swift").contains(#"urn: "tides:ask:{query}""#))
    #expect(try read(consumer + "Contract.swift").contains(#"requires: [.required(TidesService.self, "1.0"..<"2")]"#))
    // Only the interactor touches services, from its work.
    let interactor = try read(consumer + "Interactor.swift")
    #expect(interactor.contains("services.service(TidesService.self)"))
    #expect(interactor.contains("work.start("))
    #expect(interactor.contains("catch let failure as TidesFailure"))
    for role in ["Presenter", "View", "Contract"] {
      let source = try read(consumer + role + ".swift")
      #expect(!source.contains(".service(") && !source.contains("work.start("), "\(role) uses services")
    }
    let consumerTests = try read("TidesConsumer/Tests/TidesConsumerTests/TidesConsumerTests.swift")
    #expect(consumerTests.contains("fake.provide(TidesService.self)"))
  }

  @Test(
    arguments: [
      (["new", "Tides", "--service", "Tides"], "--service"), (["new", "Tides", "--service", "a:b"], "--service"),
      (["new", "Tides", "--service", "tides", "--urn", "t:x"], "not both"),
      (["new", "tides", "--service", "tides"], "is not a plugin name"),
    ])
  func badServicesAreRefused(arguments: [String], reason: String) throws {
    let result = try ProcessRunner.vivarium(arguments + ["--dir", "/nonexistent/never"])
    #expect(result.status == 2)
    #expect(result.stderr.contains(reason), "\(result.stderr)")
  }

  @Test func anExistingDirectoryIsNeverOverwritten() throws {
    let dir = try TemporaryDirectory()
    let kept = try dir.write("Package.swift", Data("// mine\n".utf8))
    let scaffold = try PluginScaffold(name: "Weather", urn: "weather:today", sdkPath: "/sdk")
    #expect(throws: PluginScaffold.ScaffoldError.self) { try scaffold.write(to: dir.path) }
    #expect(try String(contentsOfFile: kept, encoding: .utf8) == "// mine\n")
    #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["Package.swift"])
  }

  @Test func newRefusesTheCheckoutAndExistingDirectories() throws {
    let inside = try ProcessRunner.vivarium([
      "new", "Weather", "--urn", "w:x", "--dir", BuildProducts.repository + "/Weather",
    ])
    #expect(inside.status == 1)
    #expect(inside.stderr.contains(BuildProducts.repository + "/Weather"), "the directory refused: \(inside.stderr)")
    #expect(!FileManager.default.fileExists(atPath: BuildProducts.repository + "/Weather"))
    let missingURN = try ProcessRunner.vivarium(["new", "Weather"])
    #expect(missingURN.status == 2)
    #expect(missingURN.stderr.contains("--urn"), "\(missingURN.stderr)")
  }

  @Test func newRefusesALinkIntoTheCheckout() throws {
    let dir = try TemporaryDirectory()
    let link = dir.path + "/checkout"
    try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: BuildProducts.repository + "/Plugins")
    let result = try ProcessRunner.vivarium(["new", "Tides", "--urn", "w:x", "--dir", link + "/Tides"])
    #expect(result.status == 1)
    #expect(result.stderr.contains("/checkout/Tides"), "the directory refused: \(result.stderr)")
    #expect(!FileManager.default.fileExists(atPath: BuildProducts.repository + "/Plugins/Tides"))
  }

  @Test func sdkNamesThePackagesAndTheRule() throws {
    let result = try ProcessRunner.vivarium(["sdk", "--json"])
    #expect(result.status == 0)
    let info = try #require(JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
    #expect(info["packagePath"] as? String == BuildProducts.repository + "/Host/SDK")
    #expect(info["testKitPath"] as? String == BuildProducts.repository + "/Host/SDK/TestKit")
    // Every package the Package.swift of 'vivarium new' depends on.
    #expect(info["hostingPath"] as? String == BuildProducts.repository + "/Host/SDK/Hosting")
    // The range of SDK versions it loads: from the major's .0 to this SDK's minor version.
    let version = try #require((info["version"] as? String)?.split(separator: "."))
    let rule = try #require(info["compatibility"] as? String)
    #expect(rule.contains("\(version[0]).0") && rule.contains("\(version[0]).\(version[1])"), "\(rule)")
    let moved = try ProcessRunner.vivarium(["sdk", "--path"], environment: ["VIVARIUM_SDK": "/nowhere/SDK"])
    #expect(moved.stdout == "/nowhere/SDK\n")
    #expect(moved.status == 1)
  }

  @Test func pluginsTakesASingleFile() throws {
    // ItemsList provides the items service its module uses: it works alone.
    let result = try ProcessRunner.vivarium(["render", "items:list", "--plugins", BuildProducts.itemsList])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stdout.hasPrefix("Items\n") && result.stdout.contains("Buy milk"), "\(result.stdout)")
  }
}
