/// The Swift sources of a new plugin: one file per VIPER role.
extension PluginScaffold {
  private var arguments: String {
    (pattern.placeholders.map { "      .required(\"\($0)\", .string, \"The \($0) this screen shows.\")" }
      + ["      .optional(\"entry\", .int, default: .int(0), \"The entry shown, or 0 for the list of entries.\")"])
      .joined(separator: ",\n")
  }

  var contractFile: String {
    """
    import ViperKit

    // The \(name) module's contract: the protocols between its roles, its
    // entity and view model, and the contract data the host routes by.

    /// View → Presenter: what the person did.
    protocol \(name)ViewOutput: ViperPresenter {
      func didTapRefresh()
      func didTapBack()
      func didSelect(row: String)
    }

    /// Presenter → View: what to draw.
    protocol \(name)ViewInput: ViperView {
      func display(_ screen: \(name)Screen)
    }

    /// Presenter → Interactor: what to do with the data.
    protocol \(name)InteractorInput: ViperInteractor {
      func load()
    }

    /// Interactor → Presenter: what the data is.
    protocol \(name)InteractorOutput: ViperPresenter {
      func present(entries: [\(name)Entry], loads: Int)
    }

    /// Presenter → Router: where to go.
    protocol \(name)Routing: ViperRouter {
      func open(entry: Int)
      func close()
    }

    /// An entry, the entity the interactor owns.
    struct \(name)Entry: ViperEntity, Equatable {
      let id: Int
      let title: String
    }

    /// What the screen shows, formatted for display.
    struct \(name)Screen: ViperViewModel {
      let title: String
      let details: [String]
      let rows: [ListRow]
      let notice: String?
      /// Back is drawn only on a pushed entry: the list may be the app's
      /// first screen, where there is nowhere to go back to.
      let showsBack: Bool
    }

    enum \(name)Contract {
      static let contract = Contract(
        urn: "\(pattern.text)",
        version: 1,
        summary: "The \(name) screen.",
        arguments: [
    \(arguments)
        ],
        // Every screen it opens: selecting an entry pushes this module again,
        // showing that entry. The host reports a request not declared here,
        // and `vivarium check` fails it.
        opens: [.push("\(pattern.text)", arguments: ["entry": .int])])

      static let listID = "entries"
      static let refreshID = "refresh"
      static let backID = "back"
    }

    """
  }

  var viewFile: String {
    """
    import ViperKit

    /// Draws what the presenter gives it and forwards what the person does.
    final class \(name)View: ViperView, \(name)ViewInput {
      private let canvas: any Canvas
      let presenter: any \(name)ViewOutput

      init(canvas: any Canvas, presenter: any \(name)ViewOutput) {
        self.canvas = canvas
        self.presenter = presenter
      }

      func handle(_ event: ViewEvent) {
        switch event {
        case .tap(\(name)Contract.refreshID): presenter.didTapRefresh()
        case .tap(\(name)Contract.backID): presenter.didTapBack()
        case .select(\(name)Contract.listID, let row): presenter.didSelect(row: row)
        case .tap, .select, .type:
          // The host sends events only for elements this view drew: one that
          // reaches here was drawn and is not handled above (a new element,
          // an id spelt two ways). Debug builds stop here, so that
          // `vivarium check` reports it rather than a tap doing nothing.
          assertionFailure("\(name)View does not handle \\(event)")
        @unknown default: break
        }
      }

      func display(_ screen: \(name)Screen) {
        canvas.draw {
          ViewNode.heading(screen.title)
          for detail in screen.details { ViewNode.text(detail, tone: .muted) }
          if let notice = screen.notice { ViewNode.notice(.info, notice) }
          ViewNode.list(id: \(name)Contract.listID, rows: screen.rows)
          ViewNode.horizontal {
            ViewNode.button(id: \(name)Contract.refreshID, title: "Refresh")
            if screen.showsBack { ViewNode.button(id: \(name)Contract.backID, title: "Back") }
          }
        }
      }
    }

    """
  }

  var presenterFile: String {
    """
    import ViperKit

    /// Turns entries into the screen and decides what each event does.
    final class \(name)Presenter: ViperPresenter {
      weak var view: (any \(name)ViewInput)?
      let interactor: any \(name)InteractorInput
      let router: any \(name)Routing
      private let details: [String]
      private let entry: Int

      init(details: [String], entry: Int, interactor: any \(name)InteractorInput, router: any \(name)Routing) {
        self.details = details
        self.entry = entry
        self.interactor = interactor
        self.router = router
      }

      func lifecycle(_ event: LifecycleEvent) {
        if event == .attach { interactor.load() }
      }
    }

    extension \(name)Presenter: \(name)ViewOutput {
      func didTapRefresh() { interactor.load() }
      func didTapBack() { router.close() }
      func didSelect(row: String) {
        if let entry = Int(row) { router.open(entry: entry) }
      }
    }

    extension \(name)Presenter: \(name)InteractorOutput {
      func present(entries: [\(name)Entry], loads: Int) {
        view?.display(
          \(name)Screen(
            title: "\(name)", details: details + (entry == 0 ? [] : ["entry: \\(entry)"]),
            rows: entries.filter { entry == 0 || $0.id == entry }.map { ListRow(id: String($0.id), title: $0.title) },
            notice: loads > 1 ? "Refreshed." : nil, showsBack: entry != 0))
      }
    }

    """
  }

  var interactorFile: String {
    """
    import ViperKit

    /// Owns the entries; the only role that may use services (none yet: list
    /// them in the contract, then read them from the services passed in).
    final class \(name)Interactor: ViperInteractor, \(name)InteractorInput {
      weak var presenter: (any \(name)InteractorOutput)?
      private let services: Services
      private var loads = 0

      init(services: Services) {
        self.services = services
      }

      func load() {
        loads += 1
        let entries = [
          \(name)Entry(id: 1, title: "First entry"),
          \(name)Entry(id: 2, title: "Second entry"),
          \(name)Entry(id: 3, title: "Third entry"),
        ]
        presenter?.present(entries: entries, loads: loads)
      }
    }

    """
  }

  var routerFile: String {
    """
    import ViperKit

    /// Navigates by URN through the host; never builds another module itself.
    final class \(name)Router: ViperRouter, \(name)Routing {
      private let appRouter: any AppRouter
      /// This module's own URN, to open another of its entries.
      private let urn: URN

      init(appRouter: any AppRouter, urn: URN) {
        self.appRouter = appRouter
        self.urn = urn
      }

      func open(entry: Int) { appRouter.push(urn.query("entry", entry)) }
      func close() { appRouter.pop() }
    }

    """
  }

  /// `name` as a Swift identifier: in backquotes if it is a keyword.
  private func identifier(_ name: String) -> String {
    PluginScaffold.keywords.contains(name) ? "`\(name)`" : name
  }

  var factoryFile: String {
    // Each argument is read, and a missing one refused with the SDK's build
    // error (a host other than this one may not validate arguments first).
    let reads = pattern.placeholders.map { argument in
      """
          guard let \(identifier(argument)) = context.arguments.string("\(argument)") else {
            throw ModuleBuildError("\(argument) is missing; open the module as \(pattern.text)")
          }

      """
    }.joined()
    let details = pattern.placeholders.map { "\"\($0): \\(\(identifier($0)))\"" }
    let segments = pattern.segments.map {
      switch $0 {
      case .literal(let text): "\"\(text)\""
      case .placeholder(let name): identifier(name)
      }
    }
    return """
      import ViperKit

      /// Builds and wires the \(name) module.
      struct \(name)Factory: ModuleFactory {
        static var contract: Contract { \(name)Contract.contract }

        func build(_ context: ModuleContext) throws -> Module {
      \(reads)    let interactor = \(name)Interactor(services: context.services)
          let router = \(name)Router(appRouter: context.router, urn: URN(\(segments.joined(separator: ", "))))
          let presenter = \(name)Presenter(
            details: [\(details.joined(separator: ", "))], entry: context.arguments.int("entry") ?? 0,
            interactor: interactor, router: router)
          let view = \(name)View(canvas: context.canvas, presenter: presenter)
          presenter.view = view
          interactor.presenter = presenter
          return Module(view: view, presenter: presenter, interactor: interactor, router: router)
        }
      }

      /// The plugin: the modules it offers.
      public enum \(name)Plugin: ViperPlugin {
        /// One factory per module.
        public static func factories() -> [any ModuleFactory] { [\(name)Factory()] }
      }

      """
  }

  var testFile: String {
    let arguments = pattern.placeholders.map { "\"\($0)\": .string(\"sample\")" }.joined(separator: ", ")
    return """
      import Testing
      import ViperKit
      import ViperKitTestKit

      @testable import \(name)

      @Suite("\(name)")
      @MainActor
      struct \(name)Tests {
        private func presented() async throws -> ModuleHarness {
          let harness = try ModuleHarness(\(name)Factory(), arguments: [\(arguments.isEmpty ? ":" : arguments)])
          await harness.present()
          return harness
        }

        @Test func firstScreenListsTheEntries() async throws {
          let harness = try await presented()
          guard case .stack(_, let children)? = harness.tree else {
            Issue.record("the view drew nothing")
            return
          }
          #expect(children.first == .heading("\(name)"))
          #expect(children.contains { if case .list(_, let rows) = $0 { rows.count == 3 } else { false } })
        }

        @Test func refreshSaysSo() async throws {
          let harness = try await presented()
          try harness.send(.tap(button: "refresh"))
          guard case .stack(_, let children)? = harness.tree else {
            Issue.record("the view drew nothing")
            return
          }
          #expect(children.contains(.notice(.info, "Refreshed.")))
          // No Back on the list: it may be the app's first screen.
          #expect(ViewElements(harness.tree).buttons == ["refresh"])
          #expect(harness.tearDown().isEmpty)
        }

        @Test func selectingAnEntryPushesItAndItsBackPops() async throws {
          let list = try await presented()
          try list.send(.select(list: "entries", row: "2"))
          #expect(list.requests == [.push(list.urn + "?entry=2")])
          let entry = try ModuleHarness(\(name)Factory(), arguments: [\(arguments.isEmpty ? "" : arguments + ", ")"entry": .int(2)])
          await entry.present()
          try entry.send(.tap(button: "back"))
          #expect(entry.requests == [.pop])
        }

        /// Time and memory checks are left to `vivarium check`, which runs each in
        /// a process of its own; other tests running alongside would disturb them.
        @Test func passesTheConformanceChecks() {
          let report = Conformance.run(
            factories: \(name)Plugin.factories(), strictness: 10, skip: ["speed", "leaks.repeated"])
          #expect(report.failures.isEmpty, "\\(report)")
        }
      }

      """
  }
}
