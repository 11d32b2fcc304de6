import ViperKitHosting

/// URN patterns arranged as a trie of segments, so that resolving a URN costs
/// one dictionary step per segment whatever the number of patterns.
///
/// At each segment a literal child is tried before the placeholder child, so
/// `items:detail:new` wins over `items:detail:{itemID}` for `items:detail:new`.
/// Patterns of the same shape (`a:{x}` and `a:{y}`) match exactly the same
/// URNs: they share one leaf, and ``resolve(_:)`` reports them as a conflict
/// instead of choosing.
public struct RouteTable<Value: Sendable>: Sendable {
  /// One registered pattern and what it leads to.
  public struct Entry: Sendable {
    /// The pattern as registered.
    public let pattern: URNPattern
    /// The value registered with it.
    public let value: Value
  }

  /// The outcome of resolving a URN.
  public enum Resolution: Sendable {
    /// Exactly one pattern matched; `bindings` maps placeholders to segments.
    case matched(Entry, bindings: [String: String])
    /// Several patterns of the same shape claim the URN.
    case conflict([Entry])
    /// No pattern matches.
    case notFound
  }

  private final class Node: @unchecked Sendable {
    var literals: [String: Node] = [:]
    var placeholder: Node?
    var entries: [Entry] = []
  }

  private var root = Node()
  /// Every entry in registration order.
  public private(set) var entries: [Entry] = []

  /// An empty table.
  public init() {}

  /// Adds `pattern`. A pattern of the same shape as an existing one is kept
  /// beside it, and both are reported by ``conflicts``.
  public mutating func insert(_ pattern: URNPattern, _ value: Value) {
    if !isKnownUniquelyReferenced(&root) { root = copy(root) }
    var node = root
    for segment in pattern.segments {
      switch segment {
      case .literal(let text):
        if let next = node.literals[text] {
          node = next
        } else {
          let next = Node()
          node.literals[text] = next
          node = next
        }
      case .placeholder:
        if let next = node.placeholder {
          node = next
        } else {
          let next = Node()
          node.placeholder = next
          node = next
        }
      }
    }
    let entry = Entry(pattern: pattern, value: value)
    node.entries.append(entry)
    entries.append(entry)
  }

  /// Groups of two or more entries whose patterns match the same URNs.
  public var conflicts: [[Entry]] {
    var groups: [[String?]: [Entry]] = [:]
    var order: [[String?]] = []
    for entry in entries {
      let shape = entry.pattern.shape
      if groups[shape] == nil { order.append(shape) }
      groups[shape, default: []].append(entry)
    }
    return order.compactMap { groups[$0]!.count > 1 ? groups[$0] : nil }
  }

  /// Finds the pattern for `urn`, literals first.
  public func resolve(_ urn: ParsedURN) -> Resolution {
    guard let leaf = RouteTable.find(urn.segments[...], in: root) else { return .notFound }
    if leaf.entries.count > 1 { return .conflict(leaf.entries) }
    let entry = leaf.entries[0]
    return .matched(entry, bindings: entry.pattern.match(urn) ?? [:])
  }

  private static func find(_ segments: ArraySlice<String>, in node: Node) -> Node? {
    guard let first = segments.first else { return node.entries.isEmpty ? nil : node }
    let rest = segments.dropFirst()
    if let literal = node.literals[first], let found = find(rest, in: literal) { return found }
    if let placeholder = node.placeholder { return find(rest, in: placeholder) }
    return nil
  }

  private func copy(_ node: Node) -> Node {
    let clone = Node()
    clone.literals = node.literals.mapValues(copy)
    clone.placeholder = node.placeholder.map(copy)
    clone.entries = node.entries
    return clone
  }
}
