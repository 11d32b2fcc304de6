import CVivariumSystem
import Foundation
import Glibc
import Synchronization

/// Headless Chromium, driven over the DevTools protocol on a pipe: the
/// browser reads commands on its descriptor 3 and writes answers and
/// events on its descriptor 4, each message JSON ended by a NUL byte.
///
/// One browser serves the whole test run (``shared()``), started when a
/// test first asks for it; each test opens tabs in a browser context of its
/// own (``withContext(_:)``). When the test process ends, the browser's
/// command pipe closes, which ends it; at a normal exit it is also ended
/// here, waited for and its profile directory removed.
final class DevToolsBrowser: Sendable {
  /// An error the protocol answered, or why no answer came.
  struct Failure: Error, CustomStringConvertible {
    /// What went wrong, with the end of what the browser printed when it helps.
    let description: String
  }

  /// An event the browser sent: its method, parameters, and the session
  /// (tab) it is about, if any.
  struct Event: Sendable {
    /// The event's name, such as `Page.loadEventFired`.
    let method: String
    /// Its parameters.
    let params: JSONValue
    /// The session (tab) it is about; nil for the browser's own.
    let sessionId: String?
  }

  /// The browser's process.
  let pid: pid_t
  /// Its profile, a fresh directory removed when it ends.
  let profile: String
  /// Where its standard output and error go, for failures to quote.
  private let logFile: String
  /// Our end of the browser's descriptor 3.
  private let commands: Int32
  /// Our end of the browser's descriptor 4.
  private let answers: Int32
  private let state = Mutex(State())
  /// Held while a command is written, so that commands never interleave.
  private let writing = Mutex(())

  /// What the reading thread and the senders share.
  private struct State {
    var nextID = 1
    var pending: [Int: CheckedContinuation<JSONValue, any Error>] = [:]
    var events: [Event] = []
    /// Why the connection ended, once it has.
    var ended: String?
  }

  /// What every test of the run shares: the browser once started, or why it could not start.
  private static let started = Result { try DevToolsBrowser() }
  /// The browser to end at exit, once one started.
  private static let running = Mutex<DevToolsBrowser?>(nil)

  /// The test run's browser, started on first use; it answers a first
  /// command before it is handed out.
  static func shared() async throws -> DevToolsBrowser {
    let browser = try started.get()
    _ = try await browser.send("Browser.getVersion")
    return browser
  }

  /// Where `chromium` is on PATH, or nil.
  static func executable() -> String? {
    let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
    return path.split(separator: ":").map { $0 + "/chromium" }.first { access($0, X_OK) == 0 }
  }

  private init() throws {
    guard let executable = Self.executable() else {
      throw Failure(
        description:
          "Chromium is not installed (no 'chromium' on PATH): the browser tests need it. Run the tests with "
          + "Scripts/test, the README's test command, which installs it.")
    }
    let temporary = URL(fileURLWithPath: NSTemporaryDirectory())
    var template = Array(temporary.appendingPathComponent("vivarium-chromium-XXXXXX").path.utf8CString)
    guard let made = mkdtemp(&template) else { throw Failure(description: "cannot make a profile directory") }
    profile = String(cString: made)
    logFile = profile + "/chromium.log"
    // The browser reads `toBrowser[0]` as its 3 and writes `fromBrowser[1]`
    // as its 4; every end is close-on-exec, so no other child inherits one.
    var toBrowser: [Int32] = [-1, -1]
    var fromBrowser: [Int32] = [-1, -1]
    guard vivarium_pipe_cloexec(&toBrowser) == 0, vivarium_pipe_cloexec(&fromBrowser) == 0 else {
      throw Failure(description: "cannot make the DevTools pipes: errno \(errno)")
    }
    // Above 4, so that neither end is already 3 or 4 when it is duplicated there.
    let childReads = fcntl(toBrowser[0], F_DUPFD_CLOEXEC, 10)
    let childWrites = fcntl(fromBrowser[1], F_DUPFD_CLOEXEC, 10)
    close(toBrowser[0])
    close(fromBrowser[1])
    defer {
      close(childReads)
      close(childWrites)
    }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 1, logFile, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    posix_spawn_file_actions_adddup2(&actions, 1, 2)
    posix_spawn_file_actions_adddup2(&actions, childReads, 3)
    posix_spawn_file_actions_adddup2(&actions, childWrites, 4)
    _ = vivarium_spawn_add_closefrom(&actions, 5)
    let arguments = [
      executable, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--no-default-browser-check",
      "--remote-debugging-pipe", "--user-data-dir=\(profile)", "about:blank",
    ]
    let argv = arguments.map { strdup($0) } + [nil]
    let envp = ProcessInfo.processInfo.environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
    defer { (argv + envp).forEach { free($0) } }
    var pid: pid_t = 0
    let status = posix_spawn(&pid, executable, &actions, nil, argv, envp)
    guard status == 0 else {
      close(toBrowser[1])
      close(fromBrowser[0])
      try? FileManager.default.removeItem(atPath: profile)
      throw Failure(description: "cannot start \(executable): \(String(cString: strerror(status)))")
    }
    self.pid = pid
    commands = toBrowser[1]
    answers = fromBrowser[0]
    Self.running.withLock { $0 = self }
    atexit { DevToolsBrowser.running.withLock { $0 }?.end() }
    Thread { [self] in readAnswers() }.start()
  }

  /// Sends `method` with `params`, to the tab of `sessionId` if given, and
  /// returns its result; throws the protocol's error, or if no answer comes
  /// within ``TestServices/settleLimit`` (a bound on a hang).
  @discardableResult
  func send(_ method: String, _ params: JSONValue = [:], sessionId: String? = nil) async throws -> JSONValue {
    let id = state.withLock { state in
      defer { state.nextID += 1 }
      return state.nextID
    }
    var message: [String: JSONValue] = ["id": .number(Double(id)), "method": .string(method), "params": params]
    if let sessionId { message["sessionId"] = .string(sessionId) }
    let bytes = Array(try JSONEncoder().encode(JSONValue.object(message))) + [0]
    return try await withCheckedThrowingContinuation { continuation in
      let ended: String? = state.withLock { state in
        if state.ended == nil { state.pending[id] = continuation }
        return state.ended
      }
      if let ended {
        return continuation.resume(throwing: Failure(description: "\(method): \(ended)\(logTail)"))
      }
      guard write(bytes) else { return fail(id, "\(method): cannot write to the browser: errno \(errno)") }
      DispatchQueue.global().asyncAfter(deadline: .now() + TestServices.settleLimit) { [self] in
        fail(id, "\(method): no answer within \(Int(TestServices.settleLimit)) s")
      }
    }
  }

  /// How many events have come so far: where ``waitForEvent(_:sessionId:after:matching:)`` may start looking.
  var eventCount: Int { state.withLock { $0.events.count } }

  /// The first event named `method`, for `sessionId` when given, from the
  /// `after`th on, that `matching` takes: one already come, or the next to
  /// come within ``TestServices/settleLimit``.
  func waitForEvent(
    _ method: String, sessionId: String? = nil, after start: Int = 0,
    matching: (JSONValue) -> Bool = { _ in true }
  ) async throws -> Event {
    let deadline = ContinuousClock.now + .seconds(TestServices.settleLimit)
    var next = start
    while true {
      let (events, ended) = state.withLock { state in
        (Array(state.events[min(next, state.events.count)...]), state.ended)
      }
      next += events.count
      if let found = events.first(where: {
        $0.method == method && (sessionId == nil || $0.sessionId == sessionId) && matching($0.params)
      }) {
        return found
      }
      if let ended { throw Failure(description: "waiting for \(method): \(ended)\(logTail)") }
      guard ContinuousClock.now < deadline else {
        throw Failure(description: "no \(method) event within \(Int(TestServices.settleLimit)) s")
      }
      try await Task.sleep(for: .milliseconds(20))
    }
  }

  /// Runs `body` with a browser context of its own (its own cookies and
  /// tabs), closed after it, whether it returns or throws.
  func withContext<T: Sendable>(_ body: (BrowserContext) async throws -> T) async throws -> T {
    let created = try await send("Target.createBrowserContext", ["disposeOnDetach": true])
    guard let id = created["browserContextId"]?.string else {
      throw Failure(description: "Target.createBrowserContext answered \(created.text)")
    }
    let context = BrowserContext(browser: self, id: id)
    do {
      let result = try await body(context)
      try await context.close()
      return result
    } catch {
      try? await context.close()
      throw error
    }
  }

  /// Ends the browser: closes its command pipe (on which it quits), waits
  /// for it (killing it if it does not end within the bound) and removes its
  /// profile.
  private func end() {
    close(commands)
    var status: Int32 = 0
    let deadline = ContinuousClock.now + .seconds(TestServices.settleLimit)
    while waitpid(pid, &status, WNOHANG) == 0 {
      if ContinuousClock.now > deadline {
        kill(pid, SIGKILL)
        waitpid(pid, &status, 0)
        break
      }
      usleep(20_000)
    }
    try? FileManager.default.removeItem(atPath: profile)
  }

  /// Writes one whole message.
  private func write(_ bytes: [UInt8]) -> Bool {
    writing.withLock { _ in
      var written = 0
      while written < bytes.count {
        let count = bytes[written...].withUnsafeBytes { Glibc.write(commands, $0.baseAddress, $0.count) }
        if count < 0, errno == EINTR { continue }
        guard count > 0 else { return false }
        written += count
      }
      return true
    }
  }

  /// Fails the command `id` with `reason`, if it is still waiting.
  private func fail(_ id: Int, _ reason: String) {
    let continuation = state.withLock { $0.pending.removeValue(forKey: id) }
    continuation?.resume(throwing: Failure(description: reason + logTail))
  }

  /// The reading thread: messages until the browser closes its end.
  private func readAnswers() {
    var buffer: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 1 << 16)
    while true {
      let count = read(answers, &chunk, chunk.count)
      if count < 0, errno == EINTR { continue }
      guard count > 0 else { break }
      var searched = buffer.count
      buffer += chunk[0..<count]
      while let end = buffer[searched...].firstIndex(of: 0) {
        receive(buffer[..<end])
        buffer.removeFirst(end + 1)
        searched = 0
      }
    }
    close(answers)
    let waiting = state.withLock { state in
      state.ended = "the browser closed the DevTools pipe"
      defer { state.pending.removeAll() }
      return Array(state.pending.values)
    }
    for continuation in waiting {
      continuation.resume(throwing: Failure(description: "the browser closed the DevTools pipe\(logTail)"))
    }
  }

  /// One message: an answer to a command, or an event.
  private func receive(_ bytes: ArraySlice<UInt8>) {
    guard let message = try? JSONDecoder().decode(JSONValue.self, from: Data(bytes)) else { return }
    if let id = message["id"]?.number.map(Int.init) {
      let continuation = state.withLock { $0.pending.removeValue(forKey: id) }
      if let error = message["error"] {
        continuation?.resume(throwing: Failure(description: "the browser answered: \(error.text)"))
      } else {
        continuation?.resume(returning: message["result"] ?? [:])
      }
    } else if let method = message["method"]?.string {
      let event = Event(method: method, params: message["params"] ?? [:], sessionId: message["sessionId"]?.string)
      state.withLock { $0.events.append(event) }
    }
  }

  /// The end of what the browser printed, for a failure's message.
  private var logTail: String {
    guard let log = try? String(contentsOfFile: logFile, encoding: .utf8), !log.isEmpty else { return "" }
    return "; the browser printed: …" + String(log.suffix(1_000))
  }
}

/// A browser context: tabs sharing their cookies with each other only.
struct BrowserContext: Sendable {
  /// The browser it is in.
  let browser: DevToolsBrowser
  /// Its id in the protocol.
  let id: String

  /// Opens a tab on `url`, attached to the test by a session of its own.
  func openTab(_ url: String) async throws -> BrowserTab {
    let created = try await browser.send(
      "Target.createTarget", ["url": "about:blank", "browserContextId": .string(id)])
    guard let target = created["targetId"]?.string else {
      throw DevToolsBrowser.Failure(description: "Target.createTarget answered \(created.text)")
    }
    let attached = try await browser.send("Target.attachToTarget", ["targetId": .string(target), "flatten": true])
    guard let session = attached["sessionId"]?.string else {
      throw DevToolsBrowser.Failure(description: "Target.attachToTarget answered \(attached.text)")
    }
    let tab = BrowserTab(browser: browser, targetId: target, sessionId: session)
    try await tab.prepare()
    if url != "about:blank" { try await tab.navigate(url) }
    return tab
  }

  /// Closes the context and every tab in it.
  func close() async throws {
    try await browser.send("Target.disposeBrowserContext", ["browserContextId": .string(id)])
  }
}
