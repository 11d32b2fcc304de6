import ViperKit

extension ViewNode {
  /// Whether `node` is this node or drawn anywhere inside it.
  func contains(_ node: ViewNode) -> Bool {
    if self == node { return true }
    guard case .stack(_, let children) = self else { return false }
    return children.contains { $0.contains(node) }
  }

  /// Whether a node this one draws, itself or anywhere inside it, is one `matches` takes.
  func contains(where matches: (ViewNode) -> Bool) -> Bool {
    if matches(self) { return true }
    guard case .stack(_, let children) = self else { return false }
    return children.contains { $0.contains(where: matches) }
  }
}
