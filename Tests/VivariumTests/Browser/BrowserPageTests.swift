import Foundation
import Testing

/// The page `vivarium serve` serves, in a real browser: headless Chromium
/// driven over the DevTools protocol (``DevToolsBrowser``), on the demo's
/// plugins. Each test has a server of its own (fresh data: nobody signed in,
/// no user remembered, no permission answered) and a browser context of its
/// own in the test run's one browser.
///
/// The tests name what they look for as the page and the app do: screens
/// by their URN (a screen's section is labelled with it), controls by their
/// address (`data-address`), and ARIA roles; never by English text, except
/// the text the tests typed themselves.
@Suite("Browser: the page vivarium serve serves", .serialized)
struct BrowserPageTests {
  /// The roles of controls a person acts on: each needs a name that a
  /// screen reader says.
  static let controlRoles: Set = ["button", "textbox", "listbox", "option", "checkbox", "link"]

  @Test func theLoginFormShowsAndTheKeyboardAloneSignsIn() async throws {
    try await withDemo { context, server in
      let tab = try await context.openTab(server.address)
      try await tab.waitForScreen("login:form")
      #expect(try await tab.evaluate("document.querySelectorAll('#screen input[data-address=user]').length") == 1)

      // As a person does: the form's first field has the focus; type, Tab,
      // type, Tab to the button, Enter. Each key after the page heard back
      // about the last.
      try await tab.evaluate("window.vivariumTest.takenBack.length = 0")
      #expect(
        try await tab.string(BrowserTab.focusedDescription) == "user", "a new screen's first control has the focus")
      try await tab.type("ada")
      #expect(try await tab.tab() == "password")
      try await tab.type("lovelace")
      #expect(try await tab.fieldValue("user") == "ada")
      #expect(try await tab.fieldValue("password") == "lovelace", "the secret field keeps what was typed in it")
      // What the person typed stays in the field while the page hears
      // from the server (`takenBack` lists each update that undid some).
      let takenBack = try await tab.evaluate("window.vivariumTest.takenBack").text
      #expect(takenBack == "[]", "updates from the server took back typed text")
      #expect(try await tab.tab() == "signIn")
      try #require(try await tab.press(.enter), "Enter on the button sends its tap")

      try await tab.waitUntil(
        "\(BrowserTab.shownURN)?.startsWith('dashboard:') || document.querySelector('#screen [role=alert]')",
        "the dashboard, or the form's refusal")
      let refusal = try await tab.string("document.querySelector('#screen [role=alert]')?.textContent")
      #expect(try await tab.string(BrowserTab.shownURN) == "dashboard:home?user=ada", "refused: \(refusal ?? "")")
    }
  }

  @Test func everyControlHasANameAVisibleFocusAndIsReachedByTab() async throws {
    try await withDemo { context, server in
      let tab = try await context.openTab(server.address)
      try await tab.waitForScreen("login:form")
      try await expectAccessible(tab, "the login form", scope: "#screen", roles: ["textbox", "button"])

      try await tab.signIn(user: "ada", password: "lovelace")
      try await tab.waitForScreen("dashboard:home?user=ada")
      // The weather plugin's question: asked in the page's dialog.
      try await tab.waitUntil("document.getElementById('alert').open", "the permission question")
      try await expectAccessible(tab, "the permission question", scope: "#alert", roles: ["button"])
      try await tab.answerQuestion()
      // Once allowed, the forecast comes and the dashboard offers it.
      try await tab.waitUntil("document.querySelector('#screen [data-address=weather]')", "the weather button")
      // For people to look at, not asserted.
      let shots = try Self.screenshotDirectory()
      try await tab.screenshot(to: shots + "/dashboard.png")
      print("Browser: the dashboard as the page draws it: \(shots)/dashboard.png")
      try await expectAccessible(
        tab, "the dashboard", scope: "#screen", roles: ["button", "listbox", "option"])

      // The wallet's top-up, presented modally: an open dialog above the
      // dashboard, which is inert under it, the focus in the dialog.
      try await tab.tabUntil("document.activeElement?.getAttribute('data-address') === 'tab.feed'", "the feed's tab")
      try #require(try await tab.press(.enter), "Enter on the button sends its tap")
      try await tab.waitUntil("document.querySelector('#screen [data-address$=topUp]')", "the wallet in the feed")
      try await tab.tabUntil(
        "document.activeElement?.getAttribute('data-address')?.endsWith('topUp')", "the wallet's top-up button")
      try #require(try await tab.press(.enter), "Enter on the button sends its tap")
      try await tab.waitForScreen("wallet:topup")
      let modal = try await tab.evaluate(
        """
        (() => {
          const dialog = document.querySelector('#screen > .layers > dialog.modal[open][aria-modal=true]');
          const below = document.querySelector('#screen > .layers').firstElementChild;
          return { dialog: !!dialog, belowInert: below.inert, focusInside: !!dialog?.contains(document.activeElement) };
        })()
        """)
      #expect(modal == ["dialog": true, "belowInert": true, "focusInside": true], "\(modal.text)")
      try await tab.screenshot(to: shots + "/top-up.png")
      try await expectAccessible(tab, "the top-up dialog", scope: "#screen dialog.modal", roles: ["button", "listbox"])

      // The app's own plugins screen, from the page's header: a row per
      // plugin, opened over the top-up, in its dialog.
      try await tab.evaluate("document.getElementById('plugins-button').click(); 0")
      try await tab.waitForScreen("vivarium:plugins")
      try await tab.waitUntil(
        "document.querySelector('#screen [role=option][data-row=WalletPlugin]')", "the wallet's row")
      try await expectAccessible(
        tab, "the plugins screen", scope: "#screen dialog.modal", roles: ["button", "listbox", "option"])
    }
  }

  @Test func aQuestionKeepsTheFocusWhenThePageUpdates() async throws {
    try await withDemo { context, server in
      let tab = try await context.openTab(server.address)
      try await tab.waitForScreen("login:form")
      try await tab.signIn(user: "ada", password: "lovelace")
      try await tab.waitUntil("document.getElementById('alert').open", "the permission question")
      try await tab.tabUntil(BrowserTab.onFirstAnswer, "the question's first answer")
      // Something in the session changes while the person is on the
      // answer: the page is sent what it shows, as after any change.
      try await tab.evaluate("window.vivariumTest.socket.send('screen')")
      try await tab.waitUntil(
        "window.vivariumTest.received > window.vivariumTest.receivedAtLastSend", "the page's update")
      let focused = try await tab.string(BrowserTab.focusedDescription) ?? ""
      #expect(try await tab.evaluate(BrowserTab.onFirstAnswer) == true, "the focus went to \(focused)")
    }
  }

  @Test func textFromPeopleAndPluginsNeverBecomesMarkup() async throws {
    try await withDemo { context, server in
      for payload in [#"<img src=x onerror="window.pwned=1">"#, "<script>window.pwned=2</script>"] {
        let tab = try await context.openTab(server.address)
        try await tab.waitForScreen("login:form")
        // The form refuses the sign-in in a notice that repeats the user name.
        try await tab.signIn(user: payload, password: "wrong")
        try await tab.waitUntil("document.querySelector('#screen [role=alert]')", "the refusal")
        let notice = try await tab.evaluate(
          "(({ textContent, children }) => ({ textContent, children: children.length }))"
            + "(document.querySelector('#screen [role=alert]'))")
        #expect(notice["textContent"]?.string?.contains(payload) == true, "\(notice.text)")
        #expect(notice["children"] == 0, "the notice is text only: \(notice.text)")
        #expect(try await tab.evaluate("document.querySelectorAll('#screen img, #screen script').length") == 0)
        #expect(try await tab.string("typeof window.pwned") == "undefined")
        #expect(try await tab.fieldValue("user") == payload)
        try await tab.close()
      }
    }
  }

  @Test func twoTabsAreTwoSessionsAndADeepLinkOpensItsScreen() async throws {
    try await withDemo { context, server in
      let first = try await context.openTab(server.address)
      let second = try await context.openTab(server.address)
      try await first.waitForScreen("login:form")
      try await second.waitForScreen("login:form")

      try await first.signIn(user: "ada", password: "lovelace")
      try await first.waitForScreen("dashboard:home?user=ada")
      // The second tab is where it was, and acts on its own session.
      #expect(try await second.string(BrowserTab.shownURN) == "login:form")
      try await second.tabUntil("document.activeElement?.getAttribute('data-address') === 'user'", "the user field")
      try await second.paste("grace")
      try await second.waitUntil(
        "document.querySelector('#screen [data-address=user]')?.value === 'grace'", "the second tab's user field")
      #expect(try await second.string(BrowserTab.shownURN) == "login:form")
      #expect(try await first.string(BrowserTab.shownURN) == "dashboard:home?user=ada")

      // A deep link in the address: the item's detail over the list.
      let deep = try await context.openTab(server.url(path: "items:list/items:detail:2"))
      try await deep.waitForScreen("items:detail:2")
      #expect(try await deep.string("location.pathname") == "/items:list/items:detail:2")
    }
  }

  @Test func thePolicyBlocksInlineScript() async throws {
    try await withDemo { context, server in
      let tab = try await context.openTab(server.address)
      try await tab.waitForScreen("login:form")
      try await tab.evaluate(
        """
        window.violations = [];
        document.addEventListener("securitypolicyviolation", (event) => violations.push(event.effectiveDirective));
        const script = document.createElement("script");
        script.textContent = "window.inlineRan = true";
        document.body.append(script);
        const image = document.createElement("img");
        image.setAttribute("onerror", "window.handlerRan = true");
        image.src = "data:,not-an-image";
        document.body.append(image);
        0
        """)
      try await tab.waitUntil(
        "violations.length >= 2 || window.inlineRan || window.handlerRan", "the policy's verdict on both scripts")
      #expect(try await tab.string("typeof window.inlineRan") == "undefined")
      #expect(try await tab.string("typeof window.handlerRan") == "undefined")
      let violations = try await tab.evaluate("violations").elements.compactMap(\.string)
      #expect(Set(violations) == ["script-src-elem", "script-src-attr"], "\(violations)")
    }
  }

  /// Runs `body` in a browser context of its own on a server of its own
  /// on the demo's plugins (``ServeProcess/demo()``), stopped after.
  func withDemo(_ body: (BrowserContext, ServeProcess) async throws -> Void) async throws {
    let browser = try await DevToolsBrowser.shared()
    let server = try ServeProcess.demo()
    defer { server.stop() }
    try await browser.withContext { context in try await body(context, server) }
  }

  /// Expects of what `scope` holds (`#screen`, `#alert`), named `what`: every
  /// control in the accessibility tree has a name, and there are controls of
  /// each of `roles` (else the check saw nothing); Tab alone reaches every
  /// control in turn, without staying on one, and each shows its focus.
  func expectAccessible(_ tab: BrowserTab, _ what: String, scope: String, roles: Set<String>) async throws {
    let nodes = try await tab.accessibilityTree()
    let controls = nodes.filter { Self.controlRoles.contains($0.role) }
    #expect(roles.isSubset(of: Set(controls.map(\.role))), "\(what): \(nodes)")
    let unnamed = controls.filter { $0.name.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty }
    #expect(unnamed.isEmpty, "\(what): controls without a name: \(unnamed)")

    let walk = try await tab.walkWithTab(scope: scope)
    #expect(!walk.controls.isEmpty, "\(what): no control")
    #expect(walk.missed.isEmpty, "\(what): Tab does not reach \(walk.missed); it reaches \(walk.reached)")
    #expect(walk.stuck == nil, "\(what): Tab stays on \(walk.stuck ?? "")")
    #expect(walk.focusUnseen.isEmpty, "\(what): the focus does not show on \(walk.focusUnseen)")
  }

  /// A directory for the screenshots, kept after the run for people to look at.
  static func screenshotDirectory() throws -> String {
    let path = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("vivarium-browser-\(getpid())").path
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
  }
}

extension BrowserTab {
  /// A script: the URN of the screen the page shows (its section's label).
  static let shownURN = """
    (() => {
      const top = document.querySelector('#screen > .layers')?.lastElementChild;
      const section = top && (top.matches('section.module') ? top : top.querySelector('section.module'));
      return section ? section.getAttribute('aria-label') : null;
    })()
    """

  /// A script: whether the focus is on the first answer of the page's question.
  static let onFirstAnswer = "document.activeElement === document.querySelector('#alert .actions button')"

  /// Waits until the page shows the screen `urn`.
  func waitForScreen(_ urn: String) async throws {
    try await waitUntil("\(Self.shownURN) === \(JSONValue.string(urn).text)", "the screen \(urn)")
  }

  /// The text in the field at `address`.
  func fieldValue(_ address: String) async throws -> String? {
    try await string("document.querySelector('#screen [data-address=\"\(address)\"]')?.value")
  }

  /// Presses Tab until `condition` (a script) holds: at most a few dozen
  /// times, for a page that has fewer controls.
  func tabUntil(_ condition: String, _ what: String) async throws {
    for _ in 0..<40 {
      if try await evaluate("Boolean(\(condition))") == true { return }
      try await press(.tab)
    }
    throw DevToolsBrowser.Failure(description: "Tab never reached \(what)")
  }

  /// Signs in on the login form from the keyboard, each text pasted whole
  /// (``paste(_:)``: one input event, which the page sends on at once).
  func signIn(user: String, password: String) async throws {
    for (address, text) in [("user", user), ("password", password)] {
      try await tabUntil("document.activeElement?.getAttribute('data-address') === '\(address)'", address)
      try await paste(text)
    }
    try await tabUntil("document.activeElement?.getAttribute('data-address') === 'signIn'", "signIn")
    guard try await press(.enter) else {
      throw DevToolsBrowser.Failure(description: "Enter on signIn sent nothing: \(try await evaluate(Self.state).text)")
    }
  }

  /// Answers the page's question with its first answer (allow), from the
  /// keyboard; again while an update took the focus off the answer before
  /// Enter reached it (within ``TestServices/settleLimit``).
  func answerQuestion() async throws {
    let deadline = ContinuousClock.now + .seconds(TestServices.settleLimit)
    repeat {
      try await tabUntil(Self.onFirstAnswer, "the question's first answer")
    } while try await !press(.enter) && ContinuousClock.now < deadline
    try await waitUntil("!document.getElementById('alert').open", "the question closed")
  }

  /// What Tab does in `scope`: the controls there, those it reaches in
  /// turn from the start of the page until it comes round again, the
  /// one it stays on (a trap) and those whose focus does not show.
  struct TabWalk {
    /// The controls in the scope, as ``BrowserTab/tab()`` names them.
    let controls: [String]
    /// Those Tab reached, in order.
    var reached: [String] = []
    /// The control a Tab did not move the focus from, if any.
    var stuck: String?
    /// The controls reached whose focus does not show.
    var focusUnseen: [String] = []
    /// The controls Tab did not reach.
    var missed: [String] { controls.filter { !reached.contains($0) } }
  }

  /// A selector of the controls Tab must reach: the elements that are
  /// controls, and those with a control's role (not an option: its list
  /// box is reached, and the arrows move in it).
  static let controls =
    "button, input:not([type=hidden]), select, textarea, a[href], [role=button], [role=link], [role=checkbox], "
    + "[role=textbox], [role=listbox], [role=combobox], [role=radio], [role=switch], [role=tab], [role=menuitem]"

  /// Walks `scope` with Tab alone, from the start of the page, again until
  /// a walk sees no message from the server (within
  /// ``TestServices/settleLimit``): an update while the walk is under way
  /// redraws what it walks (see `aQuestionKeepsTheFocusWhenThePageUpdates`
  /// for what that does to the focus).
  func walkWithTab(scope: String) async throws -> TabWalk {
    let deadline = ContinuousClock.now + .seconds(TestServices.settleLimit)
    while true {
      let received = try await evaluate("window.vivariumTest.received")
      let walk = try await walkOnce(scope: scope)
      if try await evaluate("window.vivariumTest.received") == received || ContinuousClock.now > deadline {
        return walk
      }
    }
  }

  /// One walk of `scope` with Tab alone, from the start of the page.
  private func walkOnce(scope: String) async throws -> TabWalk {
    let controls = try await evaluate(
      """
      [...document.querySelectorAll("\(scope) :is(\(Self.controls))")]
        .filter((element) => !element.disabled && element.getClientRects().length > 0)
        .map(window.vivariumTest.describe)
      """
    ).elements.compactMap(\.string)
    var walk = TabWalk(controls: controls)
    try await evaluate("document.activeElement?.blur(); 0")
    for _ in 0..<(2 * controls.count + 4) {
      let focused = try await tab()
      if focused == "(body)" { continue }
      if focused == walk.reached.first { break }
      if focused == walk.reached.last {
        walk.stuck = focused
        break
      }
      walk.reached.append(focused)
      let shown = try await evaluate(
        """
        (() => {
          const style = getComputedStyle(document.activeElement);
          return (style.outlineStyle !== "none" && parseFloat(style.outlineWidth) > 0) || style.boxShadow !== "none";
        })()
        """)
      if shown != true { walk.focusUnseen.append(focused) }
    }
    return walk
  }
}
