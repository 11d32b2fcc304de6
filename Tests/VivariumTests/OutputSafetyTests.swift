import Foundation
import Testing
import ViperKitHosting
import ViperKitTestKit

/// Escape sequences from plugins, URNs, file names and typed text reach the
/// terminal shown, not obeyed, in every command and on stderr.
@Suite("vivarium output safety")
@MainActor
struct OutputSafetyTests {
  private func expectNoRawControls(_ text: String, _ comment: Comment? = nil) {
    #expect(
      !text.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" || (0x7F...0x9F).contains($0.value) }, comment)
  }

  /// Profile draws its userID: a percent-encoded OSC 52 (set the clipboard)
  /// and CSI 2J (clear the screen) in the URN.
  @Test(arguments: [[:], ["NO_COLOR": "1"]])
  func renderShowsEscapesFromTheURN(environment: [String: String]) throws {
    let result = try ProcessRunner.vivarium(
      ["render", "profile:%1B%5D52%3Bc%3BaGk%3D%07%1B%5B2J"], environment: environment)
    #expect(result.status == 0, "\(result.stderr)")
    expectNoRawControls(result.stdout)
    #expect(result.stdout.contains("\\e]52;c;aGk=\\x07\\e[2J"), "\(result.stdout)")
  }

  @Test func errorsShowEscapes() throws {
    let result = try ProcessRunner.vivarium(["render", "items:list", "--arg", "\u{1B}[2J=1"])
    #expect(result.status == 1)
    expectNoRawControls(result.stderr)
    #expect(result.stderr.contains("'\\e[2J'"), "\(result.stderr)")
    let command = try ProcessRunner.vivarium(["\u{1B}]52;c;aGk=\u{07}"])
    expectNoRawControls(command.stderr)
    #expect(command.stderr.contains("\\e]52;c;aGk=\\x07"), "\(command.stderr)")
  }

  @Test func aNonASCIICharacterInAURNIsNamedWhole() throws {
    let result = try ProcessRunner.vivarium(["render", "café:x"])
    #expect(result.status == 1)
    #expect(result.stderr.contains("'é'"), "the character, whole: \(result.stderr)")
    #expect(!result.stderr.contains("\u{FFFD}"))
  }

  /// A file named with a newline and ESC cannot forge a row or reach the
  /// terminal, in the plugins report, the routes, the warnings and the graph.
  @Test func aFileNameCannotForgeARow() throws {
    let dir = try TemporaryDirectory()
    try dir.copy(BuildProducts.itemsList, as: "lib\u{1B}[2J\n  loaded    fake.so")
    try dir.write("bad\u{1B}]0;title\u{07}\n.so", Data("text".utf8))
    let plugins = try ProcessRunner.vivarium(["plugins", "--plugins", dir.path])
    expectNoRawControls(plugins.stdout)
    #expect(!plugins.stdout.contains("\n  loaded    fake.so"), "\(plugins.stdout)")
    #expect(plugins.stdout.contains("lib\\e[2J\\x0A  loaded    fake.so"), "\(plugins.stdout)")
    #expect(plugins.stdout.hasSuffix("1 loaded, 1 rejected, 0 URN conflicts\n"))
    let routes = try ProcessRunner.vivarium(["routes", "--plugins", dir.path])
    expectNoRawControls(routes.stdout)
    expectNoRawControls(routes.stderr)
    #expect(routes.stderr.split(separator: "\n").count == 1, "\(routes.stderr)")
    let graph = try ProcessRunner.vivarium(["graph", "--plugins", dir.path])
    expectNoRawControls(graph.stdout)
    #expect(graph.stdout.contains("lib\\\\e[2J"), "\(graph.stdout)")
  }

  @Test func checkReportShowsEscapesInPaths() throws {
    let dir = try TemporaryDirectory()
    let path = try dir.copy(BuildProducts.itemsList, as: "lib\u{1B}[2J.so")
    let result = try ProcessRunner.vivarium(["check", path, "--only", "load", "--in-process"])
    expectNoRawControls(result.stdout)
    #expect(result.stdout.contains("lib\\e[2J.so"), "\(result.stdout)")
  }
}
