import Synchronization
import ViperKit
@_exported import ViperKitHosting

/// A request a module made through its router or message port, captured by
/// ``ModuleHarness`` instead of being carried out: a ``HostRequest`` (the
/// harness keeps outputs apart, in ``ModuleHarness/outputs``).
public typealias RouteRequest = HostRequest

/// Why the harness could not do what a test asked.
public struct HarnessError: Error, Equatable, Sendable, CustomStringConvertible {
  /// What went wrong.
  public let message: String

  /// An error saying `message`.
  public init(message: String) {
    self.message = message
  }
  /// The message.
  public var description: String { message }
}

/// Builds one module from a factory, outside any host, and lets a test drive
/// it: lifecycle, view events, messages. Everything the module asks of the
/// host is captured: the trees it draws, the navigation and composition it
/// requests, the outputs it emits, the services it uses.
///
/// Work the module starts runs on the main actor when the test awaits:
/// ``settle()`` waits until none is in flight, and ``advance(by:)`` moves the
/// virtual clock (nothing sleeps for real).
///
/// ```swift
/// @MainActor @Test func selectingARowOpensTheDetail() async throws {
///   let harness = try ModuleHarness(ItemsListFactory())
///   await harness.present()
///   try harness.send(.select(list: "items", row: "2"))
///   #expect(harness.requests == [.push("items:detail:2")])
/// }
/// ```
@MainActor
public final class ModuleHarness {
  /// The factory the module came from.
  public let factory: any ModuleFactory
  /// The URN the module was built with.
  public let urn: String
  /// The arguments it was built with.
  public let arguments: Arguments
  /// The fake services it was given.
  public let services: FakeServices
  /// Every tree the view drew, oldest first.
  public var drawn: [ViewNode] { link.drawn }
  /// Navigation and composition requests, in order.
  public var requests: [RouteRequest] { link.requests }
  /// Outputs the module emitted, in order.
  public var outputs: [Message] { link.outputs }
  /// Lifecycle events sent so far.
  public private(set) var lifecycle: [LifecycleEvent] = []
  /// The module's role references, for leak checks.
  public let roles: [RoleReference]
  /// Work that failed or was cancelled, `work 'NAME' failed: …`, in order.
  public private(set) var workReports: [String] = []
  /// The names the module read from its arguments that its contract does
  /// not declare (a misspelling reads nothing), first read first.
  public var undeclaredArguments: [String] { argumentReads.names.withLock { $0 } }
  /// Where more than one role plays one part (``Module/ambiguities``).
  public let ambiguities: [String]
  private let argumentReads: ArgumentReads

  /// The names read that the contract does not declare, from any thread.
  private final class ArgumentReads: Sendable {
    let names = Mutex<[String]>([])
  }

  private var module: Module?
  private let link = CapturingLink()
  private let scheduler: WorkScheduler
  private let work: WorkScope

  /// Builds the module with `arguments` (not validated: pass what the contract
  /// requires) and fake `services`. `urn` defaults to the contract's pattern
  /// with its placeholders filled from `arguments`.
  public init(
    _ factory: any ModuleFactory, arguments: [String: ArgumentValue] = [:], urn: String? = nil,
    services: FakeServices = FakeServices()
  ) throws {
    self.factory = factory
    let contract = factory.contract
    let reads = ArgumentReads()
    argumentReads = reads
    self.arguments = Arguments(arguments, declared: Set(contract.arguments.map(\.name))) { name in
      reads.names.withLock { if !$0.contains(name) { $0.append(name) } }
    }
    self.services = services
    self.urn = urn ?? ModuleHarness.urn(contract.urn, arguments)
    scheduler = WorkScheduler(clock: services.clock)
    work = scheduler.scope(for: self.urn)
    let module = try factory.build(
      ModuleContext(
        urn: self.urn, arguments: self.arguments, router: link, canvas: link, messages: link, work: work,
        services: services.services(for: contract, urn: self.urn)))
    self.module = module
    roles = module.roles
    ambiguities = module.ambiguities
    scheduler.onReport = { [weak self] report in self?.workReports.append(report.description) }
  }

  /// Waits until no work the module started is in flight (work sleeping on
  /// the clock is not), or `limit` seconds of real time; false on the limit.
  @discardableResult
  public func settle(limit: Double = 10) async -> Bool {
    await scheduler.settle(limit: limit)
  }

  /// Moves the virtual clock forward by `seconds`, running the work each
  /// elapsed sleep wakes, then settles.
  public func advance(by seconds: Double) async {
    await services.clock.advance(by: seconds) { await settle() }
    await settle()
  }

  /// The last tree the view drew.
  public var tree: ViewNode? { link.drawn.last }

  /// Sends attach then appear (the first presentation cycle), then waits for
  /// the work they started to settle.
  public func present() async {
    presentNow()
    await settle()
  }

  /// Sends attach then appear without waiting for work.
  public func presentNow() {
    send(.attach)
    send(.appear)
  }

  /// Sends one lifecycle event to the view, then the presenter.
  public func send(_ event: LifecycleEvent) {
    lifecycle.append(event)
    module?.lifecycle(event)
  }

  /// Delivers a view event, if the current tree has the element it names,
  /// or, for a command, if the contract declares it.
  public func send(_ event: ViewEvent) throws(HarnessError) {
    guard let module else { throw HarnessError(message: "the module has been torn down") }
    if case .command(let id) = event {
      let declared = factory.contract.commands.map(\.id)
      guard declared.contains(id) else {
        throw HarnessError(
          message:
            "the contract declares no command '\(id)'; commands: \(declared.isEmpty ? "none" : declared.joined(separator: ", "))"
        )
      }
    }
    if let problem = ViewElements(tree).problem(with: event) { throw HarnessError(message: problem) }
    module.view.handle(event)
  }

  /// Delivers a message to the module's receiver, as the host would.
  public func receive(_ message: Message, from origin: MessageOrigin) throws(HarnessError) {
    guard let receiver = module?.receiver else {
      throw HarnessError(
        message: "the module takes no messages: none of its presenter, interactor or view is a MessageReceiver")
    }
    receiver.receive(message, from: origin)
  }

  /// Sends disappear (if it appeared) and detach, cancels the module's work,
  /// lets go of the module, and returns its role objects still alive: leaks.
  /// Work that holds a role strongly keeps it alive until the work ends: await
  /// ``settle()`` before judging.
  @discardableResult
  public func tearDown() -> [RoleReference] {
    guard module != nil else { return roles.filter(\.isAlive) }
    if lifecycle.last == .appear { send(.disappear) }
    send(.detach)
    work.cancelAll()
    module = nil
    return roles.filter(\.isAlive)
  }

  /// `pattern` with each `{name}` replaced by the argument's value.
  static func urn(_ pattern: String, _ arguments: [String: ArgumentValue]) -> String {
    pattern.split(separator: ":", omittingEmptySubsequences: false).map { segment in
      guard segment.hasPrefix("{"), segment.hasSuffix("}") else { return String(segment) }
      return arguments[String(segment.dropFirst().dropLast())]?.description ?? String(segment)
    }.joined(separator: ":")
  }
}

/// Captures everything a module asks of the host.
@MainActor
private final class CapturingLink: HostLink, Canvas {
  var drawn: [ViewNode] = []
  var requests: [HostRequest] = []
  var outputs: [Message] = []

  func draw(_ tree: ViewNode) { drawn.append(tree) }
  func request(_ request: HostRequest) {
    if case .emit(let message) = request { outputs.append(message) } else { requests.append(request) }
  }
}
