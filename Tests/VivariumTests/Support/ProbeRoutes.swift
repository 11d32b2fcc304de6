import ViperKit
import VivariumLoading
import VivariumRuntime
import VivariumSupport

/// In-process modules with contracts the sample plugins do not exercise.
enum ProbeRoutes {
  /// `probe:args` takes a required string, and an optional int, double and bool.
  struct ArgumentsFactory: ModuleFactory {
    static var contract: Contract {
      Contract(
        urn: "probe:args", summary: "Takes one argument of each type.",
        arguments: [
          .required("name", .string, "Required text."),
          .optional("count", .int, default: .int(3), "A number."),
          .optional("ratio", .double, default: .double(1), "A ratio."),
          .optional("verbose", .bool, default: .bool(false), "A flag."),
        ])
    }

    func build(_ context: ModuleContext) throws -> Module {
      throw ModuleBuildError("probe:args is only resolved, never built")
    }
  }

  /// `probe:leaky`: its view and presenter hold each other strongly, the
  /// classic VIPER leak. `probe:blank` never draws. `probe:broken` fails to build.
  struct MisbehavingFactory<Kind: NamedURN>: ModuleFactory {
    static var contract: Contract { Contract(urn: Kind.urn, summary: "Misbehaves on purpose.") }

    func build(_ context: ModuleContext) throws -> Module {
      switch Kind.urn {
      case "probe:broken": throw ModuleBuildError("the probe refuses to build")
      case "probe:blank": return Module(view: CyclicView(canvas: nil), presenter: CyclicPresenter())
      default:
        let presenter = CyclicPresenter()
        let view = CyclicView(canvas: context.canvas)
        view.presenter = presenter
        presenter.view = view
        return Module(view: view, presenter: presenter)
      }
    }
  }

  final class CyclicView: ViperView {
    let canvas: (any Canvas)?
    var presenter: CyclicPresenter?
    init(canvas: (any Canvas)?) { self.canvas = canvas }
    func lifecycle(_ event: LifecycleEvent) {
      if event == .attach { canvas?.draw(.text("cyclic")) }
    }
    func handle(_ event: ViewEvent) {}
  }

  final class CyclicPresenter: ViperPresenter {
    var view: CyclicView?
  }

  enum Leaky: NamedURN { static let urn = "probe:leaky" }
  enum Blank: NamedURN { static let urn = "probe:blank" }
  enum Broken: NamedURN { static let urn = "probe:broken" }

  static func catalog() -> PluginCatalog {
    let factories: [any ModuleFactory] =
      [ArgumentsFactory(), MisbehavingFactory<Leaky>(), MisbehavingFactory<Blank>(), MisbehavingFactory<Broken>()]
    return PluginCatalog(outcomes: [.loaded(LoadedPlugin(path: "probe.so", name: "Probe", factories: factories))])
  }
}

extension PluginCatalog {
  /// The error resolving `urn` throws; records an issue if it resolves.
  func resolveError(
    _ urn: String, _ extra: [(name: String, value: String)] = [], invocation: Invocation = .plain
  ) throws -> ResolveError {
    do {
      _ = try resolve(urn, arguments: extra, invocation: invocation)
    } catch {
      return error
    }
    throw ResolvedUnexpectedly(urn: urn)
  }
}

struct ResolvedUnexpectedly: Error { let urn: String }

/// A URN as a type: test factories that differ only in their URN are one
/// generic type, and each URN makes its own type, with its own contract.
protocol NamedURN: Sendable {
  static var urn: String { get }
}
