import Foundation
import Testing
import VivariumRuntime

/// `vivarium run` from a script, as a person piping it would read it: stdout
/// and stderr in one stream.
@Suite("Session transcripts")
@MainActor
struct SessionTranscriptTests {
  /// Runs `script` with stderr sent to stdout, so the order of the two shows.
  private func runMerged(_ script: Data) throws -> ProcessResult {
    let plugins = try BuildProducts.demoPluginDirectory()
    let data = try TemporaryDirectory()
    let file = try data.write("s.vivarium", script)
    return try ProcessRunner.run(
      "/bin/sh",
      [
        "-c", "exec \"$@\" 2>&1", "sh", BuildProducts.vivarium, "run", "--plugins", plugins.path, "--data", data.path,
        "--script", file,
      ], environment: ["VIVARIUM_NOW": "2026-11-21T12:00:00Z", "COLUMNS": "80", "NO_COLOR": "1"])
  }

  @Test func eachCommandIsFollowedByItsErrorsThenItsScreen() throws {
    let result = try runMerged(Data("jump\r\ntap nowhere\r\ntype user ada\r\n".utf8))
    let lines = result.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    let echoes = lines.indices.filter { lines[$0].hasPrefix("> ") }
    #expect(echoes.map { lines[$0] } == ["> jump", "> tap nowhere", "> type user ada"])
    try #require(echoes.count == 3)
    // Each error right after its line, naming the line and the word or address refused.
    let (first, second) = (lines[echoes[0] + 1], lines[echoes[1] + 1])
    #expect(first.hasPrefix("vivarium run: error: line 1: ") && first.contains("'jump'"), "\(first)")
    #expect(second.hasPrefix("vivarium run: error: line 2: ") && second.contains("'nowhere'"), "\(second)")
    #expect(second.contains("signIn"), "the buttons there are: \(second)")
    #expect(lines[echoes[1] + 2].hasPrefix("── login:form ─"))
    #expect(lines[echoes[2] + 1].hasPrefix("── login:form ─"))
    #expect(lines[echoes[2]...].contains("User: [ada] (user)"), "the CR of CRLF is not part of the text")
    #expect(result.status == 1)
  }

  /// A 10 MB line took minutes to read; it is now skipped at once, named, and
  /// the session goes on.
  @Test func anOverLongLineIsSkippedAndTheNextOneRuns() throws {
    var script = Data("type user ".utf8)
    script.append(Data(repeating: UInt8(ascii: "a"), count: 10_000_000))
    script.append(Data("\ntype user ada\n".utf8))
    let result = try runMerged(script)
    #expect(result.status == 1)
    #expect(
      result.stdout.contains(
        "> (a line of 10,000,010 bytes)\nvivarium run: error: line 1: the line is 10,000,010 bytes long, over the 65,536-byte limit of a session line; it was skipped, nothing was run\n> type user ada\n"
      ))
    #expect(result.stdout.contains("User: [ada] (user)"))
    #expect(result.stdout.utf8.count < 10_000, "the skipped line is not printed")
  }
}
