import Foundation
import ViperKitHosting

/// The trie behind ``RouteTable``: the patterns' segments as nodes, each
/// pattern known by its number. It is not generic, so the walk is the same
/// compiled code whatever the table holds.
///
/// It is laid out for a lookup to touch little memory, since with many
/// patterns each new place it touches is a cache miss. Every node lives in
/// one array and names the others by number: a lookup follows numbers and
/// copies nothing, and the nodes of a namespace, added together, lie together.
/// A node keeps its literal children as a chain of siblings, compared in turn;
/// past ``comparedInTurn`` of them (the namespaces, at the root) it finds them
/// through a ``ChildIndex`` of node numbers instead.
///
/// Literals are compared as bytes: each is kept in ``literalBytes`` in its
/// canonical composition (NFC), and a segment looked up is composed the same
/// way, so that two segments match exactly when they are equal as Strings
/// (canonically equivalent). A plain segment is ASCII, its own composition:
/// it is looked up from the URN's text as it is, nothing made.
@usableFromInline
struct RouteTrie: Sendable {
  /// A node, reached from its parent by ``segment`` or by the placeholder.
  /// Links are node numbers, -1 for none, 32 bits to keep a node small.
  private struct Node: Sendable {
    /// Where in ``RouteTrie/literalBytes`` the literal segment leading here
    /// is; empty for the root and for the child a placeholder leads to.
    var literalStart: Int32 = 0
    var literalCount: Int32 = 0
    /// The first literal child, while they are chained.
    var firstChild: Int32 = -1
    /// The parent's next literal child, while they are chained.
    var nextSibling: Int32 = -1
    /// The child any segment leads to.
    var placeholder: Int32 = -1
    /// Where in ``RouteTrie/indexes`` the literal children are, once indexed.
    var childIndex: Int32 = -1
    /// The first pattern ending here.
    var pattern: Int32 = -1
    /// Whether other patterns of the same shape end here too
    /// (``RouteTable/Entry`` chains them).
    var shared = false
  }

  /// The literal children of a node with many: node numbers in open
  /// addressing by their segment's hash, four bytes a slot, so that finding
  /// one costs a slot and the node it names, which the walk reads anyway.
  private struct ChildIndex: Sendable {
    /// A power of two of slots, at most half of them full; -1 is empty.
    var slots: [Int32] = Array(repeating: -1, count: 16)
    var count = 0

    /// The first slot to look at for `segment` (seeded per process, as
    /// `Hasher` is, so that no plugin can choose namespaces that collide).
    func start(_ segment: Span<UInt8>) -> Int {
      var hasher = Hasher()
      segment.withUnsafeBytes { hasher.combine(bytes: $0) }
      return hasher.finalize() & (slots.count - 1)
    }
  }

  /// How many literal children a node compares in turn before it indexes them.
  static let comparedInTurn = 8

  /// The root is the first node.
  private var nodes = [Node()]
  /// The literal segments' bytes, composed (NFC), one after the other.
  private var literalBytes: [UInt8] = []
  private var indexes: [ChildIndex] = []
  // Three arrays and no more: a RouteTable (the trie and its entries) then
  // fits in four registers, and is passed in them, so that routing does not
  // retain and release the trie's arrays to call into it.

  /// Adds the pattern numbered `pattern`; the first pattern of the same
  /// shape already there, if any.
  mutating func insert(_ segments: [URNPattern.Segment], as pattern: Int) -> Int? {
    var node = 0
    for segment in segments {
      switch segment {
      case .literal(let text):
        let bytes = RouteTrie.composed(text)
        node = literalChild(of: node, bytes.span) ?? addLiteral(bytes, to: node)
      case .placeholder:
        if nodes[node].placeholder < 0 {
          nodes[node].placeholder = Int32(nodes.count)
          nodes.append(Node())
        }
        node = Int(nodes[node].placeholder)
      }
    }
    guard nodes[node].pattern >= 0 else {
      nodes[node].pattern = Int32(pattern)
      return nil
    }
    nodes[node].shared = true
    return Int(nodes[node].pattern)
  }

  /// The first pattern matching `segments`, a literal child tried before
  /// the placeholder at each segment, and whether others of its shape match.
  @usableFromInline
  func find(_ segments: [String]) -> (pattern: Int, shared: Bool)? {
    find(DecodedSegments(segments: segments), from: 0, in: 0).map { (Int(nodes[$0].pattern), nodes[$0].shared) }
  }

  /// The first pattern matching the URN `text`, read from its bytes when
  /// its path is plain, else from its segments parsed; and the length in
  /// bytes of its path if it is plain (``ParsedURN/plainPathLength(of:)``),
  /// else -1. Throws the ``URNError`` parsing gives for text that is no URN.
  @usableFromInline
  func find(text: String) throws(URNError) -> (found: (pattern: Int, shared: Bool)?, plainPathLength: Int) {
    // Native strings are contiguous; any other is parsed.
    let plain = text.utf8.withContiguousStorageIfAvailable { bytes in
      ParsedURN.plainPathLength(of: text).map { ($0, find(PlainPath(bytes: bytes, count: $0), from: 0, in: 0)) }
    }
    if let (length, leaf) = plain ?? nil {
      return (leaf.map { (Int(nodes[$0].pattern), nodes[$0].shared) }, length)
    }
    let urn = try ParsedURN(parsing: text)
    return (find(urn.segments), -1)
  }

  /// The segments of a URN, walked one after the other from a cursor.
  private protocol Path {
    /// The literal child of `node` in `trie` for the segment at `cursor`,
    /// if any, and the cursor of the next segment; nil past the last one.
    func step(from cursor: Int, at node: Int, in trie: RouteTrie) -> (literal: Int?, next: Int)?
  }

  /// A plain path read from the URN's bytes: its segments are ASCII, their
  /// own composition; the cursor is a byte offset.
  private struct PlainPath: Path {
    let bytes: UnsafeBufferPointer<UInt8>
    let count: Int

    func step(from cursor: Int, at node: Int, in trie: RouteTrie) -> (literal: Int?, next: Int)? {
      guard cursor <= count else { return nil }
      var stop = cursor
      while stop < count, bytes[stop] != UInt8(ascii: ":") { stop += 1 }
      return (trie.literalChild(of: node, bytes.span.extracting(cursor..<stop)), stop + 1)
    }
  }

  /// Decoded segments; the cursor is their number.
  private struct DecodedSegments: Path {
    let segments: [String]

    func step(from cursor: Int, at node: Int, in trie: RouteTrie) -> (literal: Int?, next: Int)? {
      guard cursor < segments.count else { return nil }
      guard segments[cursor].utf8Span.isKnownASCII else {
        let composed = RouteTrie.composed(segments[cursor])
        return (trie.literalChild(of: node, composed.span), cursor + 1)
      }
      return (trie.literalChild(of: node, segments[cursor].utf8.span), cursor + 1)
    }
  }

  /// The UTF-8 of `segment`'s canonical composition (NFC); ASCII as it is.
  private static func composed(_ segment: String) -> [UInt8] {
    segment.utf8.allSatisfy { $0 < 0x80 }
      ? Array(segment.utf8) : Array(segment.precomposedStringWithCanonicalMapping.utf8)
  }

  /// Where in ``literalBytes`` the literal segment leading to `node` is.
  private func literal(_ node: Int) -> Range<Int> {
    let start = Int(nodes[node].literalStart)
    return start..<(start + Int(nodes[node].literalCount))
  }

  /// The literal segment leading to `node`, as text.
  private func literalText(_ node: Int) -> String { String(decoding: literalBytes[literal(node)], as: UTF8.self) }

  /// Pairs of patterns that cross: some URN matches both, yet each has a
  /// literal segment where the other has a placeholder, so neither matches
  /// every URN the other does (`items:{kind}:7` and `items:detail:{itemID}`).
  /// Each pair once, with a URN both match: their literals, and
  /// ``Crossing/anySegment`` where both have a placeholder.
  func crossings() -> [Crossing] {
    var found: [Crossing] = []
    var path: [String] = []
    cross(0, 0, firstHasLiteral: false, secondHasLiteral: false, path: &path, into: &found)
    return found
  }

  /// Two patterns that cross, by number, and a URN's segments both match.
  struct Crossing {
    /// The segment an example URN holds where both patterns have a placeholder.
    static let anySegment = "1"
    let first: Int
    let second: Int
    let example: [String]
  }

  /// Walks the pairs of nodes that the same URN prefix `path` reaches,
  /// `first` having had a literal where `second` had a placeholder, or the
  /// other way round, as the flags say; the same node twice until they part.
  private func cross(
    _ first: Int, _ second: Int, firstHasLiteral: Bool, secondHasLiteral: Bool, path: inout [String],
    into found: inout [Crossing]
  ) {
    func visit(_ one: Int, _ other: Int, _ segment: String, _ oneLiteral: Bool, _ otherLiteral: Bool) {
      path.append(segment)
      cross(one, other, firstHasLiteral: oneLiteral, secondHasLiteral: otherLiteral, path: &path, into: &found)
      path.removeLast()
    }
    let literals = literalChildren(of: first)
    let firstPlaceholder = Int(nodes[first].placeholder)
    let secondPlaceholder = Int(nodes[second].placeholder)
    if first == second {
      for child in literals {
        visit(child, child, literalText(child), false, false)
        if firstPlaceholder >= 0 { visit(child, firstPlaceholder, literalText(child), true, false) }
      }
      if firstPlaceholder >= 0 { visit(firstPlaceholder, firstPlaceholder, Crossing.anySegment, false, false) }
      return
    }
    if firstHasLiteral, secondHasLiteral, nodes[first].pattern >= 0, nodes[second].pattern >= 0 {
      found.append(Crossing(first: Int(nodes[first].pattern), second: Int(nodes[second].pattern), example: path))
    }
    for child in literals {
      let segment = literalText(child)
      if let same = literalChild(of: second, literalBytes.span.extracting(literal(child))) {
        visit(child, same, segment, firstHasLiteral, secondHasLiteral)
      }
      if secondPlaceholder >= 0 { visit(child, secondPlaceholder, segment, true, secondHasLiteral) }
    }
    guard firstPlaceholder >= 0 else { return }
    for child in literalChildren(of: second) {
      visit(firstPlaceholder, child, literalText(child), firstHasLiteral, true)
    }
    if secondPlaceholder >= 0 {
      visit(firstPlaceholder, secondPlaceholder, Crossing.anySegment, firstHasLiteral, secondHasLiteral)
    }
  }

  /// The literal children of `node`, in no particular order.
  private func literalChildren(of node: Int) -> [Int] {
    if nodes[node].childIndex >= 0 {
      return indexes[Int(nodes[node].childIndex)].slots.filter { $0 >= 0 }.map(Int.init)
    }
    return Array(
      sequence(first: nodes[node].firstChild) { nodes[Int($0)].nextSibling }.prefix { $0 >= 0 }.map(Int.init))
  }

  /// The node where `segments[depth...]` ends below `node` with a pattern.
  /// The node where the segments of `path` from `cursor` on end below
  /// `node` with a pattern, a literal child tried before the placeholder.
  private func find(_ path: some Path, from cursor: Int, in node: Int) -> Int? {
    guard let (literal, next) = path.step(from: cursor, at: node, in: self) else {
      return nodes[node].pattern < 0 ? nil : node
    }
    if let literal, let found = find(path, from: next, in: literal) { return found }
    let placeholder = nodes[node].placeholder
    return placeholder < 0 ? nil : find(path, from: next, in: Int(placeholder))
  }

  /// Whether the literal leading to `node` is `segment`, byte for byte.
  private func isLiteral(_ node: Int, _ segment: Span<UInt8>) -> Bool {
    guard Int(nodes[node].literalCount) == segment.count else { return false }
    let start = Int(nodes[node].literalStart)
    let bytes = literalBytes.span
    for offset in 0..<segment.count where bytes[start + offset] != segment[offset] { return false }
    return true
  }

  fileprivate func literalChild(of node: Int, _ segment: Span<UInt8>) -> Int? {
    guard nodes[node].childIndex < 0 else {
      let index = indexes[Int(nodes[node].childIndex)]
      var slot = index.start(segment)
      while index.slots[slot] >= 0 {
        if isLiteral(Int(index.slots[slot]), segment) { return Int(index.slots[slot]) }
        slot = (slot + 1) & (index.slots.count - 1)
      }
      return nil
    }
    var child = nodes[node].firstChild
    while child >= 0 {
      if isLiteral(Int(child), segment) { return Int(child) }
      child = nodes[Int(child)].nextSibling
    }
    return nil
  }

  private mutating func addLiteral(_ segment: [UInt8], to parent: Int) -> Int {
    let child = nodes.count
    nodes.append(Node(literalStart: Int32(literalBytes.count), literalCount: Int32(segment.count)))
    literalBytes += segment
    if nodes[parent].childIndex >= 0 {
      add(child, to: Int(nodes[parent].childIndex))
      return child
    }
    nodes[child].nextSibling = nodes[parent].firstChild
    nodes[parent].firstChild = Int32(child)
    var chained: [Int32] = []
    var sibling = nodes[parent].firstChild
    while sibling >= 0 {
      chained.append(sibling)
      sibling = nodes[Int(sibling)].nextSibling
    }
    if chained.count > RouteTrie.comparedInTurn {
      nodes[parent].childIndex = Int32(indexes.count)
      nodes[parent].firstChild = -1
      indexes.append(ChildIndex())
      for node in chained.reversed() { add(Int(node), to: indexes.count - 1) }
    }
    return child
  }

  /// Puts `node` in the index numbered `number`, doubling its slots when it
  /// would be more than half full.
  private mutating func add(_ node: Int, to number: Int) {
    if (indexes[number].count + 1) * 2 > indexes[number].slots.count {
      let full = indexes[number].slots.filter { $0 >= 0 }
      indexes[number].slots = Array(repeating: -1, count: indexes[number].slots.count * 2)
      indexes[number].count = 0
      for node in full { add(Int(node), to: number) }
    }
    var slot = indexes[number].start(literalBytes.span.extracting(literal(node)))
    while indexes[number].slots[slot] >= 0 { slot = (slot + 1) & (indexes[number].slots.count - 1) }
    indexes[number].slots[slot] = Int32(node)
    indexes[number].count += 1
  }
}
