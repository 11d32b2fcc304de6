// Modules that each break exactly one conformance check (CHECKS.md), compiled
// by the tests into libBrokenModules.so. Each is named after the check it breaks.
import Foundation
import ViperKit

/// A minimal module whose behaviour is switched by `flaw`.
struct BrokenFactory: RuntimeModule {
  let contract: Contract
  let flaw: Flaw

  enum Flaw: Sendable {
    case none, throwsAlways, trapsWhenMissing, trapsOnWrongType, trapsOnUnknown, drawsNothing, trapsOnLongText
    case undeclaredOutput, noReceiver, drawsInBuild, retainCycle, hoardsMemory, sharedCounter, slow, forgetsSlots
    /// Done pushes `broken:none:weather:london?unit=imperial`: its module takes `units`.
    case unitsTypo
    /// Done goes back with pop(), also on a first screen.
    case backOnFirst
    /// Done embeds `broken:none` in slot `side`, which accepts only other patterns.
    case embedsRefused
    /// Answers its input `refresh` with the output `refreshed` whose int field is a string.
    case answersWrongType
    /// Done sends `reload` to the child in slot `side`, which declares no such input.
    case sendsUndeclaredInput
    /// Shows the time from a clock its contract does not list.
    case readsUndeclaredClock
  }

  func build(_ context: ModuleContext) throws -> Module {
    let values = context.arguments.values
    switch flaw {
    case .throwsAlways: throw ModuleBuildError("this module never builds")
    case .trapsWhenMissing: _ = values["n"]!
    case .trapsOnWrongType:
      if let value = values["n"], case .int = value {} else if values["n"] != nil { fatalError("n is not an int") }
    case .trapsOnUnknown: precondition(values.keys.allSatisfy { $0 == "n" }, "unknown argument")
    case .drawsInBuild: context.canvas.draw(.text("too early"))
    case .hoardsMemory: Hoard.add()
    default: break
    }
    let presenter = BrokenPresenter(flaw: flaw, messages: context.messages, router: context.router)
    let view = BrokenView(canvas: context.canvas, presenter: presenter, flaw: flaw, slots: contract.slots.map(\.name))
    view.clock = context.services.clock
    view.work = context.work
    presenter.view = view
    if flaw == .retainCycle { presenter.strongView = view }
    guard flaw == .noReceiver else { return Module(view: view, presenter: presenter) }
    // A presenter that is no MessageReceiver, kept alive by the view.
    let deaf = DeafPresenter()
    view.kept = deaf
    return Module(view: view, presenter: deaf)
  }
}

final class DeafPresenter: ViperPresenter {}

final class BrokenView: ViperView {
  var kept: AnyObject?
  var clock: (any WallClock)?
  var work: (any ModuleWork)?
  let canvas: any Canvas
  let presenter: BrokenPresenter
  let flaw: BrokenFactory.Flaw
  let slots: [String]

  init(canvas: any Canvas, presenter: BrokenPresenter, flaw: BrokenFactory.Flaw, slots: [String]) {
    self.canvas = canvas
    self.presenter = presenter
    self.flaw = flaw
    self.slots = slots
  }

  func lifecycle(_ event: LifecycleEvent) {
    guard event == .attach, flaw != .drawsNothing else { return }
    if flaw == .slow { usleep(80_000) }
    let label = flaw == .sharedCounter ? "instance \(Counter.next())" : "broken"
    if flaw == .readsUndeclaredClock {
      // Fetches in work; waits forever when its clock does nothing.
      canvas.draw(.text("Fetching the weather…"))
      work?.start("fetch") { [canvas, clock] in
        try await clock?.sleep(for: 1)
        canvas.draw(.text("Sunny"))
      }
      return
    }
    var children: [ViewNode] = [
      .text(label), .button(id: "done", title: "Done"), .field(id: "name", label: "Name", value: ""),
    ]
    // A module that declares slots but forgets to draw them leaves this out.
    if flaw != .forgetsSlots { children += slots.map { .slot($0) } }
    canvas.draw(.stack(.vertical, children))
  }

  func handle(_ event: ViewEvent) {
    switch event {
    case .tap("done"): presenter.done()
    case .type("name", let text): presenter.named(text)
    default: break
    }
  }
}

final class BrokenPresenter: ViperPresenter, MessageReceiver {
  weak var view: BrokenView?
  var strongView: BrokenView?
  let flaw: BrokenFactory.Flaw
  let messages: any MessagePort
  let router: any AppRouter

  init(flaw: BrokenFactory.Flaw, messages: any MessagePort, router: any AppRouter) {
    self.flaw = flaw
    self.messages = messages
    self.router = router
  }

  func done() {
    switch flaw {
    case .undeclaredOutput: messages.emit(Message("finished"))
    case .unitsTypo: router.push("broken:none:weather:london?unit=imperial")
    case .backOnFirst: router.pop()
    case .embedsRefused: router.embed("broken:none", in: "side")
    case .sendsUndeclaredInput: messages.send(Message("reload"), toSlot: "side")
    default: break
    }
  }

  func named(_ text: String) {
    // A real-looking bug: indexing past the end of long input.
    if flaw == .trapsOnLongText, text.count > 1000 { _ = Array(text)[text.count] }
  }

  func receive(_ message: Message, from origin: MessageOrigin) {
    if flaw == .answersWrongType, message.name == "refresh" {
      messages.emit(Message("refreshed", ["count": .string("3")]))
    }
  }
}

/// Grows with every build and never shrinks: what leaks.repeated catches.
enum Hoard {
  nonisolated(unsafe) static var blocks: [[UInt8]] = []
  static func add() { blocks.append([UInt8](repeating: 1, count: 1 << 20)) }
}

/// Numbers instances without a lock: what concurrency.build catches.
enum Counter {
  nonisolated(unsafe) static var value = 0
  static func next() -> Int {
    value += 1
    return value
  }
}
