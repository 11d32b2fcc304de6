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

  /// A step down the trie: a literal segment, or any segment.
  private enum Step: Hashable, Sendable {
    case literal(String)
    case placeholder
  }

  /// A trie node: a value, copied on write like any other.
  private struct Node: Sendable {
    var children: [Step: Node] = [:]
    var entries: [Entry] = []

    mutating func insert(_ steps: ArraySlice<Step>, _ entry: Entry) {
      guard let first = steps.first else { return entries.append(entry) }
      children[first, default: Node()].insert(steps.dropFirst(), entry)
    }
  }

  private var root = Node()
  /// Every entry in registration order.
  public private(set) var entries: [Entry] = []

  /// An empty table.
  public init() {}

  /// Adds `pattern`. A pattern of the same shape as an existing one is kept
  /// beside it, and both are reported by ``conflicts``.
  public mutating func insert(_ pattern: URNPattern, _ value: Value) {
    let steps = pattern.segments.map { segment -> Step in
      switch segment {
      case .literal(let text): .literal(text)
      case .placeholder: .placeholder
      }
    }
    let entry = Entry(pattern: pattern, value: value)
    root.insert(steps[...], entry)
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
    if let literal = node.children[.literal(first)], let found = find(rest, in: literal) { return found }
    if let placeholder = node.children[.placeholder] { return find(rest, in: placeholder) }
    return nil
  }
}
