/// The consumer plugin of a new service: one module whose interactor calls
/// the service, and the README of the three packages.
extension ServiceScaffold {
  private var query: String { ServiceScaffold.queryArgument }

  var consumerContractFile: String {
    let module = consumerName
    return """
      import \(interfaceName)
      import ViperKit

      // The \(module) module's contract: the protocols between its roles, its
      // view model, and the contract data the host routes by, which says the
      // module requires the \(service) service.

      /// View → Presenter: what the person did.
      protocol \(module)ViewOutput: ViperPresenter {
        func didTapAsk()
      }

      /// Presenter → View: what to draw.
      protocol \(module)ViewInput: ViperView {
        func display(_ screen: \(module)Screen)
      }

      /// Presenter → Interactor: what to do. Only the interactor uses services.
      protocol \(module)InteractorInput: ViperInteractor {
        func ask(_ query: String)
      }

      /// Interactor → Presenter: what the service said.
      protocol \(module)InteractorOutput: ViperPresenter {
        func present(answer: \(name)Answer)
        func present(failure: \(name)Failure)
        func presentUnavailable(reason: String)
      }

      /// What the screen shows, formatted for display.
      struct \(module)Screen: ViperViewModel {
        enum State: Equatable {
          case asking
          case answered(String)
          case failed(String)
          case unavailable(String)
        }
        let query: String
        let state: State
      }

      enum \(module)Contract {
        static let contract = Contract(
          urn: "\(consumerPattern.text)",
          version: 1,
          summary: "Asks the \(service) service and shows its answer.",
          arguments: [.required("\(query)", .string, "What to ask the \(service) service.")],
          // The business services the module calls, and the versions it
          // accepts: the host refuses a call to any other, and resolves this
          // before any plugin code runs (vivarium services).
          requires: [.required(\(serviceType).self, "1.0"..<"2")])

        static let askID = "ask"
      }

      """
  }

  var consumerViewFile: String {
    let module = consumerName
    return """
      import ViperKit

      /// Draws what the presenter gives it and forwards what the person does.
      final class \(module)View: ViperView, \(module)ViewInput {
        private let canvas: any Canvas
        let presenter: any \(module)ViewOutput

        init(canvas: any Canvas, presenter: any \(module)ViewOutput) {
          self.canvas = canvas
          self.presenter = presenter
        }

        func handle(_ event: ViewEvent) {
          if event == .tap(button: \(module)Contract.askID) { presenter.didTapAsk() }
        }

        func display(_ screen: \(module)Screen) {
          canvas.draw {
            ViewNode.heading("Ask the \(service) service")
            ViewNode.text("\(query): \\(screen.query)", tone: .muted)
            switch screen.state {
            case .asking: ViewNode.text("Asking…", tone: .muted)
            case .answered(let answer): ViewNode.text(answer)
            case .failed(let reason): ViewNode.notice(.negative, reason)
            case .unavailable(let reason): ViewNode.notice(.warning, reason)
            }
            ViewNode.button(id: \(module)Contract.askID, title: "Ask again")
          }
        }
      }

      """
  }

  var consumerPresenterFile: String {
    let module = consumerName
    return """
      import \(interfaceName)
      import ViperKit

      /// Turns what the service said into the screen, and decides what each
      /// event does. It never touches a service: it asks the interactor.
      final class \(module)Presenter: ViperPresenter {
        weak var view: (any \(module)ViewInput)?
        let interactor: any \(module)InteractorInput
        private let query: String

        init(query: String, interactor: any \(module)InteractorInput) {
          self.query = query
          self.interactor = interactor
        }

        func lifecycle(_ event: LifecycleEvent) {
          if event == .attach { ask() }
        }

        private func ask() {
          show(.asking)
          interactor.ask(query)
        }

        private func show(_ state: \(module)Screen.State) {
          view?.display(\(module)Screen(query: query, state: state))
        }
      }

      extension \(module)Presenter: \(module)ViewOutput {
        func didTapAsk() { ask() }
      }

      extension \(module)Presenter: \(module)InteractorOutput {
        func present(answer: \(name)Answer) { show(.answered(answer.text)) }
        func present(failure: \(name)Failure) { show(.failed("No answer: \\(failure.reason)")) }
        func presentUnavailable(reason: String) {
          show(.unavailable("The \(service) service is unavailable: \\(reason)"))
        }
      }

      """
  }

  var consumerInteractorFile: String {
    let module = consumerName
    return """
      import \(interfaceName)
      import ViperKit

      /// Asks the \(service) service; the only role that may use services.
      final class \(module)Interactor: ViperInteractor, \(module)InteractorInput {
        weak var presenter: (any \(module)InteractorOutput)?
        private let services: Services
        private let work: any ModuleWork

        init(services: Services, work: any ModuleWork) {
          self.services = services
          self.work = work
        }

        func ask(_ query: String) {
          // A typed handle on the service; the contract's `requires` lists it.
          let service = services.service(\(serviceType).self)
          // What takes time runs as the module's work: the host cancels it, and
          // the call in the provider too, when the module detaches.
          work.start("ask the \(service) service") { [weak self] in
            do {
              // The call crosses the host to the provider's process.
              let answer = try await service.lookup(\(name)Query(query))
              self?.presenter?.present(answer: answer)
            } catch let failure as \(name)Failure {
              // The provider's declared failure, as its own type.
              self?.presenter?.present(failure: failure)
            } catch let error as ServiceCallError {
              // The service's: no provider, past the deadline… (error.kind).
              self?.presenter?.presentUnavailable(reason: error.reason)
            }
          }
        }
      }

      """
  }

  var consumerFactoryFile: String {
    let module = consumerName
    return """
      import ViperKit

      /// Builds and wires the \(module) module.
      struct \(module)Factory: ModuleFactory {
        static var contract: Contract { \(module)Contract.contract }

        func build(_ context: ModuleContext) throws -> Module {
          guard let query = context.arguments.string("\(query)") else {
            throw ModuleBuildError("\(query) is missing; open the module as \(consumerPattern.text)")
          }
          // The interactor gets the services and the work; the presenter neither.
          let interactor = \(module)Interactor(services: context.services, work: context.work)
          let presenter = \(module)Presenter(query: query, interactor: interactor)
          let view = \(module)View(canvas: context.canvas, presenter: presenter)
          presenter.view = view
          interactor.presenter = presenter
          return Module(view: view, presenter: presenter, interactor: interactor)
        }
      }

      /// The plugin: the modules it offers.
      public enum \(module)Plugin: ViperPlugin {
        /// One factory per module.
        public static func factories() -> [any ModuleFactory] { [\(module)Factory()] }
      }

      """
  }

  var consumerTestFile: String {
    let module = consumerName
    return """
      import Testing
      import ViperKit
      import ViperKitTestKit
      import \(interfaceName)

      @testable import \(module)

      /// The module alone, against a fake of the \(service) service's provider.
      @Suite("\(module)")
      @MainActor
      struct \(module)Tests {
        private func presented(_ fake: FakeServices) async throws -> ModuleHarness {
          let harness = try ModuleHarness(\(module)Factory(), arguments: ["\(query)": .string("\(service)")], services: fake)
          await harness.present()
          return harness
        }

        /// What the view drew last, below its stack.
        private func drawn(_ harness: ModuleHarness) -> [ViewNode] {
          guard case .stack(_, let children)? = harness.tree else { return [] }
          return children
        }

        @Test func showsTheAnswer() async throws {
          let fake = FakeServices()
          fake.provide(\(serviceType).self) { answers in answers.on(\\.lookup) { \(name)Answer("About \\($0.text).") } }
          let harness = try await presented(fake)
          #expect(drawn(harness).contains(.text("About \(service).")))
          #expect(fake.serviceCalls == ["\(service).lookup"])
          try harness.send(.tap(button: "ask"))
          await harness.settle()
          #expect(fake.serviceCalls.count == 2)
          #expect(harness.tearDown().isEmpty)
        }

        @Test func showsTheDeclaredFailure() async throws {
          let fake = FakeServices()
          fake.provide(\(serviceType).self) { answers in
            answers.on(\\.lookup) { _ in throw \(name)Failure(.notFound, "nothing about it") }
          }
          let harness = try await presented(fake)
          #expect(drawn(harness).contains(.notice(.negative, "No answer: nothing about it")))
        }

        @Test func saysSoWhenNoProviderAnswers() async throws {
          let harness = try await presented(FakeServices())
          #expect(
            drawn(harness).contains {
              if case .notice(.warning, let text) = $0 { text.hasPrefix("The \(service) service is unavailable") } else { false }
            })
        }

        /// Time and memory checks are left to `vivarium check`, which runs each in
        /// a process of its own; other tests running alongside would disturb them.
        @Test func passesTheConformanceChecks() {
          let report = Conformance.run(
            factories: \(module)Plugin.factories(), strictness: 10, skip: ["speed", "leaks.repeated"])
          #expect(report.failures.isEmpty, "\\(report)")
        }
      }

      """
  }

  var readme: String {
    let provider = ".build/debug/lib\(name).so"
    let consumer = ".build/debug/lib\(consumerName).so"
    return """
      # The \(service) service

      A Vivarium business service, in three packages side by side:

      | package | what it is |
      | --- | --- |
      | `\(interfaceName)` | the interface: `\(serviceType)` (`\(service)` 1.0) with one operation, `lookup`, taking a `\(name)Query`, answering a `\(name)Answer`, failing with `\(name)Failure`. Publish it: the provider and every consumer depend on it |
      | `\(name)` | the plugin providing it: `\(name)Provider` answers `lookup` (its manifest's `provides`), and `\(service):about` says so |
      | `\(consumerName)` | a plugin whose module `\(consumerPattern.text)` requires the service: its interactor calls it, its presenter shows the answer or the failure |

      ```sh
      (cd \(name) && swift build && swift test)                 # the provider, tested alone
      (cd \(consumerName) && swift build && swift test)         # the consumer, against a fake provider
      vivarium check \(name)/\(provider) \(consumerName)/\(consumer) --strictness 10
      vivarium render \(sampleURN) --plugins \(name)/\(provider) --plugins \(consumerName)/\(consumer)
      vivarium services --plugins \(name)/\(provider) --plugins \(consumerName)/\(consumer)
      ```

      Each plugin depends on `../\(interfaceName)` and links its own copy of
      it; what crosses between them is the service's name, its version and its
      values in their wire form. Change the interface's `version` when you
      change it: the major for a change that breaks consumers, the minor for
      an addition.

      Vivarium's guide, `Host/SDK/GUIDE.md` in the Vivarium checkout, and
      `docs/services.md` cover services, their tests and their checks.

      """
  }
}
