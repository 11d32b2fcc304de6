import Foundation
import Testing

@testable import VivariumRuntime
@testable import VivariumSupport
@testable import VivariumTools

/// `vivarium check --app DIR` on the demo's plugin directory passes; with the
/// profile rebuilt taking its argument as an int, it fails naming both sides.
@Suite("vivarium check --app")
struct AppCheckCommandTests {
  struct Report: Decodable {
    let app: String?
    let modules: Int
    let services: Int
    let findings: [AppFinding]
    let failed: Bool
  }

  private func check(_ directory: String) throws -> (report: Report, status: Int32) {
    let result = try ProcessRunner.vivarium(["check", "--app", directory, "--json"])
    return (try JSONDecoder().decode(Report.self, from: Data(result.stdout.utf8)), result.status)
  }

  @Test func theDemoHoldsTogether() throws {
    let directory = try BuildProducts.demoPluginDirectory()
    let (report, status) = try check(directory.path)
    #expect(report.findings == [])
    #expect(status == 0)
    #expect(report.app == "Vivarium demo")
    #expect(report.modules == 10)
    // items, people, session and weather, each with its one provider.
    #expect(report.services == 4)
    let text = try ProcessRunner.vivarium(["check", "--app", directory.path])
    #expect(text.status == 0)
    #expect(
      text.stdout.contains("4 business services") && text.stdout.contains("every link resolves"), "\(text.stdout)")
  }

  @Test func aPluginTurnedOffOrNamedWithWithoutGetsANoteOfWhatStopsWorking() throws {
    let directory = try BuildProducts.demoPluginDirectory()
    let data = try TemporaryDirectory()
    func notes(_ extra: [String]) throws -> [AppFinding] {
      let result = try ProcessRunner.vivarium(
        ["check", "--app", directory.path, "--json", "--data", data.path] + extra)
      #expect(result.status == 0, "a note does not fail the check: \(result.stderr)")
      return try JSONDecoder().decode(Report.self, from: Data(result.stdout.utf8)).findings
    }
    let asked = try notes(["--without", "WalletPlugin"])
    #expect(asked.map(\.name) == ["app.without-plugin"])
    #expect(asked.first?.files.map(PathName.lastComponent) == ["libWallet.so", "libFeed.so"])
    // Turned off in the data directory: noted without asking, and still checked.
    var switches = PluginSwitches(dataDirectory: data.path)
    #expect(try switches.set("WeatherPlugin", enabled: false))
    let off = try notes([])
    #expect(off.map(\.name) == ["app.without-plugin"])
    #expect(off.first?.files.first.map(PathName.lastComponent) == "libWeather.so")
    let unknown = try ProcessRunner.vivarium(["check", "--app", directory.path, "--without", "Wallet"])
    #expect(unknown.status == 2, "a name no plugin declares")
    #expect(try ProcessRunner.vivarium(["check", BuildProducts.itemsList, "--without", "WalletPlugin"]).status == 2)
  }

  @Test func aPluginRebuiltWithAChangedArgumentTypeFailsNamingBothSides() throws {
    let directory = try BuildProducts.demoPluginDirectory()
    try FileManager.default.removeItem(atPath: directory.path + "/libProfile.so")
    try directory.copy(try SwiftPluginBuilder.changedProfile.get(), as: "libChangedProfile.so")
    let (report, status) = try check(directory.path)
    #expect(status == 1)
    #expect(report.failed)
    // The changed Profile provides no people service: the dashboard goes without (a note).
    #expect(report.findings.map(\.name).sorted() == ["app.service-optional-absent", "app.target-arguments"])
    let finding = try #require(report.findings.first { $0.name == "app.target-arguments" })
    // Both modules and files, the argument, and both types.
    #expect(
      ["dashboard:home (libDashboard.so)", "profile:{userID} (libChangedProfile.so)", "'userID'", "string", "int"]
        .allSatisfy(finding.message.contains), "\(finding.message)")
    #expect(finding.files == ["libDashboard.so", "libChangedProfile.so"].map { directory.path + "/" + $0 })
  }

  @Test func aMissingDirectoryOrPluginFilesBesideItAreUsageErrors() throws {
    let missing = try ProcessRunner.vivarium(["check", "--app", "/nonexistent/plugins"])
    #expect(missing.status == 2)
    #expect(missing.stderr.contains("'/nonexistent/plugins'") && missing.stderr.contains("--app"), "\(missing.stderr)")
    let both = try ProcessRunner.vivarium(["check", "--app", "/tmp", "libA.so"])
    #expect(both.status == 2)
    #expect(both.stderr.contains("--app") && both.stderr.contains("libA.so"), "\(both.stderr)")
  }

  @Test func aRefusedPluginAndABadManifestAreFindings() throws {
    let directory = try BuildProducts.demoPluginDirectory()
    try directory.write("libJunk.so", Data("not a library".utf8))
    try directory.write("vivarium-app.json", Data(#"{"name": "Demo"}"#.utf8))
    let (report, status) = try check(directory.path)
    #expect(status == 1)
    #expect(report.findings.map(\.name) == ["app.manifest", "app.plugin-refused"], "\(report.findings)")
    #expect(
      report.findings[0].message.contains("vivarium-app.json") && report.findings[0].message.contains(#""start""#),
      "the file, and the key it lacks: \(report.findings[0].message)")
    #expect(report.findings[1].files == [directory.path + "/libJunk.so"])
    #expect(
      report.findings[1].message.contains("libJunk.so") && report.findings[1].message.contains("(not-elf)"),
      "the file and the rejection's kind: \(report.findings[1].message)")
  }

  @Test func optionsForPluginFilesAreUsageErrorsWithApp() throws {
    let strict = try ProcessRunner.vivarium(["check", "--app", "/tmp", "--strictness", "10"])
    #expect(strict.status == 2)
    #expect(strict.stderr.contains("--strictness"), "\(strict.stderr)")
    let twice = try ProcessRunner.vivarium(["check", "--app", "/tmp", "--app", "/var"])
    #expect(twice.status == 2)
    #expect(twice.stderr.contains("--app"), "\(twice.stderr)")
  }
}
