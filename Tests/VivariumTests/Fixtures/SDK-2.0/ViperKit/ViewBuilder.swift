/// Builds a list of ``ViewNode`` elements from statements, `if`, `if let`,
/// `switch` and `for` included, for ``Canvas/draw(_:)-(()->[ViewNode])`` and
/// ``ViewNode/vertical(_:)`` / ``ViewNode/horizontal(_:)``.
@resultBuilder
public enum ViewBuilder {
  /// One element.
  public static func buildExpression(_ node: ViewNode) -> [ViewNode] { [node] }
  /// Several elements, in order.
  public static func buildExpression(_ nodes: [ViewNode]) -> [ViewNode] { nodes }
  /// The statements' elements, in order.
  public static func buildBlock(_ parts: [ViewNode]...) -> [ViewNode] { parts.flatMap { $0 } }
  /// An `if` without `else`: its elements, or none.
  public static func buildOptional(_ part: [ViewNode]?) -> [ViewNode] { part ?? [] }
  /// The first branch of an `if`/`else` or `switch`.
  public static func buildEither(first part: [ViewNode]) -> [ViewNode] { part }
  /// The second branch of an `if`/`else` or `switch`.
  public static func buildEither(second part: [ViewNode]) -> [ViewNode] { part }
  /// A `for` loop: every pass's elements, in order.
  public static func buildArray(_ parts: [[ViewNode]]) -> [ViewNode] { parts.flatMap { $0 } }
}

extension ViewNode {
  /// A vertical ``stack(_:_:)`` of what `content` builds.
  public static func vertical(@ViewBuilder _ content: () -> [ViewNode]) -> ViewNode {
    .stack(.vertical, content())
  }

  /// A horizontal ``stack(_:_:)`` of what `content` builds.
  public static func horizontal(@ViewBuilder _ content: () -> [ViewNode]) -> ViewNode {
    .stack(.horizontal, content())
  }
}
