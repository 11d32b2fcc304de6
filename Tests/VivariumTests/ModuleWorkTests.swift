import Testing
import ViperKit
import ViperKitHosting

@testable import VivariumLoading
@testable import VivariumRuntime
@testable import VivariumSupport
@testable import VivariumTerminal

/// Work a module starts is tied to its life: what it draws or asks for after
/// an `await` reaches the screen without input, detaching cancels it, and a
/// failure or cancellation is reported naming the module.
@Suite("Module work")
@MainActor
struct ModuleWorkTests {
  let runtime: HostRuntime
  var worker: ModuleNode? { runtime.nodes.first { $0.urn == "probe:worker" } }

  init() throws {
    runtime = HostRuntime(catalog: WorkerModule.catalog(), services: try TestServices.make())
  }

  @Test func aDrawAfterAnAwaitReachesTheScreenWithoutInput() async throws {
    var redraws = 0
    runtime.onScreenChanged = { redraws += 1 }
    try await runtime.open("probe:worker")
    try runtime.send(.tap(button: "load"))
    #expect(worker?.tree?.contains(.text("loading")) == true)
    let before = redraws
    await runtime.letTimePass(1)
    #expect(worker?.tree?.contains(.text("loaded")) == true)
    #expect(redraws > before, "the host must be told to redraw when work draws")
  }

  @Test func aModuleLoadingBeforeItsFirstDrawShowsThatItIsLoading() async throws {
    try await runtime.open("probe:lazy")
    #expect(runtime.screen()?.lines(TextRenderer(width: 40)) == ["(probe:lazy: loading…)"])
    await runtime.letTimePass(1)
    #expect(runtime.screen()?.lines(TextRenderer(width: 40)) == ["fetched"])
    #expect(runtime.takeProblems().isEmpty)
  }

  @Test func aModuleWhoseWorkEndsWithoutDrawingIsAProblem() async throws {
    try await runtime.open("probe:blank")
    await runtime.letTimePass(1)
    #expect(
      runtime.takeProblems() == [
        HostProblem(
          module: "probe:blank",
          message:
            "its work ended and it has drawn nothing; its view must call context.canvas.draw(_:), a loading state first"
        )
      ])
    #expect(runtime.screen()?.lines(TextRenderer(width: 40)) == ["(probe:blank has not drawn)"])
  }

  @Test func aRequestAfterAnAwaitIsCarriedOut() async throws {
    try await runtime.open("probe:worker")
    try runtime.send(.tap(button: "pushLater"))
    #expect(runtime.layers.map { $0.map(\.urn) } == [["probe:worker"]])
    await runtime.letTimePass(1)
    #expect(runtime.layers.map { $0.map(\.urn) } == [["probe:worker", "probe:other"]])
  }

  @Test func detachingCancelsTheModulesWorkAndLogsIt() async throws {
    try await runtime.open("probe:other")
    try await runtime.open("probe:other/probe:worker")
    try runtime.send(.tap(button: "load"))
    #expect(
      await runtime.work.settle(limit: TestServices.settleLimit),
      "work sleeping on the clock does not keep a session waiting")
    #expect(runtime.work.inFlight == ["probe:worker: 'load'"])
    try await runtime.back()
    // The cancelled work is in flight until its task has ended and logged
    // it: waited for with a bound generous enough for a busy machine, whose
    // main actor other tests may hold for seconds.
    #expect(await runtime.work.settle(limit: TestServices.settleLimit), "the cancelled work never ended")
    await runtime.letTimePass(5)
    #expect(runtime.nodes.allSatisfy { $0.tree?.contains(.text("loaded")) != true })
    #expect(runtime.takeProblems().isEmpty, "a cancellation is not a problem for the person")
    #expect(
      runtime.services.recentLog.contains {
        $0.contains("probe:worker") && $0.contains("'load'") && $0.contains("cancel")
      },
      "the module, its work, and that it was cancelled: \(runtime.services.recentLog)")
  }

  /// The spinner shows work in flight, not a timer between its ticks,
  /// however short its interval.
  @Test func aTimerBetweenItsTicksIsNotWorkInFlight() async throws {
    try await runtime.open("probe:worker")
    try runtime.send(.tap(button: "tick"))
    _ = await runtime.work.settle(limit: TestServices.settleLimit)
    #expect(worker?.isWorking == false, "a one-second timer waiting for its next tick")
    #expect(!runtime.work.isAnyActive, "the app's spinner stands still")
    await runtime.letTimePass(1)
    #expect(worker?.tree?.contains(.text("ticks: 1")) == true)
    #expect(worker?.isWorking == false)
    try runtime.send(.tap(button: "load"))
    _ = await runtime.work.settle(limit: TestServices.settleLimit)
    #expect(worker?.isWorking == true, "a one-second fetch is work in flight")
    #expect(runtime.work.isAnyActive)
    await runtime.letTimePass(1)
    #expect(worker?.isWorking == false && !runtime.work.isAnyActive, "the fetch is done; the timer waits")
  }

  @Test func aFailureIsAProblemNamingTheModuleAndTheWork() async throws {
    try await runtime.open("probe:worker")
    try runtime.send(.tap(button: "fail"))
    _ = await runtime.work.settle(limit: TestServices.settleLimit)
    let problems = runtime.takeProblems()
    #expect(problems.map(\.module) == ["probe:worker"])
    // The work, and what the module's error said.
    #expect(
      problems.first?.message.contains("'fetch'") == true
        && problems.first?.message.contains("the server said no") == true,
      "\(problems)")
  }

  @Test func aTimerTicksEachTimeItsPeriodPasses() async throws {
    try await runtime.open("probe:worker")
    try runtime.send(.tap(button: "tick"))
    await runtime.letTimePass(3.5)
    #expect(worker?.tree?.contains(.text("ticks: 3")) == true)
    try runtime.send(.tap(button: "stop"))
    await runtime.letTimePass(10)
    #expect(worker?.tree?.contains(.text("ticks: 3")) == true, "a cancelled timer stops ticking")
  }

  @Test func settlingGivesUpAtItsLimitNamingTheBusyWork() async throws {
    try await runtime.open("probe:other/probe:worker")
    try runtime.send(.tap(button: "hang"))
    #expect(await runtime.work.settle(limit: 0.05) == false)
    #expect(runtime.work.inFlight == ["probe:worker: 'hang'"])
    try await runtime.back()
    #expect(
      await runtime.work.settle(limit: TestServices.settleLimit),
      "detaching ends work that waits on anything cancellable")
  }
}

/// `probe:worker`: buttons that start work of each kind; `probe:other` draws
/// its name.
@MainActor
enum WorkerModule {
  struct Failure: Error, CustomStringConvertible {
    var description: String { "the server said no" }
  }

  struct Factory<Kind: NamedURN>: ModuleFactory {
    static var contract: Contract {
      Contract(urn: Kind.urn, summary: "Starts work.", services: [.clock], opens: [.push("probe:other")])
    }

    func build(_ context: ModuleContext) throws -> Module {
      let urn = Kind.urn
      switch urn {
      case "probe:other": return Module(view: StaticView(canvas: context.canvas, text: urn), presenter: Presenter())
      case "probe:lazy", "probe:blank": return Module(view: LazyView(context: context), presenter: Presenter())
      default: break
      }
      return Module(view: View(context: context), presenter: Presenter())
    }
  }

  final class Presenter: ViperPresenter {}

  final class StaticView: ViperView {
    let canvas: any Canvas
    let text: String
    init(canvas: any Canvas, text: String) {
      self.canvas = canvas
      self.text = text
    }
    func lifecycle(_ event: LifecycleEvent) {
      if event == .attach { canvas.draw(.text(text)) }
    }
    func handle(_ event: ViewEvent) {}
  }

  /// Draws nothing at attach; its work draws after a second (`probe:lazy`)
  /// or never (`probe:blank`).
  final class LazyView: ViperView {
    let context: ModuleContext
    init(context: ModuleContext) { self.context = context }
    func lifecycle(_ event: LifecycleEvent) {
      guard event == .attach, let clock = context.services.clock else { return }
      let draws = context.urn == "probe:lazy"
      context.work.start("fetch") { [weak self] in
        try await clock.sleep(for: 1)
        if draws { self?.context.canvas.draw(.text("fetched")) }
      }
    }
    func handle(_ event: ViewEvent) {}
  }

  final class View: ViperView {
    let context: ModuleContext
    var timer: WorkHandle?
    var ticks = 0
    init(context: ModuleContext) { self.context = context }

    func lifecycle(_ event: LifecycleEvent) {
      if event == .attach { show("idle") }
    }

    func show(_ status: String) {
      context.canvas.draw(
        .stack(
          .vertical,
          [.text(status)] + ["load", "pushLater", "fail", "tick", "stop", "hang"].map { .button(id: $0, title: $0) }))
    }

    func handle(_ event: ViewEvent) {
      if case .tap(let button) = event { tap(button) }
    }

    private func tap(_ button: String) {
      guard let clock = context.services.clock else {
        Issue.record("probe:worker declares the clock, and got none")
        return
      }
      let work = context.work
      switch button {
      case "load":
        show("loading")
        work.start("load") { [weak self] in
          try await clock.sleep(for: 1)
          self?.show("loaded")
        }
      case "pushLater":
        work.start("push") { [weak self] in
          try await clock.sleep(for: 1)
          self?.context.router.push("probe:other")
        }
      case "fail":
        work.start("fetch") { throw Failure() }
      case "tick":
        timer = work.every(1, on: clock, "tick") { [weak self] in
          guard let self else { return }
          ticks += 1
          show("ticks: \(ticks)")
        }
      case "stop":
        timer?.cancel()
      case "hang":
        work.start("hang") {
          let (never, _) = AsyncStream<Void>.makeStream()
          for await _ in never {}
        }
      default: break
      }
    }
  }

  enum Worker: NamedURN { static let urn = "probe:worker" }
  enum Other: NamedURN { static let urn = "probe:other" }
  enum Lazy: NamedURN { static let urn = "probe:lazy" }
  enum Blank: NamedURN { static let urn = "probe:blank" }

  static func catalog() -> PluginCatalog {
    let factories: [any ModuleFactory] = [Factory<Worker>(), Factory<Other>(), Factory<Lazy>(), Factory<Blank>()]
    return PluginCatalog(outcomes: [.loaded(LoadedPlugin(path: "worker.so", name: "Worker", factories: factories))])
  }
}
