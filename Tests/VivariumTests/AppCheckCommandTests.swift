import Foundation
import Testing

@testable import VivariumHost

/// `vivarium check --app DIR` on the demo's plugin directory passes; with the
/// profile rebuilt taking its argument as an int, it fails naming both sides.
@Suite("vivarium check --app")
struct AppCheckCommandTests {
  struct Report: Decodable {
    let app: String?
    let modules: Int
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
    #expect(report.modules == 9)
    let text = try ProcessRunner.vivarium(["check", "--app", directory.path])
    #expect(text.stdout.hasSuffix("every link resolves\n"), "\(text.stdout)")
  }

  @Test func aPluginRebuiltWithAChangedArgumentTypeFailsNamingBothSides() throws {
    let directory = try BuildProducts.demoPluginDirectory()
    try FileManager.default.removeItem(atPath: directory.path + "/libProfile.so")
    try directory.copy(try SwiftPluginBuilder.changedProfile.get(), as: "libChangedProfile.so")
    let (report, status) = try check(directory.path)
    #expect(status == 1)
    #expect(report.failed)
    let finding = try #require(report.findings.first)
    #expect(report.findings.count == 1, "\(report.findings)")
    #expect(finding.name == "app.target-arguments")
    #expect(
      finding.message
        == "dashboard:home (libDashboard.so) pushes profile:{userID} passing {userID} as a string, but profile:{userID} (libChangedProfile.so) takes it as 'userID', an int"
    )
    #expect(finding.files == ["libDashboard.so", "libChangedProfile.so"].map { directory.path + "/" + $0 })
  }

  @Test func aMissingDirectoryOrPluginFilesBesideItAreUsageErrors() throws {
    let missing = try ProcessRunner.vivarium(["check", "--app", "/nonexistent/plugins"])
    #expect(missing.status == 2)
    #expect(missing.stderr.contains("--app takes a plugin directory, and '/nonexistent/plugins' is not one"))
    let both = try ProcessRunner.vivarium(["check", "--app", "/tmp", "libA.so"])
    #expect(both.status == 2)
    #expect(both.stderr.contains("--app checks a whole directory; give plugin files without it"))
  }
}
