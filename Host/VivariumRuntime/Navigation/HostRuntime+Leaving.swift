import ViperKit
import VivariumLoading

/// Modules that decide in code whether they may be left (``LeaveGuard``).
extension HostRuntime {
  /// Whether `screens` (top first) may be taken away: each module in them
  /// whose presenter guards leaving is asked, innermost first, the turn
  /// waiting for its answer. A module that stays has its reason said in a
  /// notice; one that asks the person has its question shown, and
  /// `again`, the same change, is made in a turn of its own once they
  /// confirm, without asking that module again (the others are, and may
  /// ask in turn). Both leave the screens where they are.
  func mayLeave(_ screens: [ModuleNode], again: @escaping @MainActor () async -> Void) async -> Bool {
    for node in screens.flatMap(\.insideOut) where !leaving.isConfirmed(node) {
      switch await leaveDecision(of: node) {
      case .leave: continue
      case .stay(let reason):
        notifications.notice(reason, tone: .warning)
        services.logLine(.info, module: node.urn, "stays: \(reason)", by: node.pluginName)
        return false
      case .ask(let question, let confirm, let cancel):
        let answered = leaving.confirming(node)
        notifications.ask(
          title: node.urn, question: question, .init(confirm: confirm, cancel: cancel)
        ) { [weak self] confirmed in
          guard confirmed, let self else { return }
          Task.immediate {
            await self.inTurn { await self.leaving.confirmed(answered, again) }
          }
        }
        return false
      @unknown default: continue
      }
    }
    return true
  }

  /// What `node` answers when asked whether it may be left.
  private func leaveDecision(of node: ModuleNode) async -> LeaveDecision {
    if let remote = node.remote {
      guard remote.guardsLeaving else { return .leave }
      suspendTurn()
      return await remote.mayLeave()
    }
    guard let guarding = node.module?.presenter as? any LeaveGuard else { return .leave }
    return await guarding.shouldLeave()
  }
}

/// In the turn that makes a change the person confirmed: the modules
/// whose question they answered, not asked again whether they may be left
/// (``HostRuntime/mayLeave(_:again:)``); the others still are.
@MainActor
final class LeaveConfirmations {
  private var modules: Set<ObjectIdentifier> = []

  /// Whether the person confirmed leaving `node` for the change under way.
  func isConfirmed(_ node: ModuleNode) -> Bool { modules.contains(ObjectIdentifier(node)) }

  /// The modules confirmed for the change under way, and `node`: what the
  /// person confirms by answering `node`'s question.
  func confirming(_ node: ModuleNode) -> Set<ObjectIdentifier> { modules.union([ObjectIdentifier(node)]) }

  /// Makes the change `again` with `confirmed` (from ``confirming(_:)``)
  /// not asked again; forgotten once it is made.
  func confirmed(_ confirmed: Set<ObjectIdentifier>, _ again: @MainActor () async -> Void) async {
    modules = confirmed
    defer { modules = [] }
    await again()
  }
}

extension ModuleNode {
  /// This module and every module embedded in it, the innermost first.
  var insideOut: [ModuleNode] { allChildren.reversed().flatMap(\.insideOut) + [self] }
}
