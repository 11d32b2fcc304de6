import ViperKit

/// What a module gets in place of a service its contract does not list.
///
/// A plain `nil` there fails silently: a module reading the clock it forgot
/// to declare gets nothing and waits forever, and nobody says why. This
/// stand-in does nothing either, but every use of it is a problem the host
/// (and the test kit) reports, once per module and service, naming the
/// service to add to the contract: reads find nothing, writes and sleeps
/// throw ``Refused``, log lines and notices are dropped, and the time is the
/// host's.
@MainActor
public final class UndeclaredService: KeyValueStore, SettingsStore, ModuleLogger, Notifier, WallClock, HTTPClient {
  /// The service it stands in for.
  public let service: Services.Name
  /// The URN of the module it was handed to, or the provider it was
  /// handed to (``isProvider``).
  public let module: String
  /// Whether it was handed to a business service provider, whose list of
  /// services is its `static let services`, not a contract.
  public let isProvider: Bool
  private let time: () -> Double
  private let report: (UndeclaredService) -> Void
  private var reported = false

  /// A stand-in for `service` handed to `module`; `report` is called on its
  /// first use, `now` gives the time it tells.
  public convenience init(
    _ service: Services.Name, module: String, now: @escaping () -> Double, report: @escaping (UndeclaredService) -> Void
  ) {
    self.init(service, module: module, isProvider: false, now: now, report: report)
  }

  /// A stand-in for `service` handed to `module`, a provider when
  /// `isProvider`; `report` is called on its first use, `now` gives the
  /// time it tells.
  public init(
    _ service: Services.Name, module: String, isProvider: Bool, now: @escaping () -> Double,
    report: @escaping (UndeclaredService) -> Void
  ) {
    self.service = service
    self.module = module
    self.isProvider = isProvider
    time = now
    self.report = report
  }

  /// What is wrong and what to do.
  public var problem: String {
    isProvider ? Self.problem(service, provider: module) : Self.problem(service, module: module)
  }

  /// What is wrong when `module` uses `service` without listing it, and what to do.
  public static func problem(_ service: Services.Name, module: String) -> String {
    "\(module) uses '\(service.rawValue)' without declaring it: add .\(service.rawValue) to its contract's services"
  }

  /// What is wrong when the business service provider `provider` uses the
  /// host service `service` without listing it, and what to do.
  public static func problem(_ service: Services.Name, provider: String) -> String {
    "\(provider) uses '\(service.rawValue)' without declaring it: add .\(service.rawValue) to the provider's static let services"
  }

  /// Thrown where a module writes to, or sleeps on, a service it did not declare.
  public struct Refused: Error, CustomStringConvertible {
    /// What is wrong and what to do.
    public let description: String
  }

  private func used() {
    guard !reported else { return }
    reported = true
    report(self)
  }

  /// `services`, handed out for a module with `contract` at `module`, with
  /// every service the contract does not list (nil there) replaced by an
  /// ``UndeclaredService`` that calls `report` when the module first uses it.
  public static func filling(
    _ services: Services, for contract: Contract, module: String, now: @escaping () -> Double,
    report: @escaping (UndeclaredService) -> Void
  ) -> Services {
    filling(services, listing: contract.services, for: module, isProvider: false, now: now, report: report)
  }

  /// `services`, handed out to `user` (a module's URN, or a provider when
  /// `isProvider`) that lists `listed`, with every service not listed (nil
  /// there) replaced by an ``UndeclaredService`` that calls `report` when
  /// first used.
  public static func filling(
    _ services: Services, listing listed: [Services.Name], for user: String, isProvider: Bool,
    now: @escaping () -> Double, report: @escaping (UndeclaredService) -> Void
  ) -> Services {
    let unlisted = Services.Name.allCases.filter { !listed.contains($0) }
    return services.filling(
      Services(named: unlisted) {
        UndeclaredService($0, module: user, isProvider: isProvider, now: now, report: report)
      })
  }

  // MARK: KeyValueStore

  /// Reports the use; nothing is stored.
  public func value(forKey key: String) -> String? {
    used()
    return nil
  }

  /// Reports the use and throws ``Refused``.
  public func set(_ value: String?, forKey key: String) throws {
    used()
    throw Refused(description: problem)
  }

  /// Reports the use; nothing is stored.
  public func keys() -> [String] {
    used()
    return []
  }

  // MARK: SettingsStore

  /// Reports the use; nothing is set.
  public func value(forKey key: String) -> ArgumentValue? {
    used()
    return nil
  }

  /// Reports the use and throws ``Refused``.
  public func set(_ value: ArgumentValue?, forKey key: String) throws {
    used()
    throw Refused(description: problem)
  }

  /// Reports the use; `changed` is never called.
  public func observe(_ key: String, by owner: AnyObject, _ changed: @escaping @MainActor (ArgumentValue?) -> Void) {
    used()
  }

  // MARK: ModuleLogger, Notifier

  /// Reports the use; the line is dropped.
  public func log(_ level: LogLevel, _ message: String) { used() }
  /// Reports the use; the notice is dropped.
  public func notice(_ text: String, tone: Tone) { used() }
  /// Reports the use; the alert is dropped.
  public func alert(title: String, message: String) { used() }

  // MARK: WallClock

  /// Reports the use; the host's time.
  public func now() -> Double {
    used()
    return time()
  }

  /// Reports the use and throws ``Refused`` at once, instead of waiting.
  public func sleep(for seconds: Double) async throws {
    used()
    throw Refused(description: problem)
  }

  // MARK: HTTPClient

  /// Reports the use and throws ``Refused``; nothing is sent.
  public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
    used()
    throw Refused(description: problem)
  }
}
