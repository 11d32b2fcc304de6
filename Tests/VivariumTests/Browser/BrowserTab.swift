import Foundation

/// One tab of the test run's browser, attached by a DevTools session of its
/// own: it navigates, evaluates script in the page, types as a person does
/// and reads the page's accessibility tree.
///
/// A person types one key after another, each after the page has heard back
/// from the server about the one before; so does ``press(_:)``: the tab
/// counts the messages the page's WebSocket sends and receives (``probe``),
/// and a key that made the page send waits until a message has come since.
struct BrowserTab: Sendable {
  /// The browser it is in.
  let browser: DevToolsBrowser
  /// The tab's id in the protocol.
  let targetId: String
  /// The DevTools session attached to it.
  let sessionId: String

  /// A key ``press(_:)`` sends: its name and code, its Windows key code (what
  /// Chromium reads for keys that type nothing) and the text it types.
  struct Key: Sendable {
    /// The key's name, as `KeyboardEvent.key` gives it.
    let key: String
    /// The physical key, as `KeyboardEvent.code` gives it; empty for a typed character.
    let code: String
    /// The Windows virtual key code; 0 for a typed character.
    let keyCode: Int
    /// The text the key types, if any.
    let text: String?

    /// Tab: the focus to the next control.
    static let tab = Key(key: "Tab", code: "Tab", keyCode: 9, text: nil)
    /// Enter (typing a carriage return, as a keyboard does).
    static let enter = Key(key: "Enter", code: "Enter", keyCode: 13, text: "\r")
    /// Escape: leaves a field, closes a dialog, or goes back.
    static let escape = Key(key: "Escape", code: "Escape", keyCode: 27, text: nil)
    /// ↓: the next row of a list.
    static let down = Key(key: "ArrowDown", code: "ArrowDown", keyCode: 40, text: nil)
    /// ↑: the row before in a list.
    static let up = Key(key: "ArrowUp", code: "ArrowUp", keyCode: 38, text: nil)

    /// The key that types `character`.
    static func typing(_ character: Character) -> Key {
      Key(key: String(character), code: "", keyCode: 0, text: String(character))
    }
  }

  /// What the tab installs in every document before the page's own script
  /// runs, as `window.vivariumTest`: how many messages the page's WebSocket
  /// sent (`sent`), received (`received`) and had received when it last sent
  /// (`receivedAtLastSend`); the socket itself (`socket`); every field whose
  /// text a message from the server took back (`takenBack`: the field's
  /// address, its value before the page handled the message and after, when
  /// the value after does not begin with the one before); and how the tests
  /// name an element (`describe`).
  static let probe = """
    (() => {
      const probe = { sent: 0, received: 0, receivedAtLastSend: 0, socket: null, takenBack: [] };
      probe.describe = (element) => {
        if (!element || element === document.body || element === document.documentElement) return "(body)";
        return element.getAttribute("data-address")
          || [element.localName, element.getAttribute("role") || "", element.getAttribute("aria-label")
            || element.textContent.trim().slice(0, 40)].join(" ");
      };
      Object.defineProperty(window, "vivariumTest", { value: probe });
      const fields = () => new Map([...document.querySelectorAll("#screen input[data-address]")]
        .map((input) => [input.getAttribute("data-address"), input.value]));
      const send = WebSocket.prototype.send;
      WebSocket.prototype.send = function (data) {
        probe.sent += 1;
        probe.receivedAtLastSend = probe.received;
        return send.call(this, data);
      };
      window.WebSocket = new Proxy(WebSocket, {
        construct(target, args) {
          const socket = Reflect.construct(target, args);
          probe.socket = socket;
          socket.addEventListener("message", () => { probe.received += 1; });
          // The page's own handler of messages, watched: what it does to the fields.
          const add = socket.addEventListener;
          socket.addEventListener = function (type, listener, options) {
            if (type !== "message") return add.call(this, type, listener, options);
            return add.call(this, type, (event) => {
              const before = fields();
              try {
                return listener.call(this, event);
              } finally {
                const after = fields();
                for (const [address, value] of before) {
                  if (after.has(address) && !after.get(address).startsWith(value)) {
                    probe.takenBack.push({ address, before: value, after: after.get(address) });
                  }
                }
              }
            }, options);
          };
          return socket;
        },
      });
    })();
    """

  /// Sends `method` to the tab.
  @discardableResult
  func send(_ method: String, _ params: JSONValue = [:]) async throws -> JSONValue {
    try await browser.send(method, params, sessionId: sessionId)
  }

  /// Enables the page's events, focus emulation and installs ``probe`` in every document it loads.
  func prepare() async throws {
    try await send("Page.enable")
    // Every tab behaves as the focused one: keys reach a tab in the background too.
    try await send("Emulation.setFocusEmulationEnabled", ["enabled": true])
    try await send("Page.addScriptToEvaluateOnNewDocument", ["source": .string(Self.probe)])
  }

  /// Loads `url` and waits for its load event.
  func navigate(_ url: String) async throws {
    let start = browser.eventCount
    let result = try await send("Page.navigate", ["url": .string(url)])
    if let error = result["errorText"]?.string {
      throw DevToolsBrowser.Failure(description: "cannot open \(url): \(error)")
    }
    _ = try await browser.waitForEvent("Page.loadEventFired", sessionId: sessionId, after: start)
  }

  /// The value of `expression`, evaluated in the page (a promise awaited);
  /// null for undefined. Throws what the expression threw.
  @discardableResult
  func evaluate(_ expression: String) async throws -> JSONValue {
    let answer = try await send(
      "Runtime.evaluate", ["expression": .string(expression), "returnByValue": true, "awaitPromise": true])
    if let exception = answer["exceptionDetails"] {
      throw DevToolsBrowser.Failure(
        description: "\(expression) threw: \(exception["exception"]?["description"]?.string ?? exception.text)")
    }
    return answer["result"]?["value"] ?? .null
  }

  /// The string `expression` evaluates to; nil for anything else.
  func string(_ expression: String) async throws -> String? {
    try await evaluate(expression).string
  }

  /// Waits until `condition` (a script expression) is true in the page, within
  /// ``TestServices/settleLimit`` (a bound on a hang); throws naming `what`
  /// and the page's screen if it never is.
  func waitUntil(_ condition: String, _ what: String) async throws {
    let deadline = ContinuousClock.now + .seconds(TestServices.settleLimit)
    var problem = ""
    while ContinuousClock.now < deadline {
      do {
        if try await evaluate("Boolean(\(condition))") == true { return }
      } catch {
        // The page may be between documents; say so if it stays so.
        problem = " (\(error))"
      }
      try await Task.sleep(for: .milliseconds(20))
    }
    let shown = (try? await evaluate(Self.state).text) ?? "(unknown)"
    throw DevToolsBrowser.Failure(
      description: "\(what): not within \(Int(TestServices.settleLimit)) s\(problem); the page: \(shown)")
  }

  /// A script: the page's state as a failure tells it: its address, the
  /// screen's text, what has the focus and the WebSocket's counts.
  static let state = """
    ({ address: location.href, screen: document.getElementById("screen")?.textContent,
      focused: window.vivariumTest?.describe(document.activeElement), sent: window.vivariumTest?.sent,
      received: window.vivariumTest?.received })
    """

  /// Presses and releases `key`, then, if that made the page send to the
  /// server, waits until the page has received a message since. Returns
  /// whether the page sent.
  @discardableResult
  func press(_ key: Key) async throws -> Bool {
    try await answered(key.key) {
      var down: [String: JSONValue] = [
        "type": "keyDown", "key": .string(key.key), "code": .string(key.code),
        "windowsVirtualKeyCode": .number(Double(key.keyCode)),
      ]
      if let text = key.text { down["text"] = .string(text) }
      try await send("Input.dispatchKeyEvent", .object(down))
      try await send(
        "Input.dispatchKeyEvent",
        [
          "type": "keyUp", "key": .string(key.key), "code": .string(key.code),
          "windowsVirtualKeyCode": .number(Double(key.keyCode)),
        ])
    }
  }

  /// Puts `text` into the focused field whole, as pasting it does
  /// (Input.insertText: one input event), then, as ``press(_:)``, waits for
  /// the page's answer.
  @discardableResult
  func paste(_ text: String) async throws -> Bool {
    try await answered("pasting") { try await send("Input.insertText", ["text": .string(text)]) }
  }

  /// Does `action`; if that made the page send to the server, waits until
  /// the page has received a message since. Returns whether the page sent.
  private func answered(_ what: String, _ action: () async throws -> Void) async throws -> Bool {
    let sentBefore = try await evaluate("window.vivariumTest.sent").number ?? 0
    try await action()
    try await waitUntil(
      "window.vivariumTest.sent === \(Int(sentBefore)) "
        + "|| window.vivariumTest.received > window.vivariumTest.receivedAtLastSend",
      "the page's answer after \(what)")
    return try await evaluate("window.vivariumTest.sent").number != sentBefore
  }

  /// Types `text` one key at a time (``press(_:)``).
  func type(_ text: String) async throws {
    for character in text { try await press(.typing(character)) }
  }

  /// Presses Tab and returns what has the focus after it: its
  /// `data-address`, or else its tag, role and accessible label.
  func tab() async throws -> String {
    try await press(.tab)
    return try await string(Self.focusedDescription) ?? ""
  }

  /// A script naming what has the focus, as ``tab()`` returns it.
  static let focusedDescription = "window.vivariumTest.describe(document.activeElement)"

  /// Closes the tab.
  func close() async throws {
    try await browser.send("Target.closeTarget", ["targetId": .string(targetId)])
  }

  /// The page's accessibility tree, without the nodes it ignores.
  func accessibilityTree() async throws -> [AccessibilityNode] {
    let tree = try await send("Accessibility.getFullAXTree")
    return tree["nodes"]?.elements.compactMap(AccessibilityNode.init) ?? []
  }

  /// Saves a PNG of the whole page to `path`.
  func screenshot(to path: String) async throws {
    let shot = try await send("Page.captureScreenshot", ["format": "png", "captureBeyondViewport": true])
    guard let data = shot["data"]?.string.flatMap({ Data(base64Encoded: $0) }) else {
      throw DevToolsBrowser.Failure(description: "Page.captureScreenshot answered no image")
    }
    try data.write(to: URL(fileURLWithPath: path))
  }
}

/// A node of a page's accessibility tree, as Accessibility.getFullAXTree
/// gives it: its role and accessible name.
struct AccessibilityNode: Sendable, CustomStringConvertible {
  /// Its role (`button`, `textbox`, …; Chromium's own for text).
  let role: String
  /// Its accessible name; empty if it has none.
  let name: String

  /// The node `value` describes, unless the tree ignores it.
  init?(_ value: JSONValue) {
    guard value["ignored"]?.bool != true, let role = value["role"]?["value"]?.string else { return nil }
    self.role = role
    name = value["name"]?["value"]?.string ?? ""
  }

  /// The role and the name, as failures show them.
  var description: String { "\(role) '\(name)'" }
}
