import ViperKit
import VivariumWire

/// A plugin-process module's canvas, router and message port: each call is
/// a message to the host, which carries it out as it would in one process.
@MainActor
final class ChannelLink: Canvas, HostLink {
  private unowned let server: PluginServer
  let module: UInt32

  init(server: PluginServer, module: UInt32) {
    self.server = server
    self.module = module
  }

  func request(_ request: HostRequest) {
    // A module that asks for something from its work may have changed what it keeps.
    server.sendState(of: module)
    server.channel.send(.request(module: module, request))
  }

  /// The tree the module drew last, as the host has it: the next draw
  /// sends what changed since. None before the first draw, which goes whole.
  private var sent: ViewNode?

  func draw(_ tree: ViewNode) {
    // A module that draws from its work may have changed what it keeps.
    server.sendState(of: module)
    let changes = sent.map { ViewTreeDiff.diff(from: $0, to: tree) }
    if let changes, changes.wholeTree == nil {
      server.channel.send(.drawChanges(module: module, changes))
    } else {
      server.channel.send(.draw(module: module, tree))
    }
    sent = tree
    // Within a call's turn the draw waits for the turn's end and goes in
    // one write with the call's answer: the host is woken once for both.
  }

  /// The services named, each a stand-in that asks the host; those the
  /// module's contract declares read the process's copies of the stores.
  func services(named names: [Services.Name], declared: Set<Services.Name>) -> Services {
    ChannelServices.services(server: server, module: module, named: names, declared: declared)
  }
}

/// Why a service call failed in the host, thrown where the module called it.
struct HostServiceError: Error, CustomStringConvertible {
  let description: String
}

/// The host's services as a plugin-process module sees them.
@MainActor
final class ChannelServices: KeyValueStore, SettingsStore, ModuleLogger, Notifier, WallClock, HTTPClient {
  private unowned let server: PluginServer
  private let module: UInt32
  /// The stores the module declared, read from the process's copies: a
  /// use of one it did not declare goes to the host, which reports it.
  private let copied: Set<WireStore>
  /// Whether the module declared the clock, read from the process's copy.
  private let declaresClock: Bool

  /// The services named for module `module` (0: the process's
  /// providers), each a stand-in that asks the host; those `declared`
  /// read the process's copies of the stores. Business services go
  /// through the host too.
  static func services(
    server: PluginServer, module: UInt32, named names: [Services.Name], declared: Set<Services.Name>
  ) -> Services {
    let host = ChannelServices(
      server: server, module: module, copied: Set(WireStore.allCases.filter { declared.contains($0.service) }),
      declaresClock: declared.contains(.clock))
    var services = Services(named: names) { _ in host }.adding(ChannelServiceCalls(server: server, module: module))
    services.events = server.events.bus(for: module)
    return services
  }

  init(server: PluginServer, module: UInt32, copied: Set<WireStore>, declaresClock: Bool) {
    self.server = server
    self.module = module
    self.copied = copied
    self.declaresClock = declaresClock
  }

  /// `read` applied to the copy of `store`, if the module declared it and
  /// the host gave one; nil to ask the host.
  private func fromCopy<Result>(_ store: WireStore, _ read: ([String: ArgumentValue]) -> Result) -> Result? {
    copied.contains(store) ? server.copies.read(store, read) : nil
  }

  private func check(_ answer: WireAnswer) throws {
    if case .failed(let message) = answer { throw HostServiceError(description: message) }
  }

  /// From the process's copy of the storage, without waiting; the host is
  /// asked only when the module did not declare storage.
  func value(forKey key: String) -> String? {
    if let copied = fromCopy(.storage, { $0[key] }) {
      guard case .string(let value) = copied else { return nil }
      return value
    }
    guard case .string(let value) = server.ask(module, .storageValue(key: key)) else { return nil }
    return value
  }

  func set(_ value: String?, forKey key: String) throws {
    try check(server.ask(module, .storageSet(key: key, value: value)))
  }

  func save(_ value: String?, forKey key: String) async throws {
    try check(await server.call(module, .storageSet(key: key, value: value)))
  }

  func keys() -> [String] {
    if let keys = fromCopy(.storage, { $0.keys.sorted() }) { return keys }
    guard case .strings(let keys) = server.ask(module, .storageKeys) else { return [] }
    return keys
  }

  func value(forKey key: String) -> ArgumentValue? {
    if let copied = fromCopy(.settings, { $0[key] }) { return copied }
    guard case .value(let value) = server.ask(module, .settingValue(key: key)) else { return nil }
    return value
  }

  func set(_ value: ArgumentValue?, forKey key: String) throws {
    try check(server.ask(module, .settingSet(key: key, value: value)))
  }

  func save(_ value: ArgumentValue?, forKey key: String) async throws {
    try check(await server.call(module, .settingSet(key: key, value: value)))
  }

  /// From the changes the host sends to the process's copy of the
  /// settings; a module that did not declare settings is never told.
  func observe(_ key: String, by owner: AnyObject, _ changed: @escaping @MainActor (ArgumentValue?) -> Void) {
    guard copied.contains(.settings) else {
      _ = server.ask(module, .settingValue(key: key))  // The host reports the undeclared use.
      return
    }
    server.copies.observe(.settings, key, by: owner, changed)
  }

  func log(_ level: LogLevel, _ message: String) { server.tell(module, .log(level, message)) }
  func notice(_ text: String, tone: Tone) { server.tell(module, .notice(text, tone)) }
  func alert(title: String, message: String) { server.tell(module, .alert(title: title, message: message)) }

  /// From the process's copy of the host's clock, without waiting; the
  /// host is asked only when the module did not declare the clock.
  func now() -> Double {
    if declaresClock, let now = server.copies.now() { return now }
    guard case .number(let now) = server.ask(module, .now) else { return 0 }
    return now
  }

  func sleep(for seconds: Double) async throws {
    try await server.sleep(seconds, work: ChannelWork.current ?? 0, waiting: false)
  }

  func send(_ request: HTTPRequest) async throws -> HTTPResponse {
    try await server.sendHTTP(module, request)
  }

  func wait(for seconds: Double) async throws {
    try await server.sleep(seconds, work: ChannelWork.current ?? 0, waiting: true)
  }
}

/// A plugin-process module's work: it runs here, and the host is told when
/// each piece starts and ends, so that it can show it, wait for it in
/// scripts and cancel it with the module.
@MainActor
final class ChannelWork: ModuleWork {
  /// The work the current task runs, for the clock's sleeps.
  @TaskLocal static var current: UInt32?

  private unowned let server: PluginServer
  private let module: UInt32
  private var running: [UInt32: Task<Void, Never>] = [:]
  private var ended = false
  private var idle: [() -> Void] = []

  init(server: PluginServer, module: UInt32) {
    self.server = server
    self.module = module
  }

  @discardableResult
  func start(_ name: String, _ operation: @escaping @MainActor () async throws -> Void) -> WorkHandle {
    guard !ended else {
      let task = Task<Void, Never> {}
      task.cancel()
      return WorkHandle(task)
    }
    let id = server.newWorkID()
    server.channel.send(.workStarted(module: module, work: id, name: name))
    let task = Task { @MainActor [server] in
      let outcome: WireWorkOutcome
      do {
        try await ChannelWork.$current.withValue(id) { try await operation() }
        outcome = .finished
      } catch {
        outcome = error is CancellationError || Task.isCancelled ? .cancelled : .failed("\(error)")
      }
      server.channel.send(.workEnded(work: id, outcome))
      self.ended(id)
    }
    running[id] = task
    return WorkHandle(task)
  }

  private func ended(_ id: UInt32) {
    running[id] = nil
    guard running.isEmpty else { return }
    let waiting = idle
    idle.removeAll()
    for body in waiting { body() }
  }

  /// Cancels every piece of work, and any started later.
  func cancelAll() {
    ended = true
    for task in running.values { task.cancel() }
  }

  /// Runs `body` once no work is running (now, if none is).
  func whenIdle(_ body: @escaping () -> Void) {
    if running.isEmpty { body() } else { idle.append(body) }
  }
}

/// Business service calls of a plugin-process module or provider: each
/// through the host, which checks, routes, times and logs it.
@MainActor
final class ChannelServiceCalls: ServiceCalling {
  private unowned let server: PluginServer
  private let module: UInt32

  init(server: PluginServer, module: UInt32) {
    self.server = server
    self.module = module
  }

  func call(_ request: ServiceRequest) async -> ServiceOutcome { await server.callBusinessService(module, request) }
}
