import Foundation
import ViperKit
import ViperKitTestKit

/// The services container, built once when the host starts: storage and
/// settings in the data directory, the log, notices and alerts for the person,
/// and the clock. Each module gets the services its contract lists.
public final class HostServices {
  /// The names of the services this host provides.
  public static let provided = Services.Name.all

  /// Where storage, settings and the log live.
  public let dataDirectory: String
  /// Notices and alerts modules raised, for the person.
  public let notifications = HostNotifications()
  /// Log lines written during this run, newest last.
  public private(set) var recentLog: [String] = []

  private let clock: any WallClock
  private lazy var settings = FileSettingsStore(path: dataDirectory + "/settings.json") { [weak self] in
    self?.logLine(.error, module: "host", $0)
  }
  private var stores: [String: FileKeyValueStore] = [:]

  /// Services keeping their files in `dataDirectory`, telling time by `now`
  /// (seconds since 1970) when given, else by the system clock.
  public init(dataDirectory: String, now: Double? = nil) {
    self.dataDirectory = dataDirectory
    clock = now.map(FixedClock.init) ?? SystemClock()
  }

  /// The data directory the environment asks for: `VIVARIUM_DATA_DIR`, else
  /// `$XDG_DATA_HOME/vivarium`, else `~/.local/share/vivarium`.
  public static func defaultDataDirectory(_ environment: [String: String]) -> String {
    if let directory = environment["VIVARIUM_DATA_DIR"], !directory.isEmpty { return directory }
    if let xdg = environment["XDG_DATA_HOME"], !xdg.isEmpty { return xdg + "/vivarium" }
    return (environment["HOME"] ?? NSHomeDirectory()) + "/.local/share/vivarium"
  }

  /// The services `contract` lists, for a module of the plugin at `plugin`.
  func services(for contract: Contract, plugin: String, urn: String) -> Services {
    let wanted = Set(contract.services)
    return Services(
      storage: wanted.contains(Services.Name.storage) ? store(for: plugin) : nil,
      settings: wanted.contains(Services.Name.settings) ? settings : nil,
      log: wanted.contains(Services.Name.log) ? ModuleLog(services: self, urn: urn) : nil,
      notifications: wanted.contains(Services.Name.notifications) ? notifications : nil,
      clock: wanted.contains(Services.Name.clock) ? clock : nil)
  }

  /// The storage file of the plugin at `plugin`, one per plugin file name.
  private func store(for plugin: String) -> FileKeyValueStore {
    var name = ((plugin as NSString).lastPathComponent as NSString).deletingPathExtension
    if name.hasPrefix("lib") { name.removeFirst(3) }
    if let store = stores[name] { return store }
    let store = FileKeyValueStore(path: "\(dataDirectory)/storage/\(name).json") { [weak self] in
      self?.logLine(.error, module: "host", $0)
    }
    stores[name] = store
    return store
  }

  /// Appends a line to `vivarium.log` in the data directory and to ``recentLog``.
  public func logLine(_ level: LogLevel, module: String, _ message: String) {
    let time = Date(timeIntervalSince1970: clock.now()).formatted(.iso8601)
    let line = "\(time) \(level.rawValue) \(module): \(message)"
    recentLog.append(line)
    if recentLog.count > 200 { recentLog.removeFirst(recentLog.count - 200) }
    appendToLogFile(line + "\n")
  }

  private func appendToLogFile(_ line: String) {
    logFile?.write(Data(line.utf8))
  }

  /// `vivarium.log`, opened for appending on the first line logged; nil when
  /// it cannot be (the lines stay in ``recentLog``).
  private lazy var logFile: FileHandle? = {
    let path = dataDirectory + "/vivarium.log"
    try? FileManager.default.createDirectory(
      atPath: dataDirectory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    if !FileManager.default.fileExists(atPath: path) {
      _ = FileManager.default.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o600])
    }
    let handle = FileHandle(forWritingAtPath: path)
    handle?.seekToEndOfFile()
    return handle
  }()
}

/// Notices and alerts raised by modules, waiting to be drawn.
public final class HostNotifications: Notifier {
  /// A notice: a line of text with its tone.
  public struct Notice: Encodable, Equatable, Sendable {
    /// How it should look.
    public let tone: Tone
    /// The text.
    public let text: String
  }

  /// An alert box the person must acknowledge.
  public struct Alert: Encodable, Equatable, Sendable {
    /// Its title.
    public let title: String
    /// Its message.
    public let message: String
  }

  /// Notices raised since the last ``takeNotices()``.
  public private(set) var notices: [Notice] = []
  /// Alerts waiting to be acknowledged, oldest first.
  public private(set) var alerts: [Alert] = []

  /// Records a notice.
  public func notice(_ text: String, tone: Tone) { notices.append(Notice(tone: tone, text: text)) }
  /// Records an alert.
  public func alert(title: String, message: String) { alerts.append(Alert(title: title, message: message)) }

  /// Returns and clears the notices.
  public func takeNotices() -> [Notice] {
    defer { notices.removeAll() }
    return notices
  }

  /// Removes the oldest alert; false if there was none.
  @discardableResult
  public func acknowledgeAlert() -> Bool {
    guard !alerts.isEmpty else { return false }
    alerts.removeFirst()
    return true
  }
}

/// One module's view of the host log: every line tagged with its URN.
private final class ModuleLog: ModuleLogger {
  private weak var services: HostServices?
  private let urn: String

  init(services: HostServices, urn: String) {
    self.services = services
    self.urn = urn
  }

  func log(_ level: LogLevel, _ message: String) {
    services?.logLine(level, module: urn, message)
  }
}

private final class SystemClock: WallClock {
  func now() -> Double { Date().timeIntervalSince1970 }
}

private final class FixedClock: WallClock {
  let time: Double
  init(_ time: Double) { self.time = time }
  func now() -> Double { time }
}
