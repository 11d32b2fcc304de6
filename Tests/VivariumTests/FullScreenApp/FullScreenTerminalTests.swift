import Foundation
import Testing
import VivariumLoading
import VivariumRuntime

/// `vivarium run` on a real (pseudo-)terminal: signed in with keys only, and
/// the terminal as it was after it quits.
@Suite("Full screen on a terminal")
struct FullScreenTerminalTests {
  /// The forecast's host, granted, so that no question about it stands
  /// between a test's keys and the screens they are for.
  private static let granted = ["--allow", "Weather"]

  /// `vivarium run` on the demo, with fresh data, on a new terminal (the
  /// directories are returned to be kept until the test ends).
  /// `backtraces` leaves Swift's crash reports as a person has them, on.
  private func demo(
    term: String, columns: Int, rows: Int, _ extra: [String] = [], backtraces: Bool = false, granted: Bool = true
  ) throws
    -> (PseudoTerminal, TemporaryDirectory, TemporaryDirectory)
  {
    let plugins = try BuildProducts.demoPluginDirectory()
    let data = try TemporaryDirectory()
    var environment = ["TERM": term, "HOME": data.path, "VIVARIUM_HTTP": "replay:" + BuildProducts.demoHTTP]
    if !backtraces { environment["SWIFT_BACKTRACE"] = "enable=no" }
    let terminal = try PseudoTerminal(
      BuildProducts.vivarium,
      ["run", "--plugins", plugins.path, "--data", data.path] + (granted ? Self.granted : []) + extra,
      environment: environment, columns: columns, rows: rows)
    return (terminal, plugins, data)
  }

  /// With `--no-sandbox`, the top line says plugins are not confined.
  @Test func unconfinedPluginsAreSaidOnTheTopLine() throws {
    let (terminal, plugins, data) = try demo(term: "xterm-256color", columns: 100, rows: 30, ["--no-sandbox"])
    defer { withExtendedLifetime((plugins, data)) {} }
    #expect(terminal.waitFor("plugins not confined (--no-sandbox)"), "\(terminal.text)")
    terminal.send("\u{3}")
    #expect(terminal.wait() == 0)
  }

  @Test func theNextRunResumesOnTheScreenLeft() throws {
    let (terminal, plugins, data) = try demo(term: "xterm-256color", columns: 100, rows: 30)
    defer { withExtendedLifetime((plugins, data)) {} }
    #expect(terminal.waitFor("Password"), "\(terminal.text)")
    terminal.send("ada\tlovelace\r\r")
    #expect(terminal.waitFor("Hello, Ada"), "\(terminal.text)")
    terminal.send("q")
    #expect(terminal.wait() == 0)
    let again = try PseudoTerminal(
      BuildProducts.vivarium, ["run", "--plugins", plugins.path, "--data", data.path] + Self.granted,
      environment: ["TERM": "xterm-256color", "HOME": data.path, "SWIFT_BACKTRACE": "enable=no"], columns: 100,
      rows: 30)
    #expect(again.waitFor("Hello, Ada"), "\(again.text)")
    again.send("q")
    #expect(again.wait() == 0)
    #expect(!again.text.contains("Sign in"), "the first screen was opened over the resumed ones")
  }

  /// Saved screens that cannot be restored are said in the app, not only
  /// on stderr after it quits.
  @Test func screensThatCannotBeRestoredAreSaidOnScreen() throws {
    let plugins = try BuildProducts.demoPluginDirectory()
    let data = try TemporaryDirectory()
    let store = NavigationStore(dataDirectory: data.path, directories: [plugins.path])
    try FileManager.default.createDirectory(
      atPath: (store.path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
    try Data("{".utf8).write(to: URL(fileURLWithPath: store.path))
    let terminal = try PseudoTerminal(
      BuildProducts.vivarium, ["run", "--plugins", plugins.path, "--data", data.path],
      environment: ["TERM": "xterm", "HOME": data.path, "SWIFT_BACKTRACE": "enable=no"], columns: 100, rows: 30)
    #expect(terminal.waitFor("Password"), "\(terminal.text)")
    // On the app's own screen, not only on stderr before it.
    let screen = try #require(terminal.written.range(of: Data("\u{1B}[?1049h".utf8))).upperBound
    #expect(
      terminal.waitFor("damaged", after: screen), "the app does not say the saved screens were lost: \(terminal.text)")
    terminal.send("\u{3}")
    #expect(terminal.wait() == 0)
  }

  /// The first use of a permission never decided asks the person, naming
  /// the plugin and the permission; the answer is kept for the plugin's file.
  @Test func theFirstUseOfAPermissionAsksThePersonAndTheAnswerIsKept() throws {
    let (terminal, plugins, data) = try demo(term: "xterm-256color", columns: 100, rows: 30, granted: false)
    defer { withExtendedLifetime((plugins, data)) {} }
    #expect(terminal.waitFor("Password"), "\(terminal.text)")
    terminal.send("ada\tlovelace\r\r")
    #expect(terminal.waitFor("Allow WeatherPlugin?"), "\(terminal.text)")
    #expect(terminal.waitFor("http:api.open-meteo.com"), "\(terminal.text)")
    // The command that changes the answer names the data directory this app keeps it in.
    #expect(terminal.waitFor("--data"), "\(terminal.text)")
    let asked = terminal.written.count
    terminal.send("\u{1B}[C\r")  // → Allow, Enter
    #expect(terminal.waitFor("overcast", after: asked), "the forecast after Allow: \(terminal.text)")
    terminal.send("q")
    #expect(terminal.wait() == 0)
    let store = PermissionStore(dataDirectory: data.path)
    let weather = PluginIdentity(
      name: "WeatherPlugin", path: plugins.path + "/libWeather.so", hosts: ["api.open-meteo.com"])
    #expect(store.decision(PluginPermission(.http, "api.open-meteo.com"), for: weather) == .granted)
    #expect(PermissionLog(dataDirectory: data.path).uses().uses.map(\.outcome) == [.allowed])
  }

  @Test func signingInWithKeysAndQuittingLeavesTheTerminalAsItWas() throws {
    let (terminal, plugins, data) = try demo(term: "xterm-256color", columns: 100, rows: 30)
    defer { withExtendedLifetime((plugins, data)) {} }
    let before = terminal.settings()
    #expect(terminal.waitFor("\u{1B}[?1049h"), "the app did not enter the alternate screen: \(terminal.text)")
    #expect(terminal.waitFor("Password"), "\(terminal.text)")
    terminal.send("ada\tlovelace\r\r")
    #expect(terminal.waitFor("Hello, Ada"), "\(terminal.text)")
    #expect(terminal.isRaw, "raw mode: no line editing, no echo")
    // Ctrl-Z: the terminal as it was while stopped; raw again once continued.
    terminal.send("\u{1A}")
    #expect(terminal.waitUntilStopped(), "Ctrl-Z did not stop the app")
    #expect(!terminal.isRaw, "\(terminal.text.suffix(300).debugDescription)")
    let shown = terminal.written.count
    kill(terminal.pid, SIGCONT)
    #expect(terminal.waitFor("Hello, Ada", after: shown), "no repaint after fg")
    #expect(terminal.isRaw)
    // A resize draws at the new width.
    let beforeResize = terminal.written.count
    terminal.resize(columns: 60, rows: 20)
    #expect(terminal.waitFor("\u{1B}[2J", after: beforeResize), "a new size repaints the whole screen")
    #expect(terminal.waitFor("\u{1B}[20;", after: beforeResize), "the status line moves to the new last row")
    let beforeQuit = terminal.written.count
    terminal.send("q")
    let status = terminal.wait()
    #expect(status == 0, "exit status \(status): \(terminal.text)")
    let after = terminal.settings()
    #expect(after.c_lflag == before.c_lflag && after.c_iflag == before.c_iflag && after.c_oflag == before.c_oflag)
    // The one written on quitting, not the one Ctrl-Z wrote: the last bytes
    // may still be on their way from the terminal when the app has exited.
    #expect(terminal.waitFor("\u{1B}[?1049l", after: beforeQuit))
    let text = terminal.text
    #expect(text.hasSuffix("\u{1B}[?1049l"), "the alternate screen was left last: \(text.suffix(300).debugDescription)")
    #expect(text.contains("\u{1B}[?25h"), "the cursor is shown again")
    #expect(!text.contains("lovelace\u{1B}") && !text.contains("lovelace "), "the password never reaches the terminal")
  }

  /// SIGTERM ends the app cleanly; a crash (SIGSEGV here, as a module's bad
  /// pointer would) still puts the terminal back before the process dies.
  @Test(arguments: [SIGTERM, SIGSEGV])
  func aSignalThatEndsTheAppLeavesTheTerminalAsItWas(signal: Int32) throws {
    let (terminal, plugins, data) = try demo(term: "xterm", columns: 80, rows: 24)
    defer { withExtendedLifetime((plugins, data)) {} }
    let before = terminal.settings()
    #expect(terminal.waitFor("Password"), "\(terminal.text)")
    #expect(terminal.isRaw)
    kill(terminal.pid, signal)
    let status = terminal.wait()
    if signal == SIGTERM {
      #expect(status >> 8 & 0xFF == 128 + SIGTERM, "exit status \(status)")
    } else {
      #expect(status & 0x7F == SIGSEGV, "died of SIGSEGV: \(status)")
    }
    let after = terminal.settings()
    #expect(after.c_lflag == before.c_lflag && after.c_iflag == before.c_iflag)
    // The terminal's last bytes may still be on their way to the reading thread.
    #expect(terminal.waitFor("\u{1B}[?1049l"), "the alternate screen was left: \(terminal.text)")
  }

  /// A crash of the host, with Swift's crash reports on as a person has
  /// them: the terminal is put back, the report is written at once (never
  /// "Press space to interact…", which held the terminal for 30 s) and the
  /// log says the host crashed.
  @Test func aCrashIsReportedAtOnceWithoutHoldingTheTerminal() throws {
    let (terminal, plugins, data) = try demo(term: "xterm", columns: 80, rows: 24, backtraces: true)
    defer { withExtendedLifetime((plugins, data)) {} }
    #expect(terminal.waitFor("Password"), "\(terminal.text)")
    kill(terminal.pid, SIGSEGV)
    let status = terminal.wait()
    #expect(status & 0x7F == SIGSEGV, "died of SIGSEGV: \(status)")
    #expect(terminal.waitFor("Program crashed"), "the crash report: \(terminal.text.suffix(2000))")
    #expect(!terminal.text.contains("Press space"), "\(terminal.text.suffix(2000))")
    #expect(
      terminal.text.range(of: "\u{1B}[?1049l")!.lowerBound < terminal.text.range(of: "Program crashed")!.lowerBound)
    let log = try String(contentsOfFile: data.path + "/vivarium.log", encoding: .utf8)
    #expect(log.contains("error host: ") && log.contains("signal 11 (SIGSEGV)"), "the signal, logged: \(log)")
  }

  /// `--line` keeps the line-by-line session on a terminal, for screen
  /// readers and people who prefer it.
  @Test func lineKeepsTheLineSessionOnATerminal() throws {
    let (terminal, plugins, data) = try demo(term: "xterm", columns: 80, rows: 24, ["--line"])
    defer { withExtendedLifetime((plugins, data)) {} }
    #expect(terminal.waitFor("vivarium> "), "\(terminal.text)")
    terminal.send("quit\r")
    #expect(terminal.wait() == 0)
    #expect(!terminal.text.contains("\u{1B}[?1049h"), "no alternate screen in line mode")
    #expect(terminal.text.contains("(password)"), "line mode draws the addresses")
  }
}
