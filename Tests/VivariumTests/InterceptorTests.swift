import Testing
import ViperKit
import ViperKitHosting

@testable import VivariumLoading
@testable import VivariumRuntime

/// Interceptors in code: a module that decides whether it may be left
/// (``LeaveGuard``), and a factory that decides whether its module may open
/// (``OpenGuard``), in one process; PluginProcessInterceptorTests has them
/// out of process.
@Suite("Interceptors in code")
@MainActor
struct InterceptorTests {
  let recorder = ProbeRecorder()
  let decisions = LeaveDecisions()
  let runtime: HostRuntime

  init() throws {
    let guarding = GuardedFormFactory(recorder: recorder, decisions: decisions)
    let gate = GateFactory(recorder: recorder)
    let plain = ProbeFactory(
      contract: Contract(
        urn: "plain:{n}", summary: "Plain.", arguments: [.required("n", .int, "Which.")],
        opens: [.push("gate:closed")]),
      recorder: recorder
    ).factory
    let plugin = LoadedPlugin(path: "guards.so", name: "Guards", factories: [guarding, gate, plain])
    runtime = HostRuntime(catalog: PluginCatalog(outcomes: [.loaded(plugin)]), services: try TestServices.make())
  }

  private var urns: [[String]] { runtime.layers.map { $0.map(\.urn) } }

  @Test func aModuleThatSaysLeaveIsLeft() async throws {
    try await runtime.open("plain:1")
    try await runtime.open("form:main")
    try await runtime.back()
    #expect(urns == [["plain:1"]])
    #expect(decisions.asked == 1)
  }

  @Test func aModuleThatStaysIsNotLeftAndSaysWhy() async throws {
    try await runtime.open("plain:1/form:main")
    decisions.next = .stay(reason: "Save the form first.")
    try await runtime.back()
    #expect(urns == [["plain:1", "form:main"]])
    #expect(runtime.notifications.takeNotices().map(\.text) == ["Save the form first."])
  }

  @Test func aModuleThatAsksIsLeftOnlyWhenThePersonConfirms() async throws {
    try await runtime.open("plain:1/form:main")
    decisions.next = .ask(question: "Discard your changes?", confirm: "Discard", cancel: "Keep editing")
    try await runtime.back()
    let question = try #require(runtime.notifications.alerts.first)
    #expect(question.choice == HostNotifications.Choice(confirm: "Discard", cancel: "Keep editing"))
    runtime.notifications.acknowledgeAlert(confirmed: false)
    #expect(urns == [["plain:1", "form:main"]])
    try await runtime.back()
    runtime.notifications.acknowledgeAlert(confirmed: true)
    await runtime.settleCalls()
    #expect(urns == [["plain:1"]])
    // Confirmed, it was not asked again.
    #expect(decisions.asked == 2)
  }

  /// A change over two modules that ask: confirming the first question
  /// does not answer the second; each module is asked once.
  @Test func eachModuleThatAsksIsAskedOnceEvenWhenAnotherWasConfirmed() async throws {
    try await runtime.open("plain:1/form:main/plain:2/form:main")
    decisions.next = .ask(question: "Discard your changes?", confirm: "Discard", cancel: "Keep editing")
    try #require(recorder.context("plain:1")).router.popToRoot()
    runtime.drain()
    #expect(decisions.asked == 1)
    runtime.notifications.acknowledgeAlert(confirmed: true)
    await runtime.settleCalls()
    #expect(decisions.asked == 2, "the lower form was not asked")
    #expect(urns == [["plain:1", "form:main", "plain:2", "form:main"]], "nothing goes before both answer")
    runtime.notifications.acknowledgeAlert(confirmed: true)
    await runtime.settleCalls()
    #expect(urns == [["plain:1"]])
    #expect(decisions.asked == 2, "a module whose question was answered is not asked again")
  }

  @Test func aModuleRemovingItselfIsNotAsked() async throws {
    try await runtime.open("plain:1/form:main")
    decisions.next = .stay(reason: "never asked")
    try #require(recorder.context("form:main")).router.pop()
    runtime.drain()
    #expect(urns == [["plain:1"]])
    #expect(decisions.asked == 0)
  }

  @Test func anotherModulePoppingToRootAsksTheScreensItRemoves() async throws {
    try await runtime.open("plain:1/form:main/plain:2")
    decisions.next = .stay(reason: "Not now.")
    try #require(recorder.context("plain:1")).router.popToRoot()
    runtime.drain()
    #expect(urns == [["plain:1", "form:main", "plain:2"]], "plain:2 may go, form:main stays: nothing goes")
    #expect(decisions.asked == 1)
  }

  @Test func aDeepLinkOverAGuardedScreenAsksFirst() async throws {
    try await runtime.open("plain:1/form:main")
    decisions.next = .stay(reason: "Not now.")
    try await runtime.open("plain:3/plain:4")
    #expect(urns == [["plain:1", "form:main"]])
  }

  @Test func aGateThatRefusesKeepsTheScreenAndSaysWhy() async throws {
    try await runtime.open("plain:1")
    await #expect {
      try await runtime.open("gate:closed")
    } throws: { error in
      let error = error as? ResolveError
      return error?.kind == .refused && error?.message.contains("the gate is closed") == true
    }
    #expect(urns == [["plain:1"]])
    // A module's request is refused as a problem of that module.
    try #require(recorder.context("plain:1")).router.push(URN("gate", "closed"))
    runtime.drain()
    let problem = try #require(runtime.takeProblems().first { $0.cause == .refused })
    #expect(problem.module == "plain:1" && problem.message.contains("the gate is closed"))
    #expect(recorder.log.filter { $0.hasPrefix("gate:") } == ["gate:asked gate:closed", "gate:asked gate:closed"])
  }

  @Test func aGateThatRedirectsOpensItsTargetAndSaysWhy() async throws {
    try await runtime.open("gate:elsewhere")
    #expect(urns == [["plain:9"]])
    #expect(runtime.notifications.takeNotices().map(\.text) == ["The gate sends you elsewhere."])
  }

  @Test func aRedirectOverAGuardedScreenAsksFirst() async throws {
    try await runtime.open("plain:1/form:main")
    decisions.next = .stay(reason: "Not now.")
    try await runtime.open("gate:elsewhere")
    #expect(urns == [["plain:1", "form:main"]], "the redirect would replace what is shown")
    #expect(decisions.asked == 1)
  }

  @Test func aGateThatOpensBuildsItsModule() async throws {
    try await runtime.open("gate:open")
    #expect(urns == [["gate:open"]])
  }
}

/// What ``GuardedFormPresenter`` answers next, and how often it was asked.
@MainActor
final class LeaveDecisions {
  var next = LeaveDecision.leave
  var asked = 0
}

/// `form:main`: a probe module whose presenter answers what ``LeaveDecisions`` holds.
struct GuardedFormFactory: ModuleFactory {
  static var contract: Contract { Contract(urn: "form:main", summary: "A form.") }
  let recorder: ProbeRecorder
  let decisions: LeaveDecisions

  func build(_ context: ModuleContext) throws -> Module {
    recorder.keep(context)
    let presenter = GuardedFormPresenter(urn: context.urn, recorder: recorder, decisions: decisions)
    let view = ProbeView(presenter: presenter, canvas: context.canvas, urn: context.urn, slots: [])
    return Module(view: view, presenter: presenter)
  }
}

final class GuardedFormPresenter: ProbePresenter, LeaveGuard {
  let decisions: LeaveDecisions

  init(urn: String, recorder: ProbeRecorder, decisions: LeaveDecisions) {
    self.decisions = decisions
    super.init(urn: urn, recorder: recorder)
  }

  func shouldLeave() async -> LeaveDecision {
    decisions.asked += 1
    return decisions.next
  }
}

/// `gate:{name}`: opens for `open`, refuses `closed`, sends `elsewhere` to `plain:9`.
struct GateFactory: OpenGuard {
  static var contract: Contract {
    Contract(urn: "gate:{name}", summary: "A gate.", arguments: [.required("name", .string, "Which.")])
  }
  let recorder: ProbeRecorder

  func shouldOpen(_ request: OpenRequest) async -> OpenDecision {
    recorder.record("gate:asked \(request.urn)")
    switch request.arguments["name"] {
    case .string("closed"): return .refuse(reason: "the gate is closed")
    case .string("elsewhere"): return .redirect(urn: "plain:9", reason: "The gate sends you elsewhere.")
    default: return .open
    }
  }

  func build(_ context: ModuleContext) throws -> Module {
    try ProbeFactory(contract: contract, recorder: recorder).build(context)
  }
}
