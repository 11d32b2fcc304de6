import ViperKit
import ViperKitHosting
import VivariumLoading

/// When a plugin process fails: telling the owner, restarting the plugin and
/// rebuilding its modules where they were, and leaks found after a detach.
extension HostRuntime {
  /// The name of the message a parent receives when a child embedded in
  /// one of its slots stopped working (its plugin process ended), with the
  /// field `reason`. A parent that does not expect it ignores it.
  package static let childFailedMessage = "childFailed"

  /// `node`'s plugin process ended: the problem is reported, and a parent
  /// is told its child failed.
  func moduleFailed(_ node: ModuleNode, _ failure: String) {
    report(node, failure)
    guard let parent = node.parent, let receiver = parent.module?.receiver else { return }
    touch(parent)
    hostCall {
      receiver.receive(
        Message(Self.childFailedMessage, ["reason": .string(failure)]),
        from: .child(slot: node.slotName ?? "", urn: node.urn))
    }
    drain()
  }

  /// Starts `node`'s plugin again and rebuilds, in their places, the
  /// modules its ended process hosted: in this session now, and in every
  /// other session of the host in a turn of its own.
  func restartPlugin(of node: ModuleNode) async {
    guard let process = node.remote?.process else { return }
    if case .ended = process.state, let rejection = await process.restart() {
      return report(node, "\(process.fileName) could not be restarted: \(rejection.reasons.joined(separator: "; "))")
    }
    for other in host.sessions where other !== self {
      Task.immediate { await other.inTurn { await other.rebuildFailedModules(of: process) } }
    }
    await rebuildFailedModules(of: process)
  }

  /// Rebuilds in place the modules of this session whose process,
  /// `process`, ended under them.
  func rebuildFailedModules(of process: PluginSupervisor) async {
    let failed = nodes.filter { $0.remote?.process === process && $0.remote?.failure != nil }
    let outermost = failed.filter { node in
      !failed.contains { other in other !== node && node.isInside(other) }
    }
    for node in outermost { await rebuild(node) }
  }

  /// Builds `old`'s URN again and puts the new module where `old` was,
  /// with `old`'s restoration state, its children's and its shown tabs;
  /// false, with the problem reported and `old` left, when it could not.
  @discardableResult
  func rebuild(_ old: ModuleNode) async -> Bool {
    let saved = savedScreen(old)
    let new: ModuleNode
    do {
      new = try await build(old.openedWith.urn, arguments: old.openedWith.arguments, restoring: saved.state)
    } catch {
      report(old, "could not be rebuilt: \(error.message)", cause: error.kind)
      return false
    }
    restoring.restore(new, from: saved)
    new.rebuiltFrom = ObjectIdentifier(old)
    let wasAppeared = old.isAppeared
    if let parent = old.parent, let slot = old.slotName, let index = parent.slotIndex(slot),
      let position = parent.slots[index].children.firstIndex(where: { $0 === old })
    {
      new.parent = parent
      new.slotName = slot
      await attach(new)
      disappear(old)
      parent.slots[index].children[position] = new
    } else if let layer = layerIndex(of: old), let position = layers[layer].firstIndex(where: { $0 === old }) {
      new.opener = old.opener
      new.answeredOpener = old.answeredOpener
      await attach(new)
      disappear(old)
      navigation.replace(at: position, ofLayer: layer, with: new)
    } else {
      detach(new)
      return false
    }
    // Screens opened by `old` or one of its children are opened by the same place in `new`.
    let opened = layers.joined().compactMap { node in node.opener.flatMap { old.path(to: $0) }.map { (node, $0) } }
    if wasAppeared { appear(new) }
    detach(old)
    afterRequests { [self] in
      for (node, path) in opened { node.opener = new.node(at: path) ?? new }
      for lost in selectTabs(saved, in: new) + new.takeRestoreFailures() { report(new, lost) }
    }
    return true
  }

  /// Watches a module detached in this process: once its work has ended
  /// (on the next turn at the earliest, when no call holds it), any role
  /// still alive is a leak.
  func watchForLeaks(_ node: ModuleNode) {
    leakWatch.watch(node)
    work.perform { [weak self] in self?.checkLeaks() }
  }

  /// Reports the watched modules whose work has ended and whose roles outlived them.
  func checkLeaks() {
    for (label, roles) in leakWatch.check() { reportLeak(label, roles: roles) }
  }

  /// Waits (up to `limit` of real time) until every detached module has been
  /// checked for leaks, here and in plugin processes.
  package func awaitLeakChecks(limit: Duration = .seconds(5)) async {
    let deadline = ContinuousClock.now + limit
    let processes = catalog.loaded.compactMap(\.runningProcess)
    while ContinuousClock.now < deadline,
      leakWatch.isWatching || processes.contains(where: \.isReleasing)
    {
      checkLeaks()
      try? await Task.sleep(nanoseconds: 2_000_000)
    }
  }

  /// Role objects of a module outlived its detach.
  func reportLeak(_ module: String, roles: [String]) {
    leakWatch.found(module, roles: roles)
    let message =
      "left \(roles.joined(separator: ", ")) alive after detach: a reference cycle between its roles; make back references weak"
    record(HostProblem(module: module, message: message))
    services.logLine(.warning, module: module, message)
    onScreenChanged()
  }
}

/// Modules detached in this process, watched until their work has ended:
/// then any of their roles still alive is a leak, and kept in ``leaks``.
@MainActor
final class LeakWatch {
  private var watched: [(label: String, roles: [RoleReference], work: WorkScope?)] = []
  /// Every leak found: the module and its roles still alive.
  private(set) var leaks: [(module: String, roles: [String])] = []

  /// Whether a module is watched still.
  var isWatching: Bool { !watched.isEmpty }

  /// Watches `node`, just detached.
  func watch(_ node: ModuleNode) {
    watched.append((node.label, node.roles, node.work))
  }

  /// The watched modules whose work has ended and whose roles outlived
  /// them, with those roles (`role Type`); every module whose work has
  /// ended is no longer watched.
  func check() -> [(label: String, roles: [String])] {
    let done = watched.filter { $0.work?.isBusy != true }
    watched.removeAll { $0.work?.isBusy != true }
    return done.compactMap { watched in
      let alive = watched.roles.filter(\.isAlive).map { "\($0.role.rawValue) \($0.typeName)" }
      return alive.isEmpty ? nil : (watched.label, alive)
    }
  }

  /// Keeps a leak found: `module`'s `roles` outlived its detach.
  func found(_ module: String, roles: [String]) {
    leaks.append((module, roles))
  }
}

extension ModuleNode {
  /// The host's side of the module when it runs in a plugin process.
  var remote: RemoteModule? { (module?.view as? RemoteView)?.module }

  /// Whether `ancestor` embeds this module, directly or further up.
  func isInside(_ ancestor: ModuleNode) -> Bool {
    var parent = self.parent
    while let next = parent {
      if next === ancestor { return true }
      parent = next.parent
    }
    return false
  }
}
