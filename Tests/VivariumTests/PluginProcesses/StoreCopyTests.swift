import Foundation
import Testing
import ViperKit
import ViperKitHosting
import VivariumSupport

@testable import VivariumLoading

/// A plugin process reads its storage, the settings and the time from
/// copies the host keeps current, so a read never waits on the host; writes
/// still go to the host, and every process's copy changes with them.
@Suite("Copies of storage, settings and the clock in plugin processes")
@MainActor
struct StoreCopyTests {
  @Test func aModuleReadsWhatItSavedWithoutAskingTheHost() async throws {
    let host = try await FaultyHost(plugins: ["Faulty"])
    try await host.runtime.open("faulty:demo")
    let process = try #require(host.process(named: "libFaulty.so"))
    try await host.runtime.act(.type(field: "note", text: "milk"))
    // The module saves in work of its own, which ends once the host has
    // answered the write: waiting for the tap's answer alone would not do.
    try await host.runtime.actUntilIdle(.tap(button: "save"))
    // The write went to the host and is on disk.
    #expect(process.serviceDesk.callsAnswered == 1)
    let stored = try String(contentsOfFile: host.data.path + "/storage/FaultyPlugin.json", encoding: .utf8)
    #expect(stored.contains("milk"))
    // A new module of the same plugin reads it as it is built, from the copy.
    try await host.runtime.open("faulty:demo")
    #expect(host.text.contains("Saved note: milk"))
    #expect(process.serviceDesk.callsAnswered == 1, "the read was answered by the host")
  }

  /// `KeyValueStore.save` suspends only the work that saves: while the host
  /// has not answered the write, the module takes events and answers them.
  /// (With the blocking `set`, the event would go unanswered until the
  /// response limit, and the process would be "not responding".) The host
  /// saves what a module writes with the storage in the module's context,
  /// which here holds each save until the test lets it through.
  @Test func aModuleTakesEventsWhileTheHostSavesForIt() async throws {
    let storage = HeldStore()
    let demo = try await RemoteDemo(services: Services(storage: storage))
    defer { demo.supervisor.terminate() }
    demo.view.handle(.type(field: "note", text: "milk"))
    demo.view.handle(.tap(button: "save"))
    #expect(await demo.waitFor { storage.held == 1 }, "the save never reached the host")
    // The write is unanswered; an event is answered all the same.
    demo.view.handle(.type(field: "note", text: "milk and eggs"))
    #expect(await demo.work.settle(limit: TestServices.settleLimit, work: false))
    #expect(demo.supervisor.state == .running)
    #expect(demo.supervisor.timesNotResponding == 0)
    #expect(demo.supervisor.serviceDesk.callsAnswered == 0)
    let typed = ViewNode.field(id: "note", label: "Note", value: "milk and eggs")
    #expect(demo.tree?.contains(typed) == true, "the event was carried out: \(demo.text)")
    #expect(demo.tree?.contains(.text("Saved note: (none)")) == true, "\(demo.text)")
    // Once the store has saved, the host answers, the save ends and the module shows it.
    storage.release()
    #expect(await demo.waitFor { demo.tree?.contains(.text("Saved note: milk")) == true }, "\(demo.text)")
    #expect(demo.supervisor.serviceDesk.callsAnswered == 1)
    #expect(storage.value(forKey: "note") == "milk")
  }

  /// A blocking `set` holds the module's main actor for at most half the
  /// host's response limit: a host that has not saved by then fails the
  /// write where the module sees it, and the process goes on, answering in
  /// time (it used to wait 120 s, then end).
  @Test func aBlockingWriteTheHostDoesNotAnswerFailsInTheModule() async throws {
    let storage = HeldStore()
    // A limit a busy machine's host still answers the tap within; the
    // write waits half of it.
    let demo = try await RemoteDemo(services: Services(storage: storage), responseLimit: .seconds(4))
    defer { demo.supervisor.terminate() }
    demo.view.handle(.type(field: "note", text: "milk"))
    demo.view.handle(.tap(button: "saveNow"))
    #expect(
      await demo.waitFor { demo.tree?.contains(where: \.isNegativeNotice) == true },
      "the write never failed in the module: \(demo.text)")
    // Sent before the module gave up on it: the host reads it, if late.
    #expect(await demo.waitFor { storage.held == 1 }, "the write reached the host, which holds it")
    #expect(demo.tree?.contains(.text("Saved note: (none)")) == true, "\(demo.text)")
    #expect(await demo.work.settle(limit: TestServices.settleLimit, work: false))
    #expect(demo.supervisor.state == .running)
    #expect(demo.supervisor.timesNotResponding == 0, "the tap was answered in time")
    // The module goes on: an event is carried out.
    demo.view.handle(.type(field: "note", text: "milk and eggs"))
    let typed = ViewNode.field(id: "note", label: "Note", value: "milk and eggs")
    #expect(await demo.waitFor { demo.tree?.contains(typed) == true }, "\(demo.text)")
    // The host saves it once its store does; the late answer is dropped.
    storage.release()
    #expect(await demo.waitFor { storage.value(forKey: "note") == "milk" })
    #expect(demo.supervisor.state == .running)
  }

  @Test func anItemChangedThroughTheServiceFromAnotherProcessIsShownByTheList() async throws {
    let host = try await FaultyHost(plugins: ["ItemsList", "ItemsDetail"])
    try await host.runtime.open("items:list")
    await host.runtime.settleAll()
    let before = try #require(Self.enabledCount(host.text), "\(host.text)")
    // The detail, in a process of its own, disables item 1 through the
    // items service, which the list's plugin provides in its process.
    try await host.runtime.open("items:detail:1")
    await host.runtime.settleAll()
    try await host.runtime.actUntilIdle(.tap(button: "toggle"))
    try await host.runtime.back()
    try await host.runtime.open("items:list")
    await host.runtime.settleAll()
    #expect(Self.enabledCount(host.text) == before - 1, "\(host.text)")
  }

  @Test func aSettingTheHostChangesIsReadFromTheProcesssCopy() async throws {
    let host = try await FaultyHost(plugins: ["Login"])
    try await host.runtime.open("login:form")
    let process = try #require(host.process(named: "libLogin.so"))
    // The sign-in form fills in the last user from the settings: set by
    // the host, it reaches the process's copy without being asked for.
    try host.runtime.services.setSetting(.string("grace"), forKey: "login.lastUser")
    try await host.runtime.open("login:form")
    #expect(host.text.contains("[grace]"), "\(host.text)")
    #expect(process.serviceDesk.callsAnswered == 0)
  }

  @Test func aModuleReadsTheTimeFromItsProcesssCopyOfTheClock() async throws {
    let host = try await FaultyHost(plugins: ["Profile"])
    try await host.runtime.open("profile:grace")
    let process = try #require(host.process(named: "libProfile.so"))
    #expect(host.text.contains("Member for 1 year"), "\(host.text)")
    // Virtual time moves in the host; the process's copy moves with it.
    await host.runtime.letTimePass(365 * 86_400)
    try await host.runtime.open("profile:grace")
    #expect(host.text.contains("Member for 2 years"), "\(host.text)")
    #expect(process.serviceDesk.callsAnswered == 0, "the time was asked of the host")
  }

  /// `3 items, 2 enabled` → 2.
  static func enabledCount(_ text: String) -> Int? {
    guard let match = text.firstMatch(of: /(\d+) enabled/) else { return nil }
    return Int(match.1)
  }
}

extension ViewNode {
  /// A notice of a problem.
  fileprivate var isNegativeNotice: Bool {
    guard case .notice(.negative, _) = self else { return false }
    return true
  }
}

/// A plugin's storage whose saves wait until the test lets them through,
/// as a host slow to save would; the process keeps a copy of it, as of the
/// host's own storage.
@MainActor
private final class HeldStore: KeyValueStore, CopiedStore {
  private var values: [String: String] = [:]
  private var waiting: [CheckedContinuation<Void, Never>] = []
  private var observers: [(owner: () -> AnyObject?, changed: @MainActor (String, ArgumentValue?) -> Void)] = []

  /// How many saves wait.
  var held: Int { waiting.count }

  /// Lets every save that waits go on.
  func release() {
    let released = waiting
    waiting.removeAll()
    for save in released { save.resume() }
  }

  func value(forKey key: String) -> String? { values[key] }

  func set(_ value: String?, forKey key: String) throws {
    values[key] = value
    observers.removeAll { $0.owner() == nil }
    for observer in observers { observer.changed(key, value.map(ArgumentValue.string)) }
  }

  func keys() -> [String] { values.keys.sorted() }

  func save(_ value: String?, forKey key: String) async throws {
    await withCheckedContinuation { waiting.append($0) }
    try set(value, forKey: key)
  }

  var entries: [String: ArgumentValue] { values.mapValues(ArgumentValue.string) }

  func observe(by owner: AnyObject, _ changed: @escaping @MainActor (String, ArgumentValue?) -> Void) {
    observers.append(({ [weak owner] in owner }, changed))
  }
}

/// `faulty:demo` built in its plugin's process by the supervisor alone, no
/// runtime around it, with the services the test gives it.
@MainActor
private final class RemoteDemo {
  let supervisor: PluginSupervisor
  /// Where the module's calls count as in flight.
  let work = WorkScheduler(clock: ModuleClock(.virtual(start: TestServices.now)))
  let view: any ViperView
  private let canvas = LastTree()

  init(services: Services, responseLimit: Duration = TestServices.responseLimit) async throws {
    let options = PluginProcessOptions(
      executable: BuildProducts.vivarium, responseLimit: responseLimit, memoryLimit: 128 << 20)
    let outcome = await PluginSupervisor.start(BuildProducts.directory + "/libFaulty.so", options: options)
    guard case .loaded(let plugin) = outcome, let supervisor = plugin.process,
      case .process(_, let index, _) = plugin.modules.first(where: { $0.contract.urn == "faulty:demo" })
    else { throw DemoError(description: "libFaulty.so did not load: \(outcome)") }
    self.supervisor = supervisor
    let scope = work.scope(for: "faulty:demo", owner: plugin.name)
    let link = Link()
    let context = ModuleContext(
      urn: "faulty:demo", arguments: Arguments(), router: link, canvas: canvas, messages: link, work: scope,
      services: services)
    let module = try await supervisor.build(index, context, link: link, work: scope, restoring: nil).module
    view = module.view
    let remote = try #require(view as? RemoteView).module
    await remote.attach()
  }

  /// The module's screen as text.
  var text: String { canvas.tree.map { TextRenderer(width: 1000).lines($0).joined(separator: "\n") } ?? "" }

  /// The last tree the module drew.
  var tree: ViewNode? { canvas.tree }

  /// Whether `condition` became true within 30 s, looked at every 10 ms.
  func waitFor(_ condition: () -> Bool) async -> Bool {
    for _ in 0..<3000 where !condition() {
      try? await Task.sleep(nanoseconds: 10_000_000)
    }
    return condition()
  }

  @MainActor
  private final class LastTree: Canvas {
    var tree: ViewNode?
    func draw(_ tree: ViewNode) { self.tree = tree }
  }

  /// Takes the module's requests and reports, and does nothing with them.
  @MainActor
  private final class Link: RemoteModuleLink {
    func request(_ request: HostRequest) {}
    func moduleFailed(_ failure: String) {}
    func stateChanged() {}
    func restartPlugin() {}
    func turnOn(_ name: String) {}
    func reportLeak(_ roles: [String]) {}
  }

  struct DemoError: Error, CustomStringConvertible {
    let description: String
  }
}
