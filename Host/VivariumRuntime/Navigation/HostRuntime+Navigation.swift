import ViperKit
import ViperKitHosting

/// Navigation: the person's own moves and the requests modules make.
extension HostRuntime {
  /// Why the person's navigation command could not be done.
  package struct NavigationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong and what to do instead.
    package let message: String
    /// The message.
    package var description: String { message }
  }

  /// Opens `link` for the person. A deep link (`a:b/c:d`, or with the app's
  /// `scheme://`) replaces everything shown; a single URN becomes the first
  /// screen, or is pushed on top of the current one. On failure nothing
  /// changes.
  ///
  /// When a route guard refuses a module of the link, its `otherwise` URN
  /// replaces everything shown instead, a notice says why, and the link is
  /// opened as soon as the guard's setting is set (``resumeGuardedLink()``).
  ///
  /// It runs in its turn, after the changes asked before it; it returns
  /// when the screen it opens is shown (or the reason it is not).
  package func open(_ link: String, arguments: [(name: String, value: String)] = [], scheme: String? = nil)
    async throws(ResolveError)
  {
    try await inTurn { () async throws(ResolveError) in
      try await openInTurn(link, arguments: arguments, scheme: scheme)
    }
  }

  /// ``open(_:arguments:scheme:)``, in the turn under way.
  private func openInTurn(_ link: String, arguments: [(name: String, value: String)], scheme: String?)
    async throws(ResolveError)
  {
    // Opened again, without asking, once the person confirms leaving.
    let again: @MainActor () async -> Void = { [weak self] in
      try? await self?.openInTurn(link, arguments: arguments, scheme: scheme)
    }
    do {
      let segments = try DeepLink.segments(of: link, scheme: scheme)
      if segments.count > 1 || layers.isEmpty {
        guard await mayLeaveEverythingShown(again: again) else { return }
        try await openDeepLink(segments, arguments: arguments)
        return
      }
      let node = try await buildAttached(segments[0], arguments: arguments)
      guard !layers.isEmpty else { return detach(node) }
      show(node, onLayer: layers.count - 1)
    } catch {
      // A guard's fallback replaces what is shown, as a deep link does.
      if let redirect = error.redirect {
        guard await mayLeaveEverythingShown(again: again) else { return }
        try await openDeepLink([redirect.urn], arguments: [])
        notifications.notice(redirect.reason, tone: .info)
        services.logLine(.info, module: "host", "\(error.message); opened \(redirect.urn) instead")
        return
      }
      guard let refusing = error.refusedBy else { throw error }
      guard await mayLeaveEverythingShown(again: again) else { return }
      try await openDeepLink([refusing.otherwise], arguments: [])
      guardedLink.wait(GuardedLink(link: link, arguments: arguments, scheme: scheme, refusedBy: refusing))
      // Opened as soon as the guard's setting is set, whoever sets it.
      services.observeSettings(by: guardedLink) { [weak self] key, _ in
        guard let self, key == refusing.setting, guardedLink.isWaiting else { return }
        requestQueued()
      }
      notifications.notice("\(refusing.reason) '\(link)' opens afterwards.", tone: .info)
      services.logLine(.info, module: "host", "\(error.message); opened \(refusing.otherwise) instead")
    }
  }

  /// Whether everything shown may go (``mayLeave(_:again:)``), top first.
  private func mayLeaveEverythingShown(again: @escaping @MainActor () async -> Void) async -> Bool {
    await mayLeave(layers.reversed().flatMap { $0.reversed() }, again: again)
  }

  /// A link a route guard refused, opened once its setting is set.
  struct GuardedLink {
    let link: String
    let arguments: [(name: String, value: String)]
    let scheme: String?
    let refusedBy: RouteGuard
  }

  /// The link a route guard refused last, waiting for the guard's setting
  /// (``resumeGuardedLink()``).
  @MainActor
  final class GuardedLinkWait {
    private var link: GuardedLink?

    /// Whether a link waits.
    var isWaiting: Bool { link != nil }

    /// Has `link` wait, in place of any that waited.
    func wait(_ link: GuardedLink) { self.link = link }

    /// The link waiting, no longer waiting, once `holds` says its guard
    /// holds; nil while it does not, or when none waits.
    func take(if holds: (RouteGuard) -> Bool) -> GuardedLink? {
      guard let link, holds(link.refusedBy) else { return nil }
      self.link = nil
      return link
    }
  }

  /// Opens the link a guard refused, once the guard's setting is set
  /// (after signing in); a failure then is reported.
  func resumeGuardedLink() async {
    guard let pending = guardedLink.take(if: { RouteGuard.holds(services.setting($0.setting)) }) else { return }
    do {
      try await openInTurn(pending.link, arguments: pending.arguments, scheme: pending.scheme)
    } catch {
      record(
        HostProblem(
          module: "host", message: "could not open '\(pending.link)' after all: \(error.message)", cause: error.kind))
    }
  }

  /// Goes back: pops the top screen, or closes the top modal presentation;
  /// in its turn, after the changes asked before it.
  package func back() async throws(NavigationError) {
    try await inTurn { () async throws(NavigationError) in try await backInTurn() }
  }

  private func backInTurn() async throws(NavigationError) {
    guard let layer = layers.last, let shown = layer.last else {
      throw NavigationError(message: "nothing is shown; open a URN first")
    }
    // Asked again once the person confirms, if it is still what is shown.
    let again: @MainActor () async -> Void = { [weak self] in
      guard let self, self.top === shown else { return }
      try? await self.backInTurn()
    }
    if layer.count > 1 {
      guard await mayLeave([shown], again: again) else { return }
      removeTop(ofLayer: layers.count - 1)
    } else if layers.count > 1 {
      guard await mayLeave(layer.reversed(), again: again) else { return }
      closeLayers(from: layers.count - 1)
    } else {
      throw NavigationError(message: "this is the first screen; there is nothing to go back to")
    }
  }

  /// Closes the modal on top, else pops the top screen (a person's Esc),
  /// decided in its turn, on what is shown then: an Esc pressed while an
  /// earlier change is under way acts on its outcome. False when only the
  /// first screen is shown, so there is nothing to go back to.
  package func backOrDismiss() async throws(NavigationError) -> Bool {
    try await inTurn { () async throws(NavigationError) -> Bool in
      if layers.count > 1 {
        try await dismissModalInTurn()
      } else if (layers.first?.count ?? 0) > 1 {
        try await backInTurn()
      } else {
        return false
      }
      return true
    }
  }

  /// Closes the top modal presentation; in its turn, after the changes
  /// asked before it.
  package func dismissModal() async throws(NavigationError) {
    try await inTurn { () async throws(NavigationError) in try await dismissModalInTurn() }
  }

  private func dismissModalInTurn() async throws(NavigationError) {
    guard layers.count > 1, let modal = layers.last else {
      throw NavigationError(message: "nothing is presented modally; use 'back' to leave a pushed screen")
    }
    let again: @MainActor () async -> Void = { [weak self] in
      guard let self, self.layers.last?.first === modal.first else { return }
      try? await self.dismissModalInTurn()
    }
    guard await mayLeave(modal.reversed(), again: again) else { return }
    closeLayers(from: layers.count - 1)
  }

  /// The layer holding `node`'s screen, searched from the top, where the
  /// modules that make requests almost always are.
  func layerIndex(of node: ModuleNode) -> Int? {
    let root = node.root
    return layers.lastIndex { layer in layer.reversed().contains { $0 === root } }
  }

  /// Puts an attached `node` on top of layer `index`, covering what was there.
  private func show(_ node: ModuleNode, onLayer index: Int) {
    let isTopLayer = index == layers.count - 1
    if isTopLayer, let covered = layers[index].last { disappear(covered) }
    navigation.push(node, onLayer: index)
    if isTopLayer { appear(node) }
  }

  func removeTop(ofLayer index: Int) {
    let removed = navigation.pop(layer: index)
    disappear(removed)
    if index == layers.count - 1, let uncovered = layers[index].last { appear(uncovered) }
    detach(removed)
  }

  func closeLayers(from index: Int) {
    let closed = layers[index...].reversed().flatMap { $0.reversed() }
    let modals = layers[index...].reversed().compactMap(\.first)
    navigation.close(from: index)
    for node in closed { disappear(node) }
    if let uncovered = top { appear(uncovered) }
    for node in closed { detach(node) }
    for modal in modals { tellDismissed(modal) }
  }

  func push(_ urn: String, from node: ModuleNode) async {
    guard let index = layerIndex(of: node) else {
      return report(node, "cannot push '\(urn)': the module is not on a navigation stack yet")
    }
    guard let pushed = await buildChecked(urn, for: node, verb: "push") else { return }
    pushed.opener = node
    show(pushed, onLayer: index)
  }

  func present(_ urn: String, from node: ModuleNode) async {
    guard let presented = await buildChecked(urn, for: node, verb: "present") else { return }
    presented.opener = node
    if let covered = top { disappear(covered) }
    navigation.present(presented)
    appear(presented)
  }

  func replace(with urn: String, from node: ModuleNode) async {
    guard let index = layerIndex(of: node), let position = layers[index].lastIndex(where: { $0 === node.root }) else {
      return report(node, "cannot replace with '\(urn)': the module is not on a navigation stack")
    }
    guard let replacement = await buildChecked(urn, for: node, verb: "replace with") else { return }
    let old = layers[index][position]
    replacement.opener = old.opener
    replacement.answeredOpener = old.answeredOpener
    disappear(old)
    navigation.replace(at: position, ofLayer: index, with: replacement)
    if index == layers.count - 1, position == layers[index].count - 1 { appear(replacement) }
    detach(old)
  }

  func pop(from node: ModuleNode) async {
    guard let index = layerIndex(of: node) else { return report(node, "cannot pop: it is not on a navigation stack") }
    let again = performedAgain(.pop, from: node)
    if layers[index].count > 1 {
      guard await mayLeave(leaving([layers[index].last!], from: node), again: again) else { return }
      removeTop(ofLayer: index)
    } else if index > 0 {
      guard await mayLeave(leaving(layers[index...].reversed().flatMap { $0.reversed() }, from: node), again: again)
      else { return }
      closeLayers(from: index)
    } else {
      report(node, "cannot pop the first screen; offer another way out, such as replace(_:)")
    }
  }

  func popToRoot(from node: ModuleNode) async {
    guard let index = layerIndex(of: node) else { return report(node, "cannot pop: it is not on a navigation stack") }
    let again = performedAgain(.popToRoot, from: node)
    guard await mayLeave(leaving(layers[index].dropFirst().reversed(), from: node), again: again) else { return }
    while layers[index].count > 1 { removeTop(ofLayer: index) }
  }

  func dismiss(from node: ModuleNode) async {
    guard let index = layerIndex(of: node), index > 0 else {
      return report(node, "cannot dismiss: it is not presented modally; use pop()")
    }
    let again = performedAgain(.dismiss, from: node)
    guard await mayLeave(leaving(layers[index...].reversed().flatMap { $0.reversed() }, from: node), again: again)
    else { return }
    closeLayers(from: index)
  }

  /// `request` of `node` carried out again, once the person confirms
  /// leaving, if `node` is still there.
  private func performedAgain(_ request: HostRequest, from node: ModuleNode) -> @MainActor () async -> Void {
    { [weak self] in
      guard let self, !node.isDetached else { return }
      await self.perform(request, from: node)
    }
  }

  /// The screens of `screens` a request of `node` takes away that are not
  /// `node`'s own: a module that removes itself is not asked.
  private func leaving(_ screens: [ModuleNode], from node: ModuleNode) -> [ModuleNode] {
    screens.filter { $0 !== node.root }
  }

  /// Builds and attaches `urn` for a request of `node`, reporting a failure.
  func buildChecked(_ urn: String, for node: ModuleNode, verb: String) async -> ModuleNode? {
    do {
      return try await buildAttached(urn)
    } catch {
      report(node, "cannot \(verb) '\(urn)': \(error.message)", cause: error.kind)
      return nil
    }
  }
}
