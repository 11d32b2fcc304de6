import FaultyInterface
import ViperKit

// `ask:{how}`: asks the faulty service (``FaultyService``, provided by the
// Faulty plugin in a process of its own) on each tap of Ask, and shows the
// answer, or why the call failed: the consumer's screen stays whatever the
// provider does.

/// What `ask:{how}` shows.
struct AskScreen: ViperViewModel {
  let how: String
  let asked: Int
  let outcome: String?
  /// How long the last call took, as this module timed it: `Call 3 took 412 µs`.
  let took: String?
}

enum AskContract {
  static let contract = Contract(
    urn: "ask:{how}",
    summary: "Asks the faulty service (echo, crash or hang) on each tap of Ask, and shows how the call ended.",
    arguments: [
      .optional("url", .string, default: .string(""), "For fetch: the URL to fetch."),
      .required(
        "how", .string, "The operation to call: \(AskInteractor.How.allCases.map(\.rawValue).joined(separator: ", "))."),
    ],
    requires: [.required(FaultyService.self, "1.0"..<"2")])

  static let askID = "ask"
}

/// View → Presenter.
protocol AskViewOutput: ViperPresenter {
  func didTapAsk()
}

/// Presenter → View.
protocol AskViewInput: ViperView {
  func display(_ screen: AskScreen)
}

/// Interactor → Presenter.
protocol AskInteractorOutput: ViperPresenter {
  /// How the `number`th call ended, and how long it took.
  func present(outcome: String, of number: Int, took: Duration)
}

final class AskView: ViperView, AskViewInput {
  private let canvas: any Canvas
  let presenter: any AskViewOutput

  init(canvas: any Canvas, presenter: any AskViewOutput) {
    self.canvas = canvas
    self.presenter = presenter
  }

  func handle(_ event: ViewEvent) {
    if event == .tap(button: AskContract.askID) { presenter.didTapAsk() }
  }

  func display(_ screen: AskScreen) {
    canvas.draw {
      ViewNode.heading("Ask the faulty service: \(screen.how)")
      ViewNode.button(id: AskContract.askID, title: "Ask")
      ViewNode.text("Asked: \(screen.asked)")
      if let outcome = screen.outcome { ViewNode.text(outcome) }
      if let took = screen.took { ViewNode.text(took, tone: .muted) }
    }
  }
}

final class AskPresenter: ViperPresenter, AskViewOutput, AskInteractorOutput {
  weak var view: (any AskViewInput)?
  let interactor: AskInteractor
  private var asked = 0
  private var outcome: String?
  private var took: String?

  init(interactor: AskInteractor) {
    self.interactor = interactor
  }

  func lifecycle(_ event: LifecycleEvent) {
    if event == .attach { show() }
  }

  func didTapAsk() {
    asked += 1
    show()
    interactor.ask(number: asked)
  }

  func present(outcome: String, of number: Int, took duration: Duration) {
    self.outcome = outcome
    let (seconds, attoseconds) = duration.components
    took = "Call \(number) took \(seconds * 1_000_000 + attoseconds / 1_000_000_000_000) µs"
    show()
  }

  private func show() {
    view?.display(AskScreen(how: interactor.how.rawValue, asked: asked, outcome: outcome, took: took))
  }
}

/// Calls the operation `how` names, from the module's work.
final class AskInteractor: ViperInteractor {
  enum How: String, CaseIterable {
    case echo, crash, hang, fetch, unlisted
  }

  weak var presenter: (any AskInteractorOutput)?
  let how: How
  private let faulty: ServiceHandle<FaultyService>
  private let work: any ModuleWork

  private let url: String

  init(how: How, url: String, services: Services, work: any ModuleWork) {
    self.how = how
    self.url = url
    faulty = services.service(FaultyService.self)
    self.work = work
  }

  /// Makes the call, the `number`th, and presents how it ended.
  func ask(number: Int) {
    work.start("ask the faulty service") { [weak self, faulty, how, url] in
      // Timed here, in the consumer: the call through the host and back.
      let start = ContinuousClock.now
      let outcome: String
      do {
        let answer =
          switch how {
          case .echo: try await faulty.echo("ping")
          case .crash: try await faulty.crash("now")
          case .hang: try await faulty.hang("forever")
          case .fetch: try await faulty.fetch(url)
          case .unlisted: try await faulty.unlisted("now")
          }
        outcome = "Answer \(number): \(answer)"
      } catch let error as ServiceCallError {
        outcome = "Failed \(number) (\(error.kind.rawValue)): \(error.reason)"
      }
      self?.presenter?.present(outcome: outcome, of: number, took: ContinuousClock.now - start)
    }
  }
}

struct AskFactory: ModuleFactory {
  static let contract = AskContract.contract

  func build(_ context: ModuleContext) throws -> Module {
    let how = AskInteractor.How(rawValue: context.arguments.string("how") ?? "") ?? .echo
    let interactor = AskInteractor(
      how: how, url: context.arguments.string("url") ?? "", services: context.services, work: context.work)
    let presenter = AskPresenter(interactor: interactor)
    let view = AskView(canvas: context.canvas, presenter: presenter)
    presenter.view = view
    interactor.presenter = presenter
    return Module(view: view, presenter: presenter, interactor: interactor)
  }
}
