import ViperKit
import ViperKitHosting

/// URN patterns arranged as a trie of segments, so that resolving a URN costs
/// one step per segment whatever the number of patterns.
///
/// At each segment a literal child is tried before the placeholder child, so
/// `items:detail:new` wins over `items:detail:{itemID}` for `items:detail:new`.
/// Patterns of the same shape (`a:{x}` and `a:{y}`) match exactly the same
/// URNs: they share one leaf, and ``resolve(_:)`` reports them as a conflict
/// instead of choosing.
package struct RouteTable<Value: Sendable>: Sendable {
  /// One registered pattern and what it leads to.
  package struct Entry: Sendable {
    /// The pattern as registered.
    package let pattern: URNPattern
    /// The value registered with it.
    package let value: Value
    /// The next entry of the same shape, in the order added, or -1.
    @usableFromInline var nextOfShape: Int32 = -1

    init(pattern: URNPattern, value: Value) {
      self.pattern = pattern
      self.value = value
    }
  }

  /// The outcome of resolving a URN.
  package enum Resolution: Sendable {
    /// Exactly one pattern matched; `bindings` maps placeholders to segments.
    case matched(Entry, bindings: [String: String])
    /// Several patterns of the same shape claim the URN.
    case conflict([Entry])
    /// No pattern matches.
    case notFound
  }

  /// The patterns' segments, each pattern numbered by its place in ``entries``.
  @usableFromInline private(set) var trie = RouteTrie()
  /// Every entry in registration order.
  package private(set) var entries: [Entry] = []

  /// An empty table.
  package init() {}

  /// Adds `pattern`. A pattern of the same shape as an existing one is kept
  /// beside it, and both are reported by ``conflicts``.
  package mutating func insert(_ pattern: URNPattern, _ value: Value) {
    if var last = trie.insert(pattern.segments, as: entries.count) {
      while let next = next(ofShape: last) { last = next }
      entries[last].nextOfShape = Int32(entries.count)
    }
    entries.append(Entry(pattern: pattern, value: value))
  }

  /// The entry after `number` with the same shape, in the order added.
  @usableFromInline
  func next(ofShape number: Int) -> Int? {
    entries[number].nextOfShape < 0 ? nil : Int(entries[number].nextOfShape)
  }

  /// Groups of two or more entries whose patterns match the same URNs.
  package var conflicts: [[Entry]] {
    // The entries chain the patterns of one shape, first added first.
    var grouped = Set<Int>()
    var groups: [[Entry]] = []
    for first in entries.indices where !grouped.contains(first) {
      var next = self.next(ofShape: first)
      guard next != nil else { continue }
      var group = [entries[first]]
      while let number = next {
        grouped.insert(number)
        group.append(entries[number])
        next = self.next(ofShape: number)
      }
      groups.append(group)
    }
    return groups
  }

  /// Two entries whose patterns overlap partly: both match ``example``, and
  /// each matches URNs the other does not (`items:{kind}:7` and
  /// `items:detail:{itemID}` both match `items:detail:7`).
  package struct Overlap: Sendable {
    /// The one the router sends ``example`` to: the one with a literal at
    /// the first segment where they differ.
    package let winner: Entry
    /// The other, which never gets ``example``.
    package let loser: Entry
    /// A URN both patterns match.
    package let example: String
  }

  /// Pairs of entries whose patterns overlap partly, where the router
  /// silently chooses one for the URNs both match. A pattern that matches
  /// only URNs another matches too (`items:detail:new` beside
  /// `items:detail:{itemID}`) is a deliberate exception and no overlap; a
  /// pair whose common URN a third pattern takes is none either.
  package var overlaps: [Overlap] {
    trie.crossings().compactMap { crossing in
      guard let found = trie.find(crossing.example), !found.shared,
        found.pattern == crossing.first || found.pattern == crossing.second
      else { return nil }
      let loser = found.pattern == crossing.first ? crossing.second : crossing.first
      return Overlap(
        winner: entries[found.pattern], loser: entries[loser],
        example: crossing.example.map(URN.encode).joined(separator: ":"))
    }
  }

  /// Finds the pattern for `urn`, literals first. Inlinable, so that a
  /// caller in another module (a test, a benchmark, another host) gets it
  /// compiled for its `Value` rather than through generic witnesses.
  @inlinable
  package func resolve(_ urn: ParsedURN) -> Resolution {
    switch match(urn) {
    case .notFound: .notFound
    case .conflict(let numbers): .conflict(numbers.map { entries[$0] })
    case .one(let number): .matched(entries[number], bindings: entries[number].pattern.match(urn) ?? [:])
    }
  }

  /// A URN routed from its text: the entry it matched, its arguments not
  /// yet read (``RouteTable/arguments(of:)`` reads them).
  package struct RoutedURN: Sendable {
    /// The entry's place in ``RouteTable/entries``.
    package let entry: Int
    /// The URN as given.
    package let text: String
    /// The length in bytes of the text's path if it is plain, else -1
    /// (percent-encoded): ``RouteTable/arguments(of:)`` then parses it.
    @usableFromInline let plainPathLength: Int

    @usableFromInline
    init(entry: Int, text: String, plainPathLength: Int) {
      self.entry = entry
      self.text = text
      self.plainPathLength = plainPathLength
    }
  }

  /// The outcome of resolving a URN from its text.
  package enum Routing: Sendable {
    /// Exactly one pattern matched.
    case matched(RoutedURN)
    /// Several patterns of the same shape claim the URN.
    case conflict([Entry])
    /// No pattern matches.
    case notFound
  }

  /// Finds the pattern for the URN `text`, literals first, as
  /// ``resolve(_:)`` does for it parsed, but straight from its bytes when its
  /// path is written plainly: nothing is made, not even the placeholders'
  /// values, until ``arguments(of:)`` asks for them. Throws the
  /// ``URNError`` parsing gives for text that is no URN.
  @inlinable
  package func resolve(text: String) throws(URNError) -> Routing {
    let (found, plainPathLength) = try trie.find(text: text)
    switch match(found) {
    case .notFound: return .notFound
    case .conflict(let numbers): return .conflict(numbers.map { entries[$0] })
    case .one(let number): return .matched(RoutedURN(entry: number, text: text, plainPathLength: plainPathLength))
    }
  }

  /// The arguments `routed` gives as written: each placeholder of its
  /// entry's pattern with its segment, in the pattern's order, then its
  /// `?query` parameters in the order given; all decoded.
  package func arguments(of routed: RoutedURN) -> (
    placeholders: [(name: String, value: String)], query: [(name: String, value: String)]
  ) {
    let pattern = entries[routed.entry].pattern
    let length = routed.plainPathLength
    // A plain path is read where it is.
    let read =
      length < 0
      ? nil
      : routed.text.utf8.withContiguousStorageIfAvailable { Self.placeholders(of: pattern, in: $0.prefix(length)) }
    if let read, length == routed.text.utf8.count { return (read, []) }
    // The path is percent-encoded, or there is a query. Routing read the
    // text as a URN: it parses.
    let urn = try? ParsedURN(parsing: routed.text)
    return (read ?? pattern.placeholderValues(in: urn?.segments ?? []), urn?.query ?? [])
  }

  /// The values of the placeholders of `pattern` in `path`, a plain path
  /// that it matches, in the pattern's order.
  private static func placeholders(of pattern: URNPattern, in path: Slice<UnsafeBufferPointer<UInt8>>) -> [(
    name: String, value: String
  )] {
    var placeholders: [(name: String, value: String)] = []
    var start = path.startIndex
    for segment in pattern.segments {
      let end = path[start...].firstIndex(of: UInt8(ascii: ":")) ?? path.endIndex
      if case .placeholder(let name) = segment {
        placeholders.append((name, String(decoding: UnsafeBufferPointer(rebasing: path[start..<end]), as: UTF8.self)))
      }
      start = min(end + 1, path.endIndex)
    }
    return placeholders
  }

  /// The placeholders of `routed`'s pattern, each bound to its segment of
  /// the URN, decoded.
  package func bindings(of routed: RoutedURN) -> [String: String] {
    Dictionary(arguments(of: routed).placeholders, uniquingKeysWith: { first, _ in first })
  }

  /// What ``match(_:)`` found: entries by their place in ``entries``.
  @usableFromInline
  enum Match {
    /// Exactly one pattern matched.
    case one(Int)
    /// Several patterns of the same shape claim the URN.
    case conflict([Int])
    /// No pattern matches.
    case notFound
  }

  /// Finds the pattern for `urn`, literals first, without binding its
  /// placeholders: the host binds them by position.
  @inlinable
  func match(_ urn: ParsedURN) -> Match { match(trie.find(urn.segments)) }

  /// What the trie found, as a ``Match``.
  @inlinable
  func match(_ found: (pattern: Int, shared: Bool)?) -> Match {
    guard let found else { return .notFound }
    guard !found.shared else { return .conflict(Array(sequence(first: found.pattern, next: next(ofShape:)))) }
    return .one(found.pattern)
  }
}
