import ViperKit
import ViperKitHosting
import VivariumLoading
import VivariumRuntime

/// The app a plugin directory makes up, as its contracts declare it: which
/// module pushes, presents, replaces itself with or embeds which, where the
/// app starts, and what the start reaches. `vivarium check --app` proves it
/// and `vivarium graph` draws it; nothing is built.
package struct AppFlow: Sendable {
  /// One declared way from a module to others.
  package struct Edge: Sendable {
    /// How the module opens its target: a ``NavigationTarget/Kind`` or an embed.
    package enum Kind: String, Sendable, Codable {
      /// ``NavigationTarget/Kind/push``.
      case push
      /// ``NavigationTarget/Kind/present``.
      case present
      /// ``NavigationTarget/Kind/replace``.
      case replace
      /// A slot's ``SlotSpec/accepts``.
      case embed

      /// The kind of a declared target.
      init(_ kind: NavigationTarget.Kind) {
        switch kind {
        case .push: self = .push
        case .present: self = .present
        case .replace: self = .replace
        // The host is built with the SDK it reads contracts of, so knows every kind.
        @unknown default: self = .push
        }
      }

      /// `pushes`, `presents`, `replaces itself with`, `embeds`.
      package var verb: String {
        switch self {
        case .push: "pushes"
        case .present: "presents"
        case .replace: "replaces itself with"
        case .embed: "embeds"
        }
      }
    }
    /// The module that declares it.
    package let from: Route
    /// How.
    package let kind: Kind
    /// The declared pattern.
    package let pattern: String
    /// The slot, for an embed.
    package let slot: String?
    /// The declaration, for a push, present or replace.
    package let target: NavigationTarget?
    /// The modules the declared pattern leads to, as the router would send
    /// its URNs: exactly one when the declaration resolves.
    package let to: [Route]
  }

  /// Every module, in catalog order.
  package let routes: [Route]
  /// Every declaration, in the order of the modules and their contracts.
  package let edges: [Edge]
  /// The app manifest, if the directory has one the host can use.
  package let manifest: AppManifest?
  /// Why the directory's manifest cannot be used, if it cannot.
  package let manifestProblem: ManifestError?
  /// The plugin files the host refused, which may be why a target resolves
  /// to nothing.
  package let refused: [Rejection]
  /// The modules the manifest's start link opens, in order; empty without a
  /// manifest or when it does not resolve (``startProblem`` says why).
  package let start: [Route]
  /// Why the start link does not open, if it does not.
  package let startProblem: String?
  /// The modules reachable from the start along the edges.
  package let reachable: Set<ObjectIdentifier>
  /// Reachable modules of plugins built against a ViperKit before 2.4,
  /// whose contracts cannot say what they open: a module not reached may
  /// still be opened by one of them.
  package let undeclared: [Route]
  /// The business services of the plugins, resolved, the manifest choosing
  /// among several providers of one.
  package let services: ServiceGraph
  /// Each loaded plugin's file, by plugin name.
  package let pluginFiles: [String: String]
  /// The topics of events each loaded plugin publishes and subscribes to, by plugin name.
  package let topics: [String: PluginTopics]

  /// The flow of `catalog`, starting where `manifest` says; `manifestProblem`
  /// says why the directory's manifest could not be read, if it could not.
  package init(catalog: PluginCatalog, manifest: AppManifest?, manifestProblem: ManifestError? = nil) {
    let routes = catalog.routes
    self.routes = routes
    self.manifest = manifest
    self.manifestProblem = manifestProblem
    refused = catalog.rejected.filter { !$0.isSDKLibrary }
    var edges: [Edge] = []
    for route in routes {
      let contract = route.contract
      for target in contract.opens {
        edges.append(
          Edge(
            from: route, kind: Edge.Kind(target.kind), pattern: target.urn, slot: nil,
            target: target, to: Self.modules(overlapping: target.urn, in: routes)))
      }
      for slot in contract.slots {
        for accepted in slot.accepts {
          edges.append(
            Edge(
              from: route, kind: .embed, pattern: accepted, slot: slot.name, target: nil,
              to: Self.modules(overlapping: accepted, in: routes)))
        }
      }
    }
    self.edges = edges
    var start: [Route] = []
    var startProblem: String?
    if let manifest {
      do {
        // As `vivarium run` opens it: a `scheme://` in front must be the app's.
        for segment in try DeepLink.segments(of: manifest.start, scheme: manifest.scheme) {
          start.append(try catalog.resolve(segment).route)
        }
      } catch {
        start = []
        startProblem = error.message
      }
    }
    self.start = start
    self.startProblem = startProblem
    var reachable = Set(start.map(ObjectIdentifier.init))
    var queue = start
    let outgoing = Dictionary(grouping: edges) { ObjectIdentifier($0.from) }
    while let next = queue.popLast() {
      // An ambiguous declaration is a finding of its own; what it may open
      // counts as reached, so that it is not reported twice.
      for edge in outgoing[ObjectIdentifier(next)] ?? [] {
        for target in edge.to where reachable.insert(ObjectIdentifier(target)).inserted { queue.append(target) }
      }
    }
    self.reachable = reachable
    undeclared = routes.filter { reachable.contains(ObjectIdentifier($0)) && !$0.declaresNavigation }
    services = catalog.services(chosen: manifest?.providers ?? [:])
    pluginFiles = Dictionary(catalog.loaded.map { ($0.name, $0.path) }, uniquingKeysWith: { first, _ in first })
    topics = Dictionary(catalog.loaded.map { ($0.name, $0.topics) }, uniquingKeysWith: { first, _ in first })
  }

  /// The modules no way from the start reaches.
  package var unreachable: [Route] { routes.filter { !reachable.contains(ObjectIdentifier($0)) } }

  /// How a module the start does not lead to is reached, as `vivarium
  /// check --app` names its finding (`app.` and this) and `vivarium graph`
  /// labels it.
  package enum Reach: String, Sendable {
    /// Only by a deep link: the app has a scheme.
    case deepLinkOnly = "deep-link-only"
    /// Not at all: the app has no scheme.
    case unreachable
    /// Unknown: a module reached declares nothing it opens, and may open it.
    case unproven = "reach-unproven"
  }

  /// How `route` is reached when nothing from the start leads to it; nil
  /// when something does.
  package func reach(of route: Route) -> Reach? {
    guard !reachable.contains(ObjectIdentifier(route)) else { return nil }
    if !undeclared.isEmpty { return .unproven }
    return manifest?.scheme != nil ? .deepLinkOnly : .unreachable
  }

  /// Whether ``unreachable`` is proven: the start opens, and every module it
  /// reaches declares what it opens.
  package var knowsReach: Bool { manifest != nil && startProblem == nil && undeclared.isEmpty }

  /// The modules the router sends URNs of `pattern` to: of those whose
  /// patterns match some URN it matches (a literal segment meets the same
  /// literal or a placeholder), the ones of its own shape where there are.
  /// None if `pattern` is no pattern.
  static func modules(overlapping pattern: String, in routes: [Route]) -> [Route] {
    guard let parsed = try? URNPattern(parsing: pattern) else { return [] }
    let overlapping = routes.filter { route in
      route.pattern.segments.count == parsed.segments.count
        && zip(route.pattern.shape, parsed.shape).allSatisfy { $0 == nil || $1 == nil || $0 == $1 }
    }
    // As the router sends them: `items:detail:new` to the module of that
    // literal, `items:detail:{id}` to the one taking any id.
    return URNPattern.preferred(overlapping, for: parsed.shape, pattern: \.pattern)
  }
}
