/// Says that the screen changed once for a burst of changes: the draws a
/// module's work makes before its next `await` are drawn once, at the next
/// turn of the main actor, not once each.
@MainActor
final class ScreenChangeSignal {
  /// Whether a signal is due.
  private var due = false

  /// Calls `signal` at the next turn of the main actor, unless a call is
  /// already due: that one stands for this change too.
  func soon(_ signal: @escaping @MainActor () -> Void) {
    guard !due else { return }
    due = true
    Task { @MainActor [weak self] in
      self?.due = false
      signal()
    }
  }
}

/// Modules attached before they drew, watched until they draw or their
/// work ends having drawn nothing: checked when a piece of work ends,
/// which costs as much as they are many, not as the stack is deep.
@MainActor
final class UndrawnModules {
  private var nodes: [Int: ModuleNode] = [:]

  /// Watches `node`, attached without having drawn.
  func watch(_ node: ModuleNode) {
    nodes[node.id] = node
  }

  /// The watched modules whose work has ended with nothing drawn, in build
  /// order, no longer watched and marked ``ModuleNode/reportedBlank``;
  /// those that drew or were detached are no longer watched either.
  func blank() -> [ModuleNode] {
    var blank: [ModuleNode] = []
    for node in nodes.values.sorted(by: { $0.id < $1.id }) {
      guard node.tree == nil, !node.isDetached else {
        nodes[node.id] = nil
        continue
      }
      guard node.work?.isBusy != true else { continue }
      nodes[node.id] = nil
      node.reportedBlank = true
      blank.append(node)
    }
    return blank
  }
}
