import Testing
import ViperKit

/// Every message a person is shown can be read whole: on the message line,
/// wrapped, and again in the log, its line breaks kept; boxes wrap.
@Suite("Terminal app messages")
@MainActor
struct TerminalAppMessagesTests {
  private func run(_ pilot: Pilot, _ line: String) async {
    await pilot.press(.control("p"))
    await pilot.type(line)
    await pilot.press(.enter)
  }

  @Test func aLongErrorIsShownWholeAndKeptInTheLog() async throws {
    let pilot = try await Pilot(signedIn: true, width: 60, height: 20)
    await run(pilot, "open tides:paris")
    // The sentence the host gives, whatever its words: its start, and its
    // end too, on the rows above the status line.
    let words = try pilot.runtime.catalog.resolveError(
      "tides:paris", invocation: pilot.runtime.services.invocation
    ).message.split(separator: " ")
    let (start, end) = (words.prefix(3).joined(separator: " "), String(words.last ?? ""))
    let rows = pilot.screen.dropLast().suffix(3)
    #expect(rows.first?.hasPrefix("✗ " + start) == true, "\(pilot.text)")
    #expect(rows.last?.hasSuffix(end) == true, "\(pilot.text)")
    await run(pilot, "log")
    #expect(pilot.text.contains("error session: " + start), "\(pilot.text)")
  }

  @Test func aMessageLongerThanHalfTheScreenSaysWhereTheRestIs() async throws {
    let pilot = try await Pilot(signedIn: true, width: 60, height: 12)
    pilot.app.say(String(repeating: "word ", count: 200), tone: .negative)
    let screen = pilot.screen
    #expect(screen.contains { $0.contains("':log'") }, "the command that shows the rest: \(pilot.text)")
    #expect(screen.filter { $0.contains("word") }.count == 4, "half the body of 9 rows: \(pilot.text)")
  }

  @Test func theLogKeepsLineBreaksAndItsBoxWraps() async throws {
    let pilot = try await Pilot(signedIn: true, width: 60, height: 20)
    let long = "a line of build output that is much longer than the box is wide, to its very end"
    pilot.runtime.services.logLine(.info, module: "host", "build:\nfirst\n\(long)\n")
    await run(pilot, "log")
    let screen = pilot.screen
    #expect(!pilot.text.contains("\\x0A"), "\(pilot.text)")
    #expect(screen.contains { $0.contains("│     first") }, "a continuation line, indented: \(pilot.text)")
    #expect(screen.contains { $0.contains("to its very end") }, "\(pilot.text)")
    // The log file keeps one line per message.
    #expect(pilot.runtime.services.recentLog.last?.hasSuffix("\n    first\n    \(long)") == true)
  }

  @Test func aReportWrapsInsteadOfBeingCutAtTheScrollBar() async throws {
    let pilot = try await Pilot(signedIn: true, width: 60, height: 15)
    await run(pilot, "help")
    await pilot.press(.end)
    // Its columns kept, the rest of the line on the next row, indented.
    let row = try #require(pilot.row(containing: "tree --link            where you are"), "\(pilot.text)")
    #expect(pilot.screen[row + 1].contains("│     share "), "\(pilot.text)")
  }

  @Test func aNoticeOfAModuleIsLogged() async throws {
    let pilot = try await Pilot(start: "dashboard:home?user=ada", signedIn: true)
    await pilot.wait(1)
    await pilot.press(.tab, .enter)  // Products
    await pilot.wait(1)
    await pilot.tab(to: "Blue mug")
    await pilot.press(.enter)
    #expect(
      pilot.runtime.services.recentLog.contains { $0.contains("products:search: notice:") && $0.contains("favourite") })
  }
}
