import Foundation
import Testing

/// A plugin that crashes or hangs, as a person meets it in the page: the
/// module's place says so, with buttons a person reaches and presses from
/// the keyboard to stop the plugin and to restart it. On the Faulty plugin
/// alone (one plugin process), with a response limit of 1 s.
extension BrowserPageTests {
  /// Crashed, then hung and stopped: each time the module's place offers
  /// Restart, a named button a person reaches with Tab; Enter on it brings
  /// the module back, in every tab that showed it.
  @Test func aPluginThatCrashesOrHangsIsStoppedAndRestartedFromTheKeyboard() async throws {
    let browser = try await DevToolsBrowser.shared()
    let server = try ServeProcess.serving(["Faulty"], arguments: ["--response-limit", "1"])
    defer { server.stop() }
    try await browser.withContext { context in
      // Two tabs on the one process: what happens to it shows in both.
      let tab = try await context.openTab(server.url(path: "faulty:demo"))
      let other = try await context.openTab(server.url(path: "faulty:demo"))
      try await tab.waitForScreen("faulty:demo")
      try await other.waitForScreen("faulty:demo")

      // It crashes: in its place, the failure and Restart, a button a person
      // reaches with Tab, named for a screen reader.
      try await tab.pressEnter(on: "crash", in: "faulty:demo")
      try await tab.waitForControl("restart", in: "faulty:demo")
      // The Crash button went with the module: the focus is on Restart, one Enter away.
      #expect(try await tab.string(BrowserTab.focusedDescription) == "restart")
      try await other.waitForControl("restart", in: "faulty:demo")
      #expect(try await tab.string(BrowserTab.control("crash", in: "faulty:demo") + "?.localName") == nil)
      #expect(try await tab.string(BrowserTab.control("restart", in: "faulty:demo") + "?.localName") == "button")
      try await expectAccessible(tab, "the crashed module", scope: "#screen", roles: ["button"])

      // Restarted: the module is back in its place, in both tabs.
      try await tab.pressEnter(on: "restart", in: "faulty:demo")
      try await tab.waitForControl("crash", in: "faulty:demo")
      try await other.waitForControl("crash", in: "faulty:demo")
      #expect(try await tab.string(BrowserTab.shownURN) == "faulty:demo")
      try await other.close()

      // It hangs on a tap: past the response limit, its place offers Wait
      // and Stop.
      let hung = try await context.openTab(server.url(path: "faulty:hang%3Fat%3Dtap"))
      let urn = "faulty:hang?at=tap"
      try await hung.waitForScreen(urn)
      try await hung.pressEnter(on: "go", in: urn)
      try await hung.waitForControl("stop", in: urn)
      for address in ["wait", "stop"] {
        #expect(try await hung.string(BrowserTab.control(address, in: urn) + "?.localName") == "button", "\(address)")
      }
      try await expectAccessible(hung, "the module not responding", scope: "#screen", roles: ["button"])
      // Waiting on: Wait is done with, Stop stays.
      try await hung.pressEnter(on: "wait", in: urn)
      try await hung.waitUntil(
        "!\(BrowserTab.control("wait", in: urn)) && \(BrowserTab.control("stop", in: urn))", "Stop alone")
      // Stopped: it ended, and shows as crashed, with Restart.
      try await hung.pressEnter(on: "stop", in: urn)
      try await hung.waitForControl("restart", in: urn)
      #expect(try await hung.evaluate("Boolean(\(BrowserTab.control("stop", in: urn)))") == false)
      // Restarted: the module is back, and so is the first tab's.
      try await hung.pressEnter(on: "restart", in: urn)
      try await hung.waitForControl("go", in: urn)
      #expect(try await hung.string(BrowserTab.shownURN) == urn)
      try await tab.waitForControl("crash", in: "faulty:demo")
    }
  }
}

extension BrowserTab {
  /// A script: the element at `address` in the screen of the module `urn`
  /// (its section, labelled with the URN); null if there is none.
  static func control(_ address: String, in urn: String) -> String {
    let selector = "#screen section.module[aria-label=\"\(urn)\"] [data-address=\"\(address)\"]"
    return "document.querySelector(\(JSONValue.string(selector).text))"
  }

  /// Waits until the module `urn` shows the control at `address`.
  func waitForControl(_ address: String, in urn: String) async throws {
    try await waitUntil(Self.control(address, in: urn), "'\(address)' in \(urn)")
  }

  /// Presses Enter on the control at `address` in the module `urn`, as a
  /// person does once it shows: Tab until it has the focus, then Enter,
  /// which must send its tap.
  func pressEnter(on address: String, in urn: String) async throws {
    try await waitForControl(address, in: urn)
    try await tabUntil("document.activeElement === \(Self.control(address, in: urn))", "'\(address)' in \(urn)")
    guard try await press(.enter) else {
      throw DevToolsBrowser.Failure(
        description: "Enter on '\(address)' in \(urn) sent nothing: \(try await evaluate(Self.state).text)")
    }
  }
}
