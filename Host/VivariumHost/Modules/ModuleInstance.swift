import Foundation
import ViperKit

/// A navigation request a module's router made.
public enum NavigationRequest: Codable, Hashable, Sendable {
  /// ``AppRouter/push(_:)``.
  case push(String)
  /// ``AppRouter/present(_:)``.
  case present(String)
  /// ``AppRouter/pop()``.
  case pop
  /// ``AppRouter/dismiss()``.
  case dismiss
}

/// One live module: built from a resolved URN, driven through its lifecycle,
/// sent view events, and torn down. It records what the module drew and the
/// navigation it asked for.
public final class ModuleInstance {
  /// What the module was built from.
  public let resolved: ResolvedModule
  /// The lifecycle events sent so far, in order.
  public private(set) var lifecycle: [LifecycleEvent] = []
  private var module: Module?
  private let canvas = RecordingCanvas()
  private let router = RecordingRouter()

  /// Builds the module. Nothing is drawn until ``present()``.
  public init(_ resolved: ResolvedModule) throws(ResolveError) {
    self.resolved = resolved
    let context = ModuleContext(
      urn: resolved.urn.text, arguments: resolved.arguments, router: router, canvas: canvas)
    do {
      module = try resolved.route.factory.build(context)
    } catch {
      let plugin = (resolved.route.pluginPath as NSString).lastPathComponent
      throw ResolveError(.buildFailed, "\(resolved.urn) (\(plugin)) could not be built: \(error)")
    }
  }

  /// The last tree the module drew, if any.
  public var tree: ViewNode? { canvas.tree }

  /// Navigation the module asked for, in order.
  public var navigationRequests: [NavigationRequest] { router.requests }

  /// Runs the first presentation cycle (attach, appear): the view reports
  /// ready, the presenter asks the interactor, and the view draws.
  public func present() throws(ResolveError) {
    send(.attach)
    send(.appear)
    guard canvas.tree != nil else {
      throw ResolveError(
        .drewNothing,
        "\(resolved.urn) drew nothing in its first presentation cycle; its view must call context.canvas.draw(_:) once the presenter has a view model"
      )
    }
  }

  /// Delivers a person's action to the view, if the current tree has the
  /// element it names.
  public func send(_ event: ViewEvent) throws(ViewEventError) {
    guard let module else { throw ViewEventError("\(resolved.urn) has been torn down") }
    try ViewTreeQuery(tree).check(event)
    module.view.handle(event)
  }

  /// Sends disappear and detach, lets go of the module, and returns any of its
  /// role objects still alive: a leak, usually a strong reference cycle.
  public func tearDown() -> [RoleReference] {
    guard let roles = module?.roles else { return [] }
    send(.disappear)
    send(.detach)
    module = nil
    return roles.filter(\.isAlive)
  }

  private func send(_ event: LifecycleEvent) {
    lifecycle.append(event)
    module?.view.lifecycle(event)
  }
}

private final class RecordingCanvas: Canvas {
  var tree: ViewNode?
  func draw(_ tree: ViewNode) { self.tree = tree }
}

private final class RecordingRouter: AppRouter {
  var requests: [NavigationRequest] = []
  func push(_ urn: String) { requests.append(.push(urn)) }
  func present(_ urn: String) { requests.append(.present(urn)) }
  func pop() { requests.append(.pop) }
  func dismiss() { requests.append(.dismiss) }
}
