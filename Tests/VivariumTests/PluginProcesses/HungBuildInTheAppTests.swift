import Testing
import ViperKit

@testable import VivariumApp
@testable import VivariumLoading
@testable import VivariumRuntime
@testable import VivariumSupport
@testable import VivariumTerminal

/// The full-screen app while a module is built in a plugin process that
/// hangs in its factory: the key loop gets each key back at once, and the
/// keys act on what is shown. Shown by the order of events, not by time.
@Suite("The app while a module hangs as it is built")
@MainActor
struct HungBuildInTheAppTests {
  @Test func aCommandOpeningAHungModuleLeavesTheKeysWorking() async throws {
    let host = try await FaultyHost(responseLimit: .seconds(60))
    try await host.runtime.open("frame:trap?at=tap")
    let session = Session(
      runtime: host.runtime, renderer: TextRenderer(width: 100), plugins: "", routes: "", scheme: nil,
      settles: false)
    let app = TerminalApp(session: session, name: "Faulty", width: 100, height: 30) { 0 }
    _ = app.frame()
    _ = await app.handle(.control("p"))
    for character in "open faulty:hang?at=build" { _ = await app.handle(.character(character)) }
    _ = await app.handle(.enter)
    // The Enter came back while the build is under way.
    let faulty = try #require(host.process(named: "libFaulty.so"))
    #expect(host.runtime.layers.map(\.count) == [1])
    #expect(faulty.state == .running, "the build is not overdue yet")
    let focusedOnPing = { app.frame().lines.first { $0.contains("▶") }?.contains("Ping") ?? false }
    for _ in 0..<10 where !focusedOnPing() { _ = await app.handle(.tab) }
    try #require(focusedOnPing())
    _ = await app.handle(.enter)
    #expect(try await host.waitForText("pings: 1").contains("pings: 1"))
    #expect(host.runtime.layers.map(\.count) == [1], "still under way when the tap was answered")
    faulty.stop(because: "the test is over")
    await host.runtime.settleCalls()
    #expect(host.runtime.layers.map(\.count) == [2], "the open finished once its process ended")
  }
}
