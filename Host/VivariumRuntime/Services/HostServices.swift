import CVivariumSystem
import Foundation
import Glibc
import ViperKit
import ViperKitHosting
import VivariumLoading
import VivariumSupport

/// The services container, built once when the host starts: storage and
/// settings in the data directory, the log, notices and alerts for the person,
/// and the clock. Each module gets the services its contract lists.
///
/// It locks the data directory for as long as it lives (``DataDirectoryLock``):
/// a second container over the same directory, in this process or another,
/// is read-only, and its saves fail with ``saveRefusal``.
@MainActor
package final class HostServices {
  /// Where storage, settings and the log live.
  package let dataDirectory: String
  /// How the hints the host gives name a command a person can run: with
  /// the directories this host runs on, as the session names it.
  package var invocation = Invocation.plain {
    didSet { permissions.invocation = invocation }
  }
  /// The host's own notices (a storage problem, the log unwritable), and
  /// those of business service providers, which no session owns: raised in
  /// every open session.
  package let announcements = HostAnnouncements()
  /// Log entries written during this run, newest last: one per message, its
  /// line breaks kept (each line after the first indented by four spaces).
  package var recentLog: [String] { recentEntries.map(\.text) }
  /// The same entries, each with its level and plugin, for the session's
  /// `log PLUGIN LEVEL`.
  package private(set) var recentEntries: [LogEntry] = []

  /// How many entries ``recentEntries`` keeps.
  package static let recentEntriesKept = 200

  /// An entry of ``recentEntries``.
  package struct LogEntry: Sendable, Equatable {
    /// How much it matters.
    package let level: LogLevel
    /// The declared name of the plugin whose line it is; nil for the host's.
    package let plugin: String?
    /// The line, its message's line breaks kept.
    package let text: String
  }

  /// The clock every module gets: real, or virtual from `now`.
  package let clock: ModuleClock
  private let lock: DataDirectoryLock
  private lazy var settings = FileSettingsStore(
    PersistentDictionary(
      path: dataDirectory + "/" + Self.settingsFile, refusal: saveRefusal,
      onProblem: { [weak self] in self?.report($0) }))
  /// The app-wide settings' file in the data directory.
  package static let settingsFile = "settings.json"
  private var stores: [String: FileKeyValueStore] = [:]

  /// Services keeping their files in `dataDirectory`, telling virtual time
  /// starting at `now` (seconds since 1970) when given, else real time. Locks the
  /// data directory and, when it gets the lock, removes the temporary files
  /// interrupted saves left there.
  package init(dataDirectory: String, now: Double? = nil) {
    self.dataDirectory = dataDirectory
    clock = ModuleClock(now.map { .virtual(start: $0) } ?? .real)
    lock = DataDirectoryLock(directory: dataDirectory)
    logLevels = PluginLogLevels(dataDirectory: dataDirectory)
    if let damage = logLevels.damage { logLine(.warning, module: "host", damage) }
    events.report = { [weak self] plugin, module, problem in
      self?.logLine(.warning, module: module, problem, by: plugin)
    }
    guard lock.access == .exclusive else { return }
    let leftovers = DataDirectoryLock.removeLeftovers(
      in: [dataDirectory, dataDirectory + "/storage", dataDirectory + "/" + NavigationStore.folder])
    if !leftovers.isEmpty {
      logLine(.info, module: "host", "removed what interrupted saves left: \(leftovers.joined(separator: ", "))")
    }
  }

  /// Whether this session may save in ``dataDirectory``.
  package var dataAccess: DataAccess { lock.access }

  /// Why every save fails in this session, for the person; nil when this
  /// session holds the data directory.
  package var saveRefusal: String? {
    switch lock.access {
    case .exclusive:
      return nil
    case .readOnly(let holder):
      let owner = holder.map { "vivarium (pid \($0))" } ?? "another vivarium"
      return
        "the data directory \(dataDirectory) is in use by \(owner); this session is read-only: saves fail until it quits, or use --data DIR"
    case .unavailable(let reason):
      return
        "the data directory \(dataDirectory) cannot be locked (\(reason)); this session is read-only: saves fail; make it a writable directory, or use --data DIR"
    }
  }

  /// The data directory the environment asks for: `VIVARIUM_DATA_DIR`, else
  /// `$XDG_DATA_HOME/vivarium`, else `~/.local/share/vivarium`.
  package static func defaultDataDirectory(_ environment: [String: String]) -> String {
    if let directory = environment["VIVARIUM_DATA_DIR"], !directory.isEmpty { return directory }
    if let xdg = environment["XDG_DATA_HOME"], !xdg.isEmpty { return xdg + "/vivarium" }
    return (environment["HOME"] ?? NSHomeDirectory()) + "/.local/share/vivarium"
  }

  /// The app-wide setting `key`, for route guards: a typed setting not set
  /// at its default.
  func setting(_ key: String) -> ArgumentValue? {
    settings.value(forKey: key) ?? settingOwnership.defaultValue(key)
  }

  /// Has `changed` called with the key and new value of each app-wide
  /// setting saved, for as long as `owner` lives; replaces what `owner`
  /// observed before.
  func observeSettings(by owner: AnyObject, _ changed: @escaping @MainActor (String, ArgumentValue?) -> Void) {
    settings.observe(by: owner, changed)
  }

  /// The settings the person changes, for the app's settings screen.
  package var settingsEditor: SettingsEditor { SettingsEditor(store: settings, ownership: settingOwnership) }

  /// Takes what was saved in the settings elsewhere since the last look
  /// (`vivarium settings` beside the app), telling the modules observing it.
  package func takeSettingsSavedElsewhere() { settings.dictionary.refresh() }

  /// Sets the app-wide setting `key`, as a module with the settings service
  /// would (for tests).
  package func setSetting(_ value: ArgumentValue?, forKey key: String) throws { try settings.set(value, forKey: key) }

  /// The services `contract` lists, for the module `urn` of `plugin`, whose
  /// notices and alerts go to `person` (its session's; nil: every session's,
  /// through ``announcements``, as for a provider) and whose uses of a
  /// permission never decided are asked through `asker` (its session's;
  /// nil: as the gate asks for the host); in place of each other one, an
  /// ``UndeclaredService`` whose first use is logged and noticed, naming the
  /// service to add to the contract. `isProvider`: `urn` names a business
  /// service provider, whose list is its `static let services`.
  package func services(
    for contract: Contract, plugin: PluginIdentity, urn: String, telling person: (any Notifier)? = nil,
    asking asker: PermissionAsker? = nil, isProvider: Bool = false
  ) -> Services {
    let person = person ?? announcements
    let reporter = ModuleReporter(services: self, person: person, urn: urn, plugin: plugin.name)
    var listed = Services()
    for name in Set(contract.services) {
      switch name {
      case .storage: listed.storage = store(for: plugin)
      case .settings: listed.settings = settings(for: plugin)
      case .log: listed.log = reporter
      case .notifications: listed.notifications = reporter
      case .clock: listed.clock = clock
      case .http: listed.http = asker.map { ModuleHTTP(http(for: plugin), asking: $0) } ?? http(for: plugin)
      @unknown default: break  // One of a newer ViperKit: it stays a stand-in.
      }
    }
    let bus = events.bus(for: plugin, module: urn)
    bus.problem = { [weak self] problem in
      self?.logLine(.error, module: urn, problem, by: plugin.name)
      person.notice(problem, tone: .warning)
    }
    var filled = UndeclaredService.filling(
      listed, listing: contract.services, for: urn, isProvider: isProvider, now: { [clock] in clock.now() }
    ) {
      [weak self] undeclared in
      self?.logLine(.error, module: urn, undeclared.problem, by: plugin.name)
      person.notice(undeclared.problem, tone: .warning)
    }
    filled.events = bus
    return filled
  }

  /// Where events between plugins go (ViperKit 3.1): its plugins are the
  /// catalog's, set by the host.
  package let events = EventRouter()

  /// Who owns each app-wide setting: the runtime's catalog's.
  package var settingOwnership = SettingOwnership()
  private var pluginSettings: [String: PluginSettings] = [:]

  /// `plugin`'s view of the settings: what it may read and change.
  private func settings(for plugin: PluginIdentity) -> PluginSettings {
    if let view = pluginSettings[plugin.path] { return view }
    let view = PluginSettings(settings, for: plugin, ownership: { [weak self] in self?.settingOwnership ?? .init() }) {
      [weak self] refusal in self?.logLine(.warning, module: plugin.name, refusal, by: plugin.name)
    }
    pluginSettings[plugin.path] = view
    return view
  }

  /// Where every use of a permission is decided and logged.
  package private(set) lazy var permissions: PermissionGate = {
    let gate = PermissionGate(dataDirectory: dataDirectory, saveRefusal: saveRefusal) { [clock] in clock.now() }
    gate.report = { [weak self] problem in self?.logLine(.error, module: "host", problem) }
    return gate
  }()

  /// How the `http` service reaches the network (`VIVARIUM_HTTP`).
  package var httpMode = HTTPMode.live
  private var httpClients: [String: PluginHTTP] = [:]

  /// The `http` service of `plugin`: one per plugin file (two that declare
  /// one name share no session), for the hosts it declares.
  private func http(for plugin: PluginIdentity) -> PluginHTTP {
    if let client = httpClients[plugin.path] { return client }
    let client = PluginHTTP(identity: plugin, gate: permissions, mode: httpMode) { [weak self] level, line in
      self?.logLine(level, module: plugin.name, line, by: plugin.name)
    }
    httpClients[plugin.path] = client
    return client
  }

  /// The storage of `plugin`: `storage/NAME.json` for its declared name.
  private func store(for plugin: PluginIdentity) -> any KeyValueStore {
    if let refusal = plugin.storageRefusal { return RefusedKeyValueStore(reason: refusal) }
    if let store = stores[plugin.name] { return store }
    let store = FileKeyValueStore(
      PersistentDictionary(
        path: storagePath(for: plugin), refusal: saveRefusal, onProblem: { [weak self] in self?.report($0) }))
    stores[plugin.name] = store
    return store
  }

  /// `storage/NAME.json`, after moving there the file this plugin's storage
  /// had when it was named after the plugin file, if that is all there is. A
  /// read-only session reads the old file where it is.
  private func storagePath(for plugin: PluginIdentity) -> String {
    let directory = dataDirectory + "/storage"
    let path = "\(directory)/\(plugin.name).json"
    let legacy = "\(directory)/\(plugin.legacyStorageName).json"
    guard legacy != path, !FileContents.exists(path), FileContents.exists(legacy) else { return path }
    guard saveRefusal == nil else { return legacy }
    guard rename(legacy, path) == 0 else {
      let reason = AtomicFile.errorText(errno)
      logLine(.error, module: "host", "cannot move \(legacy) to \(path) (\(reason)); it is used where it is")
      return legacy
    }
    logLine(.info, module: "host", "moved \(legacy) to \(path): storage is now named after the plugin, not its file")
    return path
  }

  /// Tells the person about a storage problem, and logs it.
  private func report(_ problem: String) {
    logLine(.error, module: "host", problem)
    announcements.notice(problem, tone: .warning)
  }

  /// How many lines each plugin may log (``logLine(_:module:_:by:)``):
  /// `rate` a second, `burst` at once.
  package var pluginLogRate = (rate: 50.0, burst: 500.0)
  /// The size past which `vivarium.log` becomes `vivarium.log.1` (replacing
  /// the one before) and a new one is started: the log takes at most twice
  /// this on disk.
  package var logFileLimit = 8 << 20
  /// The most of a message a line holds.
  static let longestMessage = 16 << 10

  /// Each plugin's lines: what it may log now, when that was worked out,
  /// and how many it logged past that since last said.
  private var logBuckets: [String: (tokens: Double, time: Double, dropped: Int)] = [:]

  /// Whether `plugin` may log a line now (``pluginLogRate``); past its
  /// rate the lines are dropped, and counted, and the count logged a
  /// second after the first, as one line.
  private func admitsLine(by plugin: String) -> Bool {
    let now = Self.monotonicSeconds()
    let (rate, burst) = pluginLogRate
    var bucket = logBuckets[plugin] ?? (burst, now, 0)
    bucket.tokens = min(burst, bucket.tokens + (now - bucket.time) * rate)
    bucket.time = now
    defer { logBuckets[plugin] = bucket }
    if bucket.tokens >= 1 {
      bucket.tokens -= 1
      return true
    }
    bucket.dropped += 1
    if bucket.dropped == 1 {
      Task { @MainActor [weak self] in
        try? await Task.sleep(for: .seconds(1))
        self?.sayDroppedLines(of: plugin)
      }
    }
    return false
  }

  /// Logs how many lines `plugin` logged past its rate since last said.
  func sayDroppedLines(of plugin: String) {
    guard let dropped = logBuckets[plugin]?.dropped, dropped > 0 else { return }
    logBuckets[plugin]?.dropped = 0
    let (rate, burst) = pluginLogRate
    write(
      .warning, module: "host",
      "\(plugin): \(dropped) lines dropped (a plugin may log \(Int(rate)) lines a second, \(Int(burst)) at once)",
      by: plugin)
  }

  /// The level each plugin logs at (``PluginLogLevels``), as last read.
  private var logLevels: PluginLogLevels

  /// Follows the levels saved in the data directory by another process
  /// (`vivarium log --set-level`): one look at the file's signature, and
  /// each change logged. A file that cannot be read changes nothing: the
  /// levels stay as they were, and the log says why.
  package func followLogLevels() {
    guard logLevels.isStale else { return }
    let before = logLevels.levels
    logLevels.reload()
    if let damage = logLevels.damage {
      logLevels.keep(before)
      logLine(.warning, module: "host", damage)
      return
    }
    for name in Set(before.keys).union(logLevels.levels.keys).sorted() where before[name] != logLevels.levels[name] {
      let level = logLevels.level(of: name)
      // Named, as a line of the plugin's, whatever its level.
      write(.info, module: "host", "\(name) logs at \(level.rawValue) and above now", by: name)
    }
  }

  private static func monotonicSeconds() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
  }

  /// Appends a line to `vivarium.log` in the data directory (line breaks
  /// in `message` escaped, and at most ``longestMessage`` of it) and an
  /// entry to ``recentLog`` (line breaks kept). A line `by` a plugin names
  /// it (``LogRecord``); below the plugin's level (``PluginLogLevels``) it is
  /// dropped, and it counts against its rate (``pluginLogRate``), past
  /// which it is dropped too.
  package func logLine(_ level: LogLevel, module: String, _ message: String, by plugin: String? = nil) {
    if let plugin {
      guard logLevels.keeps(level, by: plugin), admitsLine(by: plugin) else { return }
    }
    write(level, module: module, message, by: plugin)
  }

  /// Writes the line ``logLine(_:module:_:by:)`` let through.
  private func write(_ level: LogLevel, module: String, _ message: String, by plugin: String?) {
    var message = message
    if message.utf8.count > Self.longestMessage {
      let more = message.utf8.count - Self.longestMessage
      message = String(decoding: message.utf8.prefix(Self.longestMessage), as: UTF8.self) + "… (\(more) bytes more)"
    }
    // One line each, whatever the module wrote: a newline cannot forge a
    // line of the host's, and no control character reaches `tail -f`.
    let record = LogRecord(time: logTime(), level: level, plugin: plugin, module: module, message: message)
    let head = record.head
    let line = record.line
    // For the session's `log`, the message as written, its lines broken
    // where it breaks them, each continuation indented under the first
    // (a line as often as a service call: most have no line break).
    if message.utf8.contains(UInt8(ascii: "\n")) {
      let lines = TerminalText.visible(message.trimmingCharacters(in: .newlines), keepingNewlines: true)
      recentEntries.append(
        LogEntry(level: level, plugin: record.plugin, text: head + lines.replacingOccurrences(of: "\n", with: "\n    "))
      )
    } else {
      recentEntries.append(LogEntry(level: level, plugin: record.plugin, text: line))
    }
    if recentEntries.count > Self.recentEntriesKept {
      recentEntries.removeFirst(recentEntries.count - Self.recentEntriesKept)
    }
    appendToLogFile(line + "\n")
  }

  /// Now on the clock, as the log writes it (to the second): formatted
  /// once a second, not once a line, for lines come as often as calls.
  private func logTime() -> String {
    let second = clock.now().rounded(.down)
    if let (cached, text) = formattedSecond, cached == second { return text }
    let text = Date(timeIntervalSince1970: second).formatted(.iso8601)
    formattedSecond = (second, text)
    return text
  }

  private var formattedSecond: (Double, String)?

  private func appendToLogFile(_ line: String) {
    guard !logFailed else { return }
    let failure: Int32?
    switch logFile {
    case .success(let fd):
      failure = DescriptorOutput.write(line, to: fd)
      logBytes += line.utf8.count
      if failure == nil, logBytes >= logFileLimit { rotateLog(fd) }
    case .failure(let error): failure = error.code
    }
    if let failure {
      // Said once; the lines stay in recentLog for the session's `log`.
      logFailed = true
      announcements.notice(
        "\(dataDirectory)/\(LogRecord.fileName) could not be written (\(AtomicFile.errorText(failure))); the session goes on, and 'log' shows this session's lines",
        tone: .warning)
    }
  }

  private var logFailed = false
  /// What `vivarium.log` held when opened, and what this session wrote to it since.
  private var logBytes = 0
  private var logsCrashes = false

  /// Renames `vivarium.log` (open as `fd`) to `vivarium.log.1` once it has
  /// reached ``logFileLimit``, and opens a new one; under a lock on it, so
  /// that of two sessions writing it, one renames it and the other follows.
  private func rotateLog(_ fd: Int32) {
    let path = dataDirectory + "/" + LogRecord.fileName
    while flock(fd, LOCK_EX) != 0 && errno == EINTR {}
    var open = stat()
    var named = stat()
    fstat(fd, &open)
    let current = lstat(path, &named) == 0 && named.st_ino == open.st_ino && named.st_dev == open.st_dev
    if current && Int(open.st_size) < logFileLimit {
      // Another session renamed the one this session had counted as its own.
      logBytes = Int(open.st_size)
      flock(fd, LOCK_UN)
      return
    }
    if current { rename(path, dataDirectory + "/" + LogRecord.previousFileName) }
    logFile = Self.openLog(dataDirectory)
    if case .success(let new) = logFile {
      var info = stat()
      logBytes = fstat(new, &info) == 0 ? Int(info.st_size) : 0
      if logsCrashes { vivarium_crash_log_set(new) }
    }
    flock(fd, LOCK_UN)
    close(fd)
  }

  /// Has a crash of this process (a fatal signal: a trap in the host, or in
  /// a plugin loaded into it) noted in `vivarium.log` as one line, after the
  /// terminal is put back and before the crash report goes to stderr.
  package func logCrashes() {
    logsCrashes = true
    if case .success(let fd) = logFile { vivarium_crash_log_set(fd) }
  }

  /// `vivarium.log`, opened for appending (`O_APPEND`, so two sessions'
  /// lines never overwrite each other) on the first line logged, or why it
  /// cannot be (the lines stay in ``recentLog``).
  private lazy var logFile: Result<Int32, FileContents.Errno> = {
    let opened = Self.openLog(dataDirectory)
    var info = stat()
    if case .success(let fd) = opened, fstat(fd, &info) == 0 { logBytes = Int(info.st_size) }
    return opened
  }()

  private static func openLog(_ dataDirectory: String) -> Result<Int32, FileContents.Errno> {
    try? FileManager.default.createDirectory(
      atPath: dataDirectory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    // Neither through a link nor into a FIFO, whose open would wait for a reader.
    let fd = open(
      dataDirectory + "/" + LogRecord.fileName, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC,
      0o600)
    return fd >= 0 ? .success(fd) : .failure(FileContents.Errno(code: errno))
  }
}

/// Notices and alerts raised by modules, waiting to be drawn.
@MainActor
package final class HostNotifications: Notifier {
  /// A notice: a line of text with its tone.
  package struct Notice: Encodable, Equatable, Sendable {
    /// How it should look.
    package let tone: Tone
    /// The text.
    package let text: String
  }

  /// An alert box the person must acknowledge, or a question they must
  /// answer.
  package struct Alert: Encodable, Equatable, Sendable {
    /// Its title.
    package let title: String
    /// Its message.
    package let message: String
    /// For a question: its two answers; nil for an alert.
    package var choice: Choice? = nil
  }

  /// The two answers to a question: `confirm` goes ahead (`Discard`),
  /// `cancel` does not (`Keep editing`).
  package struct Choice: Encodable, Equatable, Sendable {
    /// The answer that goes ahead.
    package let confirm: String
    /// The answer that does not.
    package let cancel: String

    /// A question answered `confirm` or `cancel`.
    package init(confirm: String, cancel: String) {
      self.confirm = confirm
      self.cancel = cancel
    }
  }

  /// Notices raised since the last ``takeNotices()``.
  package private(set) var notices: [Notice] = []
  /// Alerts waiting to be acknowledged, oldest first.
  package private(set) var alerts: [Alert] = []
  /// What each question in ``alerts`` does with its answer, by position;
  /// nil for an alert.
  private var answers: [(@MainActor (Bool) -> Void)?] = []

  /// How many notices wait at most to be shown, and how many alerts: a
  /// session nobody looks at (a browser tab whose page is away) keeps the
  /// newest, so a module raising them without end costs it nothing more.
  package static let noticesKept = 100
  package static let alertsKept = 20

  /// Records a notice; past ``noticesKept`` waiting, the oldest is dropped.
  package func notice(_ text: String, tone: Tone) {
    if notices.count >= Self.noticesKept { notices.removeFirst(notices.count - Self.noticesKept + 1) }
    notices.append(Notice(tone: tone, text: text))
  }
  /// Records an alert; past ``alertsKept`` waiting, the oldest alert (not a
  /// question, which waits for its answer) is dropped, and a new alert is
  /// dropped when only questions wait.
  package func alert(title: String, message: String) {
    if alerts.count >= Self.alertsKept {
      guard let oldest = answers.firstIndex(where: { $0 == nil }) else { return }
      alerts.remove(at: oldest)
      answers.remove(at: oldest)
    }
    alerts.append(Alert(title: title, message: message))
    answers.append(nil)
  }

  /// Asks the person `question`; `then` gets true when they confirm.
  package func ask(
    title: String, question: String, _ choice: Choice, then: @escaping @MainActor (Bool) -> Void
  ) {
    // Past the questions kept, one more is answered as the cautious answer, at once.
    guard alerts.count < Self.alertsKept else { return then(false) }
    alerts.append(Alert(title: title, message: question, choice: choice))
    answers.append(then)
  }

  /// Returns and clears the notices.
  package func takeNotices() -> [Notice] {
    defer { notices.removeAll() }
    return notices
  }

  /// Removes the oldest alert, or answers the oldest question with its
  /// `confirm` answer (`cancel` when `confirmed` is false); false if there
  /// was none.
  @discardableResult
  package func acknowledgeAlert(confirmed: Bool = true) -> Bool {
    guard !alerts.isEmpty else { return false }
    alerts.removeFirst()
    answers.removeFirst()?(confirmed)
    return true
  }
}

/// The host's notices and alerts, raised in every session listening (each
/// open session of a ``SharedHost``); with none, they are only logged.
@MainActor
package final class HostAnnouncements: Notifier {
  private var listeners = WeakRegistry<HostNotifications>()

  /// Raises what is announced from now on in `notifications` too.
  func listen(_ notifications: HostNotifications) { listeners.add(notifications) }

  /// Stops raising what is announced in `notifications`.
  func stopListening(_ notifications: HostNotifications) { listeners.remove(notifications) }

  /// Raises a notice in every session.
  package func notice(_ text: String, tone: Tone) {
    listeners.forEach { $0.notice(text, tone: tone) }
  }

  /// Raises an alert in every session.
  package func alert(title: String, message: String) {
    listeners.forEach { $0.alert(title: title, message: message) }
  }
}

/// One module's view of the host log and of the person's notices and
/// alerts: every line it logs tagged with its URN, and every notice and
/// alert it raises logged too, where it can be read again whole.
private final class ModuleReporter: ModuleLogger, Notifier {
  private weak var services: HostServices?
  /// Where its notices and alerts go: its session's.
  private let person: any Notifier
  private let urn: String
  /// The plugin whose rate its lines count against.
  private let plugin: String

  init(services: HostServices, person: any Notifier, urn: String, plugin: String) {
    self.services = services
    self.person = person
    self.urn = urn
    self.plugin = plugin
  }

  func log(_ level: LogLevel, _ message: String) {
    services?.logLine(level, module: urn, message, by: plugin)
  }

  func notice(_ text: String, tone: Tone) {
    log([.warning, .negative].contains(tone) ? .warning : .info, "notice: \(text)")
    person.notice(text, tone: tone)
  }

  func alert(title: String, message: String) {
    log(.warning, "alert: \(title): \(message)")
    person.alert(title: title, message: message)
  }
}
