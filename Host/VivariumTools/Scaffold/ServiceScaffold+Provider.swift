/// The interface package and the provider plugin of a new service.
extension ServiceScaffold {
  var interfaceManifest: String {
    """
    // swift-tools-version: 6.0
    // The interface of the \(service) business service: the types its provider
    // (the \(name) plugin) and its consumers (such as \(consumerName)) share. Each
    // plugin depends on this package and links its own copy; what crosses between
    // them is the service's name, its version and the values' wire form.
    import PackageDescription

    let package = Package(
      name: "\(interfaceName)",
      products: [
        .library(name: "\(interfaceName)", targets: ["\(interfaceName)"])
      ],
      dependencies: [
        .package(path: "\(sdkPath)")
      ],
      targets: [
        .target(name: "\(interfaceName)", dependencies: [.product(name: "ViperKit", package: "SDK")])
      ]
    )

    """
  }

  var interfaceFile: String {
    """
    import ViperKit

    /// The \(service) business service, declared once: the \(name) plugin provides
    /// it, and a module of any plugin calls it through a typed handle. Raise
    /// `version`'s major for a change that breaks consumers, its minor for an
    /// addition (a field a minor version adds must be optional).
    public enum \(serviceType): ServiceInterface {
      /// The service's name on the wire, unique in an app.
      public static let name = "\(service)"
      /// The version of the interface this declaration describes.
      public static let version: SemanticVersion = "1.0"
      /// The answer to a query: `try await \(handleName).lookup(\(name)Query("\(ServiceScaffold.sampleQuery)"))`.
      /// Fails with ``\(name)Failure`` when the service has no answer; calls
      /// that take longer than `deadline` seconds fail as `deadline`.
      public static let lookup = ServiceOperation<\(name)Query, \(name)Answer>(
        "lookup", failure: \(name)Failure.self, deadline: 5)
    }

    /// What a consumer asks: the request of ``\(serviceType)/lookup``.
    public struct \(name)Query: Codable, Sendable, Equatable {
      /// The words asked about.
      public var text: String

      /// A query.
      public init(_ text: String) {
        self.text = text
      }
    }

    /// What the service answers: the response of ``\(serviceType)/lookup``.
    public struct \(name)Answer: Codable, Sendable, Equatable {
      /// The answer, for people.
      public var text: String

      /// An answer.
      public init(_ text: String) {
        self.text = text
      }
    }

    /// Why there is no answer: the service's own failure, which a consumer
    /// catches as this type (any other error reaches it as a `ServiceCallError`).
    public struct \(name)Failure: Error, Codable, Sendable, Equatable {
      /// What went wrong, stable.
      public enum Kind: String, Codable, Sendable {
        /// The service has no answer to the query.
        case notFound
      }

      /// What went wrong.
      public var kind: Kind
      /// Why, for people.
      public var reason: String

      /// A failure.
      public init(_ kind: Kind, _ reason: String) {
        self.kind = kind
        self.reason = reason
      }
    }

    """
  }

  var providerFile: String {
    """
    import \(interfaceName)
    import ViperKit

    /// Provides the \(service) service. The host makes one, in this plugin's
    /// process, when a consumer first calls the service, and keeps it until
    /// the process ends; each call crosses the host, which checks, times and
    /// logs it.
    @MainActor
    final class \(name)Provider: ServiceProvider {
      /// The business services this provider calls in turn (none yet), as a
      /// contract's `requires`: `[.required(OtherService.self, "1.0"..<"2")]`.
      static let requires: [ServiceRequirement] = []
      /// The host services it uses (none yet), as a contract's `services`:
      /// `[.storage]`, then read them from `init(services:)`.
      static let services: [Services.Name] = []

      /// What the service knows. Replace it with the service's own work: the
      /// plugin's storage, the host's http service, other services.
      private let known = [
        "\(ServiceScaffold.sampleQuery)": "Hello from the \(service) service.",
        "version": "The \(service) service 1.0, provided by the \(name) plugin.",
      ]

      init(services: Services) {}

      /// How each operation is answered: a response, or the operation's
      /// declared failure, which the consumer catches as its own type.
      func answer(_ answers: inout ServiceAnswers<\(serviceType)>) {
        answers.on(\\.lookup) { [known] query in
          guard let text = known[query.text.lowercased()] else {
            throw \(name)Failure(
              .notFound, "no answer for '\\(query.text)'; ask one of \\(known.keys.sorted().joined(separator: ", "))")
          }
          return \(name)Answer(text)
        }
      }
    }

    /// The plugin: the \(service) service, and a screen saying what it provides.
    public enum \(name)Plugin: ViperPlugin {
      /// One factory per module; a plugin offers at least one.
      public static func factories() -> [any ModuleFactory] { [\(name)AboutFactory()] }
      /// This release of the plugin.
      public static let version: SemanticVersion = "1.0"
      /// The business services it provides: its manifest's `provides`.
      public static var providers: [any ServiceProvider.Type] { [\(name)Provider.self] }
    }

    """
  }

  var aboutFile: String {
    """
    import \(interfaceName)
    import ViperKit

    // `\(service):about`, the plugin's own screen (a plugin offers at least one
    // module): what it provides. It uses no service; a module that does asks
    // through its interactor, as \(consumerName)'s does.

    /// What the screen shows.
    struct \(name)AboutScreen: ViperViewModel {
      let lines: [String]
    }

    /// Draws the screen.
    final class \(name)AboutView: ViperView {
      private let canvas: any Canvas
      let presenter: \(name)AboutPresenter

      init(canvas: any Canvas, presenter: \(name)AboutPresenter) {
        self.canvas = canvas
        self.presenter = presenter
      }

      func handle(_ event: ViewEvent) {}

      func display(_ screen: \(name)AboutScreen) {
        canvas.draw {
          ViewNode.heading("\(name)")
          for line in screen.lines { ViewNode.text(line) }
        }
      }
    }

    /// Says what the plugin provides, once attached.
    final class \(name)AboutPresenter: ViperPresenter {
      weak var view: \(name)AboutView?

      func lifecycle(_ event: LifecycleEvent) {
        guard event == .attach else { return }
        view?.display(
          \(name)AboutScreen(lines: [
            "Provides the \\(\(serviceType).name) service \\(\(serviceType).version): lookup.",
            "Open \(service):ask:{query} (\(consumerName)) to call it.",
          ]))
      }
    }

    /// Builds `\(service):about`.
    struct \(name)AboutFactory: ModuleFactory {
      static let contract = Contract(
        urn: "\(service):about", version: 1, summary: "What the \(name) plugin provides: the \(service) service.")

      func build(_ context: ModuleContext) throws -> Module {
        let presenter = \(name)AboutPresenter()
        let view = \(name)AboutView(canvas: context.canvas, presenter: presenter)
        presenter.view = view
        return Module(view: view, presenter: presenter)
      }
    }

    """
  }

  var providerTestFile: String {
    """
    import Testing
    import ViperKit
    import ViperKitTestKit
    import \(interfaceName)

    @testable import \(name)

    /// The provider alone, called as its consumers would call it: through the
    /// test kit's fake services, the values coded both ways as between plugins.
    @Suite("\(name)")
    @MainActor
    struct \(name)Tests {
      private func service() -> ServiceHandle<\(serviceType)> {
        let fake = FakeServices()
        fake.provide(\(name)Provider.self)
        return fake.handle(\(serviceType).self)
      }

      @Test func answersWhatItKnows() async throws {
        let answer = try await service().lookup(\(name)Query("\(ServiceScaffold.sampleQuery)"))
        #expect(answer.text == "Hello from the \(service) service.")
      }

      @Test func failsWithItsDeclaredFailure() async {
        await #expect(throws: \(name)Failure.self) {
          try await service().lookup(\(name)Query("nothing known"))
        }
      }

      /// Each operation called with a sample request answers in time with a
      /// response or its declared failure (`vivarium check`: service.answers).
      @Test func passesTheProviderCheck() async {
        let results = await Conformance.run(providers: \(name)Plugin.providers)
        #expect(!results.isEmpty && results.allSatisfy { $0.status != .failed }, "\\(results)")
      }

      /// Time and memory checks are left to `vivarium check`, which runs each in
      /// a process of its own; other tests running alongside would disturb them.
      @Test func theAboutScreenPassesTheConformanceChecks() {
        let report = Conformance.run(
          factories: \(name)Plugin.factories(), strictness: 10, skip: ["speed", "leaks.repeated"])
        #expect(report.failures.isEmpty, "\\(report)")
      }
    }

    """
  }
}

extension ServiceScaffold {
  /// The service's name as a Swift variable: `order-history` as `orderHistory`.
  var handleName: String {
    let words = service.split(separator: "-")
    return (words.prefix(1).map(String.init) + words.dropFirst().map { $0.prefix(1).uppercased() + $0.dropFirst() })
      .joined()
  }
}
