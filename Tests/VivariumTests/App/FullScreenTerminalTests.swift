import Foundation
import Testing

/// `vivarium run` on a real (pseudo-)terminal: signed in with keys only, and
/// the terminal as it was after it quits.
@Suite("Full screen on a terminal")
struct FullScreenTerminalTests {
  @Test func signingInWithKeysAndQuittingLeavesTheTerminalAsItWas() throws {
    let plugins = try BuildProducts.demoPluginDirectory()
    let data = try TemporaryDirectory()
    let terminal = try PseudoTerminal(
      BuildProducts.vivarium, ["run", "--plugins", plugins.path, "--data", data.path],
      environment: ["TERM": "xterm-256color", "HOME": data.path, "PATH": "/usr/bin:/bin"], columns: 100, rows: 30)
    let before = terminal.settings()
    #expect(terminal.waitFor("\u{1B}[?1049h"), "the app did not enter the alternate screen: \(terminal.text)")
    #expect(terminal.waitFor("Password"), "\(terminal.text)")
    terminal.send("ada\tlovelace\r\r")
    #expect(terminal.waitFor("Hello, Ada"), "\(terminal.text)")
    let during = terminal.settings()
    #expect(during.c_lflag & tcflag_t(ICANON | ECHO) == 0, "raw mode: no line editing, no echo")
    terminal.send("q")
    let status = terminal.wait()
    #expect(status == 0, "exit status \(status): \(terminal.text)")
    let after = terminal.settings()
    #expect(after.c_lflag == before.c_lflag && after.c_iflag == before.c_iflag && after.c_oflag == before.c_oflag)
    let text = terminal.text
    #expect(text.hasSuffix("\u{1B}[?1049l"), "the alternate screen was left last")
    #expect(text.contains("\u{1B}[?25h"), "the cursor is shown again")
    #expect(!text.contains("lovelace\u{1B}") && !text.contains("lovelace "), "the password never reaches the terminal")
  }
}
