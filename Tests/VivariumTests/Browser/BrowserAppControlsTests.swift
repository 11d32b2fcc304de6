import Foundation
import Testing

/// What running an app of many plugins adds, as a person meets it in the
/// page, from the keyboard: the settings screen (its header button, a
/// setting chosen and set back, the forecast following it), an event of one
/// plugin reaching another tab's screen, and the commands and keys a module
/// contributes (the Keys dialog, the key, the command line). On the demo,
/// one server and two tabs.
extension BrowserPageTests {
  @Test func settingsEventsAndCommandsOfPluginsFromTheKeyboard() async throws {
    try await withDemo { context, server in
      let shots = try Self.screenshotDirectory()
      let first = try await context.openTab(server.address)
      try await first.waitForScreen("login:form")
      try await first.signIn(user: "ada", password: "lovelace")
      try await first.waitForScreen("dashboard:home?user=ada")
      // The weather plugin's question: allowed, so that the forecast comes.
      try await first.waitUntil("document.getElementById('alert').open", "the permission question")
      try await first.answerQuestion()
      try await first.waitUntil(BrowserTab.control("weather", in: "dashboard:home?user=ada"), "the weather button")

      // The settings screen, from the page's header: the forecast's units set
      // to fahrenheit with the keyboard.
      try await first.openFromHeader("settings-button", "vivarium:settings")
      try await first.selectSetting("weather.units")
      try await first.pressEnter(on: "choose.fahrenheit", in: "vivarium:settings")
      try await first.waitUntil(
        "\(BrowserTab.settingsRow("weather.units"))?.textContent.includes('fahrenheit')", "the row says fahrenheit")
      try await first.waitForControl("reset", in: "vivarium:settings")
      try await first.screenshot(to: shots + "/settings.png")
      print("Browser: the settings screen as the page draws it: \(shots)/settings.png")
      try await expectAccessible(
        first, "the settings screen", scope: "#screen", roles: ["button", "listbox", "option"])

      // Esc goes back to the dashboard, whose Weather button opens the
      // forecast: in °F.
      try await first.press(.escape)
      try await first.waitForScreen("dashboard:home?user=ada")
      try await first.pressEnter(on: "weather", in: "dashboard:home?user=ada")
      try await first.waitForScreen("weather:London")
      try await first.waitUntil(BrowserTab.forecastIn("°F"), "the forecast in °F")

      // Set back to its default, from the settings screen opened over the
      // forecast: the forecast under it is in °C again.
      try await first.openFromHeader("settings-button", "vivarium:settings")
      try await first.selectSetting("weather.units")
      try await first.pressEnter(on: "reset", in: "vivarium:settings")
      try await first.waitUntil(
        "\(BrowserTab.settingsRow("weather.units"))?.textContent.includes('celsius')", "the row says celsius")
      #expect(try await first.evaluate("Boolean(\(BrowserTab.control("reset", in: "vivarium:settings")))") == false)
      try await first.press(.escape)
      try await first.waitForScreen("weather:London")
      try await first.waitUntil(BrowserTab.forecastIn("°C"), "the forecast in °C")
      try await first.press(.escape)
      try await first.waitForScreen("dashboard:home?user=ada")

      // A second tab, signed in too: both show the wallet preview on the
      // dashboard's Feed tab.
      let second = try await context.openTab(server.address)
      try await second.waitForScreen("login:form")
      // The form remembers who signed in last: the password is enough.
      try await second.waitUntil(
        "document.querySelector('#screen [data-address=user]')?.value === 'ada'", "the user remembered")
      try await second.tabUntil("document.activeElement?.getAttribute('data-address') === 'password'", "password")
      try await second.paste("lovelace")
      try await second.tabUntil("document.activeElement?.getAttribute('data-address') === 'signIn'", "signIn")
      try #require(try await second.press(.enter), "Enter on signIn sends its tap")
      try await second.waitForScreen("dashboard:home?user=ada")
      for tab in [first, second] {
        try await tab.pressEnter(on: "tab.feed", in: "dashboard:home?user=ada")
        try await tab.waitUntil(BrowserTab.wallet("€50"), "the wallet preview with €50")
      }

      // A top-up of €20 in the first tab, by the preview's button and the
      // amount picked in its dialog: the second tab shows it, unasked.
      let sentBySecond = try await second.evaluate("window.vivariumTest.sent")
      // (The preview's button, embedded, has an address qualified by where it is.)
      let topUp =
        "document.querySelector('#screen section.module[aria-label=\"wallet:preview\"] [data-address$=topUp]')"
      try await first.tabUntil("document.activeElement === \(topUp)", "the wallet's top-up button")
      try #require(try await first.press(.enter), "Enter on the button sends its tap")
      try await first.waitForScreen("wallet:topup")
      try await first.pickRow("20", in: "amounts")
      try await first.waitUntil(BrowserTab.wallet("€70"), "the first tab's wallet with €70")
      try await second.waitUntil(BrowserTab.wallet("€70"), "the second tab's wallet with €70")
      #expect(try await second.evaluate("window.vivariumTest.sent") == sentBySecond, "the second tab sent nothing")

      // The wallet's command on this screen: the Keys dialog (?) lists it
      // with its key, which opens the top-up box; the command line offers
      // its id.
      try await second.press(.typing("?"))
      try await second.waitUntil("document.getElementById('keys').open", "the Keys dialog")
      try await second.waitUntil(
        "!document.getElementById('screen-commands').hidden && \(BrowserTab.keysEntry("topUp"))",
        "the wallet's command in the Keys dialog")
      #expect(try await second.string("\(BrowserTab.keysEntry("topUp"))?.textContent") == "t")
      let listed = try await second.string("\(BrowserTab.keysEntry("topUp"))?.nextElementSibling?.textContent")
      #expect(listed?.contains(":topUp, WalletPlugin") == true, "\(listed ?? "nothing")")
      try await second.screenshot(to: shots + "/keys.png")
      print("Browser: the Keys dialog with the screen's commands: \(shots)/keys.png")
      try await second.press(.escape)
      try await second.waitUntil("!document.getElementById('keys').open", "the Keys dialog closed")
      #expect(try await second.string(BrowserTab.shownURN) == "dashboard:home?user=ada", "Esc closed the dialog only")

      // Its key, outside a field: the top-up box, closed again with Esc.
      try #require(try await second.press(.typing("t")), "t sends the wallet's command")
      try await second.waitForScreen("wallet:topup")
      try await second.press(.escape)
      try await second.waitForScreen("dashboard:home?user=ada")

      // The command line suggests its id; typed there, it runs.
      try await second.press(.typing(":"))
      try await second.waitUntil("document.activeElement?.id === 'command'", "the command line")
      #expect(try await second.string("document.getElementById('command').getAttribute('list')") == "command-ids")
      let suggested = try await second.evaluate(
        "[...document.querySelectorAll('#command-ids option')].map((option) => option.value)")
      #expect(suggested == ["topUp"], "\(suggested.text)")
      try await second.type("topUp")
      try #require(try await second.press(.enter), "Enter runs the command line")
      try await second.waitForScreen("wallet:topup")
      try await second.pickRow("10", in: "amounts")
      for tab in [first, second] { try await tab.waitUntil(BrowserTab.wallet("€80"), "the wallet with €80") }
    }
  }
}

extension BrowserTab {
  /// A script: the row of the setting `key` on the settings screen.
  static func settingsRow(_ key: String) -> String {
    let selector =
      "#screen section.module[aria-label=\"vivarium:settings\"] [data-address=settings] [data-row=\"\(key)\"]"
    return "document.querySelector(\(JSONValue.string(selector).text))"
  }

  /// A script: whether the forecast for London shows its days in `unit`
  /// (`°F`) and in no other.
  static func forecastIn(_ unit: String) -> String {
    let other = unit == "°F" ? "°C" : "°F"
    return """
      ((text) => text.includes(\(JSONValue.string(unit).text)) && !text.includes(\(JSONValue.string(other).text)))
        (document.querySelector('#screen section.module[aria-label="weather:London"]')?.textContent ?? '')
      """
  }

  /// A script: whether a wallet preview shown says `amount` (`€70`).
  static func wallet(_ amount: String) -> String {
    "[...document.querySelectorAll('#screen section.module[aria-label=\"wallet:preview\"]')]"
      + ".some((preview) => preview.textContent.includes(\(JSONValue.string("Wallet: " + amount).text)))"
  }

  /// A script: the Keys dialog's entry (its key) for the screen's command `id`.
  static func keysEntry(_ id: String) -> String {
    "document.querySelector(\(JSONValue.string("#screen-command-list dt[data-command=\"\(id)\"]").text))"
  }

  /// Opens the app's screen `urn` with the page header's button `id`, as a
  /// person does: Tab to it, Enter.
  func openFromHeader(_ id: String, _ urn: String) async throws {
    try await tabUntil("document.activeElement?.id === '\(id)'", "the header's \(id)")
    #expect(try await string("document.activeElement.getAttribute('data-open')") == urn)
    try #require(try await press(.enter), "Enter on \(id) sends its open")
    try await waitForScreen(urn)
  }

  /// Selects the setting `key` on the settings screen with the keyboard:
  /// Tab to the list, ↓ (then ↑) to its row, Enter; its form shows.
  func selectSetting(_ key: String) async throws {
    try await pickRow(key, in: "settings")
    try await waitUntil(
      "document.querySelector('#screen [data-address^=\"choose.\"], #screen [data-address=value]')",
      "the form of \(key)")
  }

  /// Picks the row `row` of the list `list` on the screen on top (a
  /// dialog's, if one is open) with the keyboard: Tab to the list, ↓ until
  /// the row is the one selected, as assistive technology is told
  /// (`aria-selected`; ↑ if it went past, a bounded number of times), then
  /// Enter, which must send its select.
  func pickRow(_ row: String, in list: String) async throws {
    let top = "document.querySelector('#screen > .layers').lastElementChild"
    let listbox = "\(top).querySelector('[role=listbox][data-address=\"\(list)\"]')"
    try await waitUntil(listbox, "the list \(list)")
    try await tabUntil("document.activeElement === \(listbox)", "the list \(list)")
    let options = "[...\(listbox).querySelectorAll('[role=option]')]"
    let active = "\(listbox).querySelector('[role=option][aria-selected=true]')?.getAttribute('data-row')"
    let rows = try await evaluate("\(options).length").number ?? 0
    let index = try await evaluate("\(options).findIndex((option) => option.getAttribute('data-row') === '\(row)')")
    guard let index = index.number, index >= 0 else {
      throw DevToolsBrowser.Failure(description: "the list \(list) has no row \(row)")
    }
    for _ in 0..<(Int(rows) + 1) {
      if try await string(active) == row { break }
      let at = try await evaluate("\(options).findIndex((option) => option.getAttribute('aria-selected') === 'true')")
      try await press((at.number ?? -1) > index ? .up : .down)
    }
    #expect(try await string(active) == row, "↓ and ↑ reach the row \(row) of \(list)")
    guard try await press(.enter) else {
      throw DevToolsBrowser.Failure(description: "Enter on the row \(row) of \(list) sent nothing")
    }
  }
}
