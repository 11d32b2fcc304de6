import Foundation
import Testing
import ViperKit
import ViperKitHosting
import ViperKitTestKit

@testable import VivariumApp
@testable import VivariumLoading
@testable import VivariumRuntime

/// Records what probe modules go through, across one test: lifecycle events
/// and messages in order, and each module's context so the test can make the
/// requests a module's router would.
@MainActor
final class ProbeRecorder {
  private let lock = NSLock()
  private var events: [String] = []
  private var contexts: [String: ModuleContext] = [:]

  /// `urn:event` and `urn<-message` lines, in order.
  var log: [String] { lock.withLock { events } }

  func record(_ line: String) { lock.withLock { events.append(line) } }

  func clear() { lock.withLock { events.removeAll() } }

  func keep(_ context: ModuleContext) { lock.withLock { contexts[context.urn] = context } }

  /// The context of the module opened as `urn`, most recent first.
  func context(_ urn: String) -> ModuleContext? { lock.withLock { contexts[urn] } }
}

/// A module with any contract: it draws its URN and its slots, records its
/// lifecycle and the messages it receives, and does nothing else.
struct ProbeFactory: RuntimeModule {
  let contract: Contract
  let recorder: ProbeRecorder

  func build(_ context: ModuleContext) throws -> Module {
    recorder.keep(context)
    let presenter = ProbePresenter(urn: context.urn, recorder: recorder)
    let view = ProbeView(presenter: presenter, canvas: context.canvas, urn: context.urn, slots: contract.slots)
    return Module(view: view, presenter: presenter)
  }
}

final class ProbeView: ViperView {
  let presenter: ProbePresenter
  let canvas: any Canvas
  let urn: String
  let slots: [SlotSpec]

  init(presenter: ProbePresenter, canvas: any Canvas, urn: String, slots: [SlotSpec]) {
    self.presenter = presenter
    self.canvas = canvas
    self.urn = urn
    self.slots = slots
  }

  func lifecycle(_ event: LifecycleEvent) {
    presenter.recorder.record("\(urn):\(event.rawValue)")
    if event == .attach {
      canvas.draw(.stack(.vertical, [.text(urn), .button(id: "ok", title: "OK")] + slots.map { .slot($0.name) }))
    }
  }

  func handle(_ event: ViewEvent) { presenter.recorder.record("\(urn):\(event)") }
}

class ProbePresenter: ViperPresenter, MessageReceiver {
  let urn: String
  let recorder: ProbeRecorder

  init(urn: String, recorder: ProbeRecorder) {
    self.urn = urn
    self.recorder = recorder
  }

  func receive(_ message: Message, from origin: MessageOrigin) {
    recorder.record("\(urn)<-\(message)")
  }
}

/// A catalog of probe modules: `probe:parent` with a stack slot `main` and a
/// tabs slot `tabs` (both accepting `probe:child:{n}`), and `probe:child:{n}`
/// with an input `ping` and an output `done(code: int)`.
@MainActor
enum ProbeApp {
  static func catalog(_ recorder: ProbeRecorder) -> PluginCatalog {
    let parent = Contract(
      urn: "probe:parent", summary: "Parent.",
      slots: [
        SlotSpec(name: "main", accepts: ["probe:child:{n}"], kind: .stack, description: "Children."),
        SlotSpec(name: "tabs", accepts: ["probe:child:{n}"], kind: .tabs, description: "Tabs."),
        SlotSpec(name: "one", accepts: ["probe:child:{n}"], kind: .single, description: "One child."),
      ])
    let child = Contract(
      urn: "probe:child:{n}", summary: "Child.", arguments: [.required("n", .int, "Which.")],
      inputs: [MessageSpec(name: "ping", description: "Ping.")],
      outputs: [MessageSpec(name: "done", fields: ["code": .int], description: "Done.")])
    let factories: [any ModuleFactory] = [parent, child].map { ProbeFactory(contract: $0, recorder: recorder).factory }
    // Built, as far as the host knows, before contracts declared their
    // navigation: the tests using it make requests of every kind, checked
    // against declarations in NavigationDeclarationTests instead.
    let plugin = LoadedPlugin(
      path: "probe.so", name: "Probe", sdkVersion: ViperKitVersion(major: 2, minor: 3, patch: 0), factories: factories)
    return PluginCatalog(outcomes: [.loaded(plugin)])
  }
}

/// A runtime over ``ProbeApp`` and its recorder, with a way to make the
/// requests a probe module's router or message port would make.
@MainActor
struct ProbeHost {
  let recorder = ProbeRecorder()
  let runtime: HostRuntime

  init() throws {
    runtime = HostRuntime(catalog: ProbeApp.catalog(recorder), services: try TestServices.make())
  }

  /// The context of the module opened as `urn`.
  func context(_ urn: String) throws -> ModuleContext { try #require(recorder.context(urn)) }

  /// Lets `urn`'s router ask for something, then lets the host carry it out.
  func request(from urn: String, _ make: (any AppRouter) -> Void) throws {
    make(try context(urn).router)
    runtime.drain()
  }

  /// Lets `urn`'s message port send something, then lets the host deliver it.
  func message(from urn: String, _ make: (any MessagePort) -> Void) throws {
    make(try context(urn).messages)
    runtime.drain()
  }
}
