import ViperKit

// The FaultyFrame plugin: `frame:{how}` embeds `faulty:{how}` in its slot
// `inner` and keeps working (its Ping button) when that child misbehaves. The
// host tells it so with the message `childFailed`, whose `reason` it shows.
// Scripts/make-plugin-dir links it only when VIVARIUM_DEMO_FAULTY=1.

/// View → Presenter.
protocol FrameViewOutput: ViperPresenter {
  func didTapPing()
}

/// Presenter → View.
protocol FrameViewInput: ViperView {
  func display(_ screen: FrameScreen)
}

/// Presenter → Interactor.
protocol FrameInteractorInput: ViperInteractor {
  func ping()
}

/// Interactor → Presenter.
protocol FrameInteractorOutput: ViperPresenter {
  func present(pings: Int)
}

/// Presenter → Router.
protocol FrameRouting: ViperRouter {
  func embedFaulty(how: String, at: String)
}

/// What the frame shows around its child.
struct FrameScreen: ViperViewModel {
  let pings: Int
  /// Why the child failed, once the host has said so.
  let childFailure: String?
}

enum FrameContract {
  static let contract = Contract(
    urn: "frame:{how}",
    summary: "Embeds faulty:{how} and keeps working (Ping) when it misbehaves.",
    arguments: [
      .required("how", .string, "How the child misbehaves: trap, segfault, hang, exit or allocate."),
      .choice("at", ["tap", "build", "present", "never"], "When the child misbehaves, its own 'at' argument."),
    ],
    slots: [SlotSpec(name: "inner", accepts: ["faulty:{how}"], kind: .single, description: "The faulty module.")])

  static let innerSlot = "inner"
  static let pingID = "ping"
  /// The message the host sends a parent whose child failed.
  static let childFailed = "childFailed"
}

/// Draws the Ping button, the child and what the frame was told.
final class FrameView: ViperView, FrameViewInput {
  private let canvas: any Canvas
  let presenter: any FrameViewOutput

  init(canvas: any Canvas, presenter: any FrameViewOutput) {
    self.canvas = canvas
    self.presenter = presenter
  }

  func handle(_ event: ViewEvent) {
    if event == .tap(button: FrameContract.pingID) { presenter.didTapPing() }
  }

  func display(_ screen: FrameScreen) {
    canvas.draw {
      ViewNode.heading("Frame")
      ViewNode.button(id: FrameContract.pingID, title: "Ping")
      if screen.pings > 0 { ViewNode.text("Frame still works (pings: \(screen.pings))") }
      ViewNode.slot(FrameContract.innerSlot)
      if let failure = screen.childFailure { ViewNode.text("Told: child failed: \(failure)") }
    }
  }
}

/// Embeds the child on attach, counts pings through the interactor, and
/// records what the host says about the child.
final class FramePresenter: ViperPresenter, FrameViewOutput, FrameInteractorOutput, MessageReceiver {
  weak var view: (any FrameViewInput)?
  let interactor: any FrameInteractorInput
  let router: any FrameRouting
  private let how: String
  private let at: String
  private var pings = 0
  private var childFailure: String?

  init(interactor: any FrameInteractorInput, router: any FrameRouting, how: String, at: String) {
    self.interactor = interactor
    self.router = router
    self.how = how
    self.at = at
  }

  func lifecycle(_ event: LifecycleEvent) {
    guard event == .attach else { return }
    router.embedFaulty(how: how, at: at)
    show()
  }

  func didTapPing() { interactor.ping() }

  func present(pings: Int) {
    self.pings = pings
    show()
  }

  func receive(_ message: Message, from origin: MessageOrigin) {
    guard message.name == FrameContract.childFailed, case .child = origin else { return }
    childFailure = message.fields["reason"]?.stringValue ?? "(no reason given)"
    show()
  }

  private func show() {
    view?.display(FrameScreen(pings: pings, childFailure: childFailure))
  }
}

/// Counts the pings.
final class FrameInteractor: ViperInteractor, FrameInteractorInput {
  weak var presenter: (any FrameInteractorOutput)?
  private var pings = 0

  func ping() {
    pings += 1
    presenter?.present(pings: pings)
  }
}

/// Embeds the faulty child in the slot `inner`.
final class FrameRouter: ViperRouter, FrameRouting {
  private let appRouter: any AppRouter

  init(appRouter: any AppRouter) {
    self.appRouter = appRouter
  }

  func embedFaulty(how: String, at: String) {
    appRouter.embed(URN("faulty", how).query("at", at), in: FrameContract.innerSlot)
  }
}

/// Builds and wires `frame:{how}`.
struct FrameFactory: ModuleFactory {
  static let contract = FrameContract.contract

  func build(_ context: ModuleContext) throws -> Module {
    let interactor = FrameInteractor()
    let router = FrameRouter(appRouter: context.router)
    let presenter = FramePresenter(
      interactor: interactor, router: router, how: context.arguments.string("how") ?? "",
      at: context.arguments.string("at") ?? "tap")
    let view = FrameView(canvas: context.canvas, presenter: presenter)
    presenter.view = view
    interactor.presenter = presenter
    return Module(view: view, presenter: presenter, interactor: interactor, router: router)
  }
}

/// The plugin: `frame:{how}`, a frame around a faulty child, and
/// `ask:{how}`, a consumer of the faulty service.
public enum FaultyFramePlugin: ViperPlugin {
  /// The factories of the modules this plugin offers.
  public static func factories() -> [any ModuleFactory] { [FrameFactory(), AskFactory()] }
}

/// The plugin's entry point, the only symbol the host looks up.
@_cdecl("vivarium_plugin_entry")
public func vivariumPluginEntry() -> UnsafeRawPointer {
  PluginEntry.descriptor(for: FaultyFramePlugin.self)
}
