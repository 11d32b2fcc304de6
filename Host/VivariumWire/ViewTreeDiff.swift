import ViperKit

/// What changed in a module's view tree from one draw to the next: what a
/// plugin process sends in place of the whole tree
/// (``PluginMessage/drawChanges(module:_:)``), and the host applies to the
/// tree it last had from that module.
///
/// A change is made of **pieces** of the old tree's stacks and lists: the
/// new children of a stack (or rows of a list) are, in order, runs of the
/// old ones kept as they were (by their positions), old children changed
/// inside (a stack of the same axis, a list of the same id, with a change of
/// their own), and new ones sent whole. So a tree of the same shape costs
/// only its changed parts: a list of 100 rows with one row changed sends
/// that row and two runs. Old children are matched to new ones by element
/// id (a list, button, field or secret field by its id, a slot by its name,
/// a row by its id) and by position (the others, by kind and order), after
/// the unchanged ends; the runs and changed children a diff keeps go
/// forward in the old tree, each old child used once, so what a diff makes
/// is never larger than the old tree and what the diff itself carries.
///
/// A diff names the tree it was made from by its ``ViewNode/fingerprint``:
/// ``apply(_:to:)`` refuses any other, and any piece out of range or of the
/// wrong kind, with a ``Mismatch``, never a trap.
package struct ViewTreeDiff: Codable, Equatable, Sendable {
  /// The ``ViewNode/fingerprint`` of the tree the diff was made from.
  package var base: UInt64
  /// What became of that tree's root.
  package var root: Change

  /// A diff from the tree whose fingerprint is `base`, its root changed by `root`.
  package init(base: UInt64, root: Change) {
    self.base = base
    self.root = root
  }

  /// What became of one node.
  package indirect enum Change: Equatable, Sendable {
    /// Replaced by this node, whole.
    case node(ViewNode)
    /// A stack, kept with its axis, whose children are now these pieces of the old ones.
    case children([ChildPiece])
    /// A list, kept with its id, whose rows are now these pieces of the old ones.
    case rows([RowPiece])
  }

  /// A piece of a stack's new children, or a list's new rows: old ones
  /// kept, one changed inside (`Inner`: a child's ``Change``; a row is
  /// never changed inside, only sent anew), or new ones.
  package enum Piece<Element, Inner> {
    /// `count` old elements from index `from`, as they were.
    case kept(from: Int, count: Int)
    /// The old element at index `at`, changed.
    case changed(at: Int, Inner)
    /// New elements, or old ones changed, whole.
    case inserted([Element])
  }

  /// A piece of a stack's new children.
  package typealias ChildPiece = Piece<ViewNode, Change>
  /// A piece of a list's new rows.
  package typealias RowPiece = Piece<ListRow, Never>

  /// Why a diff does not apply to a tree: it was made from another, or
  /// names a child or row the tree does not have, or changes a node as
  /// the kind it is not.
  package struct Mismatch: Error, Equatable, CustomStringConvertible {
    /// What is wrong, for people.
    package let description: String

    init(_ description: String) { self.description = description }
  }

  /// The whole tree the diff replaces its base with, when that is what it
  /// is (a root of another kind, a leaf, or changes that would cost about
  /// as much as the tree): then a draw sends the tree itself.
  package var wholeTree: ViewNode? {
    if case .node(let tree) = root { return tree }
    return nil
  }
}

extension ViewTreeDiff.Piece: Equatable where Element: Equatable, Inner: Equatable {}
extension ViewTreeDiff.Piece: Sendable where Element: Sendable, Inner: Sendable {}

// MARK: Applying

extension ViewTreeDiff {
  /// The tree `diff` makes of `base`; throws a ``Mismatch`` when `base` is
  /// not the tree the diff was made from (its fingerprint differs) or the
  /// diff does not fit it (a piece out of range, going back, or changing a
  /// node of another kind).
  package static func apply(_ diff: ViewTreeDiff, to base: ViewNode) throws(Mismatch) -> ViewNode {
    guard base.fingerprint == diff.base else {
      throw Mismatch("it was made from another tree than the one it was applied to")
    }
    var path: [Int] = []
    return try apply(diff.root, to: base, at: &path)
  }

  /// `change` applied to `node`, which is at `path` (child indices from the root).
  private static func apply(_ change: Change, to node: ViewNode, at path: inout [Int]) throws(Mismatch) -> ViewNode {
    switch change {
    case .node(let replacement):
      return replacement
    case .children(let pieces):
      guard case .stack(let axis, let children) = node else {
        throw Mismatch("it changes the children of \(describe(node)) at \(describe(path)), not a stack")
      }
      return .stack(
        axis,
        try splice(children, pieces, rows: false, at: &path) { change, child, path throws(Mismatch) in
          try apply(change, to: child, at: &path)
        })
    case .rows(let pieces):
      guard case .list(let id, let rows) = node else {
        throw Mismatch("it changes the rows of \(describe(node)) at \(describe(path)), not a list")
      }
      return .list(id: id, rows: try splice(rows, pieces, rows: true, at: &path, change: unchanged))
    }
  }

  /// A row changed inside: there is none, a row is sent again whole.
  private static func unchanged(_ never: Never, _: ListRow, _: inout [Int]) -> ListRow {}

  /// The children or rows `pieces` make of `old`, those of the node at
  /// `path`, an old one changed inside by `change`.
  private static func splice<Element, Inner>(
    _ old: [Element], _ pieces: [Piece<Element, Inner>], rows: Bool, at path: inout [Int],
    change: (Inner, Element, inout [Int]) throws(Mismatch) -> Element
  ) throws(Mismatch) -> [Element] {
    var result: [Element] = []
    var next = 0
    for piece in pieces {
      switch piece {
      case .kept(let from, let count):
        try check(from, count, next: next, of: old.count, "keeps", rows: rows, at: path)
        result += old[from..<from + count]
        next = from + count
      case .changed(let index, let inner):
        try check(index, 1, next: next, of: old.count, "changes", rows: rows, at: path)
        path.append(index)
        result.append(try change(inner, old[index], &path))
        path.removeLast()
        next = index + 1
      case .inserted(let elements):
        result += elements
      }
    }
    return result
  }

  /// Throws unless `count` (at least 1) old children or rows from
  /// `from` are there (`total` of them) and none was used before (`next`
  /// the first not); `verb` is what the piece does with them.
  private static func check(
    _ from: Int, _ count: Int, next: Int, of total: Int, _ verb: String, rows: Bool, at path: [Int]
  ) throws(Mismatch) {
    guard count >= 1, from >= next, from < total, count <= total - from else {
      let (one, many, container) = rows ? ("row", "rows", "list") : ("child", "children", "stack")
      let place = "of the \(container) at \(describe(path))"
      if count >= 1, from >= 0, from < next {
        throw Mismatch("it goes back to \(one) \(from) \(place), after \(one) \(next - 1)")
      }
      let what = count == 1 ? "\(one) \(from)" : "\(count) \(many) from \(from)"
      throw Mismatch("it \(verb) \(what) \(place), which has \(total) \(total == 1 ? one : many)")
    }
  }

  /// `the root`, `[2, 0]`.
  private static func describe(_ path: [Int]) -> String {
    path.isEmpty ? "the root" : "\(path)"
  }

  /// `a text`, `the list 'items'`, for errors.
  private static func describe(_ node: ViewNode) -> String {
    switch node {
    case .text: "a text"
    case .heading: "a heading"
    case .list(let id, _): "the list '\(id)'"
    case .button(let id, _): "the button '\(id)'"
    case .field(let id, _, _, _): "the field '\(id)'"
    case .secretField(let id, _, _, _): "the secret field '\(id)'"
    case .stack: "a stack"
    case .slot(let name): "the slot '\(name)'"
    case .notice: "a notice"
    @unknown default: "an element"
    }
  }
}

// MARK: Making

extension ViewTreeDiff {
  /// What changed from `old` to `new`: a diff that ``apply(_:to:)`` turns
  /// `old` into `new` with. When `old` and `new` are not a stack of one
  /// axis or a list of one id, or the changes would cost about as much as
  /// `new` itself, the diff is `new` whole (``wholeTree``).
  package static func diff(from old: ViewNode, to new: ViewNode) -> ViewTreeDiff {
    let base = old.fingerprint
    if let made = change(from: old, to: new), weighs(new, moreThan: made.cost) {
      return ViewTreeDiff(base: base, root: made.change)
    }
    return ViewTreeDiff(base: base, root: .node(new))
  }

  /// How `new` is made from `old`, about how many bytes that takes on the
  /// wire, and whether it is `old` unchanged; nil unless both are stacks
  /// of one axis or lists of one id.
  private static func change(from old: ViewNode, to new: ViewNode) -> (change: Change, cost: Int, same: Bool)? {
    switch (old, new) {
    case (.stack(let axis, let before), .stack(let newAxis, let after)) where axis == newAxis:
      var pieces = childPieces(from: before, to: after)
      let list = pieces.finished()
      return (.children(list), pieces.cost + Cost.change, pieces.keepsAll(of: before.count))
    case (.list(let id, let before), .list(let newID, let after)) where id == newID:
      var pieces = rowPieces(from: before, to: after)
      let list = pieces.finished()
      return (.rows(list), pieces.cost + Cost.change, pieces.keepsAll(of: before.count))
    default:
      return nil
    }
  }

  private static func childPieces(from old: [ViewNode], to new: [ViewNode]) -> Pieces<ViewNode, Change> {
    var pieces = Pieces<ViewNode, Change>()
    for (index, match) in matches(from: old, to: new, key: NodeKey.init).enumerated() {
      let node = new[index]
      switch match {
      case .same(let match):
        pieces.keep(match)
      case .counterpart(let match):
        // A stack or list is compared as its changes are made.
        if let made = change(from: old[match], to: node) {
          if made.same {
            pieces.keep(match)
          } else if weighs(node, moreThan: made.cost) {
            pieces.change(match, made.change, cost: made.cost)
          } else {
            pieces.insert(node, weight: weight(of: node))
          }
        } else if old[match] == node {
          pieces.keep(match)
        } else {
          pieces.insert(node, weight: weight(of: node))
        }
      case .none:
        pieces.insert(node, weight: weight(of: node))
      }
    }
    return pieces
  }

  private static func rowPieces(from old: [ListRow], to new: [ListRow]) -> Pieces<ListRow, Never> {
    var pieces = Pieces<ListRow, Never>()
    for (index, match) in matches(from: old, to: new, key: \.id).enumerated() {
      switch match {
      case .same(let match): pieces.keep(match)
      case .counterpart(let match) where old[match] == new[index]: pieces.keep(match)
      default: pieces.insert(new[index], weight: weight(of: new[index]))
      }
    }
    return pieces
  }

  /// Where an element of the new children or rows comes from.
  private enum Match {
    /// The old one at this index, equal: the ends that did not change.
    case same(Int)
    /// The old one at this index, of its key: equal or not.
    case counterpart(Int)
    /// None: it is new.
    case none
  }

  /// For each element of `new`, the element of `old` it comes from, if
  /// any: the equal ones at both ends, then in between those of one key
  /// (the first of a key in `old` with the first in `new`, the second with
  /// the second…), keeping the longest run of them whose indices in `old`
  /// go forward.
  private static func matches<Element: Equatable, Key: Hashable>(
    from old: [Element], to new: [Element], key: (Element) -> Key
  ) -> [Match] {
    var result = [Match](repeating: .none, count: new.count)
    var start = 0
    while start < old.count, start < new.count, old[start] == new[start] {
      result[start] = .same(start)
      start += 1
    }
    var (oldEnd, newEnd) = (old.count, new.count)
    while oldEnd > start, newEnd > start, old[oldEnd - 1] == new[newEnd - 1] {
      (oldEnd, newEnd) = (oldEnd - 1, newEnd - 1)
      result[newEnd] = .same(oldEnd)
    }
    guard start < oldEnd, start < newEnd else { return result }
    var unused: [Key: [Int]] = [:]
    for index in (start..<oldEnd).reversed() { unused[key(old[index]), default: []].append(index) }
    var candidates: [(new: Int, old: Int)] = []
    for index in start..<newEnd {
      if let match = unused[key(new[index])]?.popLast() { candidates.append((index, match)) }
    }
    for position in longestIncreasingRun(candidates.map(\.old)) {
      result[candidates[position].new] = .counterpart(candidates[position].old)
    }
    return result
  }

  /// The positions in `values` of a longest strictly increasing subsequence.
  private static func longestIncreasingRun(_ values: [Int]) -> [Int] {
    // `ends[k]`: the position of the least value ending a run of k + 1.
    var ends: [Int] = []
    var previous = [Int](repeating: -1, count: values.count)
    for (position, value) in values.enumerated() {
      var (low, high) = (0, ends.count)
      while low < high {
        let middle = (low + high) / 2
        if values[ends[middle]] < value { low = middle + 1 } else { high = middle }
      }
      if low > 0 { previous[position] = ends[low - 1] }
      if low == ends.count { ends.append(position) } else { ends[low] = position }
    }
    var run: [Int] = []
    var position = ends.last ?? -1
    while position >= 0 {
      run.append(position)
      position = previous[position]
    }
    return run.reversed()
  }

  /// How a child is matched with an old one: an element with an id by its
  /// kind and id, a slot by its name, any other by its kind (and so by order).
  private struct NodeKey: Hashable {
    let kind: UInt8
    let id: String

    init(_ node: ViewNode) {
      switch node {
      case .text: (kind, id) = (1, "")
      case .heading: (kind, id) = (2, "")
      case .list(let id, _): (kind, self.id) = (3, id)
      case .button(let id, _): (kind, self.id) = (4, id)
      case .field(let id, _, _, _): (kind, self.id) = (5, id)
      case .secretField(let id, _, _, _): (kind, self.id) = (6, id)
      case .stack: (kind, id) = (7, "")
      case .slot(let name): (kind, id) = (8, name)
      case .notice: (kind, id) = (9, "")
      @unknown default: (kind, id) = (0, String(describing: node))
      }
    }
  }

  /// Pieces as they are found, and their cost.
  private struct Pieces<Element, Inner> {
    private var pieces: [Piece<Element, Inner>] = []
    private var run: (from: Int, count: Int)?
    private var inserted: [Element] = []
    private(set) var cost = 0
    /// How many old elements were kept in their places, from the first on.
    private var keptInPlace = 0
    /// Whether anything but old elements in their places was found.
    private var moved = false

    /// Whether the pieces are all the `count` old elements, unchanged.
    func keepsAll(of count: Int) -> Bool { !moved && keptInPlace == count }

    mutating func keep(_ index: Int) {
      if index == keptInPlace { keptInPlace += 1 } else { moved = true }
      if let run, run.from + run.count == index {
        self.run = (run.from, run.count + 1)
        return
      }
      flush()
      run = (index, 1)
    }

    mutating func change(_ index: Int, _ change: Inner, cost: Int) {
      moved = true
      flush()
      pieces.append(.changed(at: index, change))
      self.cost += Cost.piece + cost
    }

    mutating func insert(_ element: Element, weight: Int) {
      moved = true
      if let run {
        pieces.append(.kept(from: run.from, count: run.count))
        cost += Cost.piece
        self.run = nil
      }
      inserted.append(element)
      cost += weight
    }

    private mutating func flush() {
      if let run {
        pieces.append(.kept(from: run.from, count: run.count))
        cost += Cost.piece
        self.run = nil
      }
      if !inserted.isEmpty {
        pieces.append(.inserted(inserted))
        cost += Cost.piece
        inserted.removeAll()
      }
    }

    /// The pieces, all of them counted in ``cost``.
    mutating func finished() -> [Piece<Element, Inner>] {
      flush()
      return pieces
    }
  }

  /// About how many bytes things take on the wire, to weigh a change against the node it changes.
  private enum Cost {
    /// A change's kind.
    static let change = 8
    /// A piece's kind and numbers.
    static let piece = 8
    /// A node's container and kind.
    static let node = 20
    /// A string's key, tag and length.
    static let string = 10
  }

  /// Whether `node` takes more than `limit` bytes on the wire (about):
  /// it is weighed only until it does.
  static func weighs(_ node: ViewNode, moreThan limit: Int) -> Bool {
    var left = limit
    return !fits(node, in: &left)
  }

  /// Takes `node`'s weight from `left`; false as soon as that is less than nothing.
  private static func fits(_ node: ViewNode, in left: inout Int) -> Bool {
    switch node {
    case .list(let id, let rows):
      left -= Cost.node + Cost.string * 2 + id.utf8.count
      for row in rows where left >= 0 { left -= weight(of: row) }
    case .stack(_, let children):
      left -= Cost.node + Cost.string * 2
      for child in children where left >= 0 { _ = fits(child, in: &left) }
    default:
      left -= weight(of: node)
    }
    return left >= 0
  }

  /// About how many bytes `node` takes on the wire.
  static func weight(of node: ViewNode) -> Int {
    switch node {
    case .text(let text, _): Cost.node + Cost.string * 2 + text.utf8.count
    case .heading(let text): Cost.node + Cost.string + text.utf8.count
    case .list(let id, let rows):
      rows.reduce(Cost.node + Cost.string * 2 + id.utf8.count) { $0 + weight(of: $1) }
    case .button(let id, let title): Cost.node + Cost.string * 2 + id.utf8.count + title.utf8.count
    case .field(let id, let label, let value, let placeholder):
      Cost.node + Cost.string * 4 + id.utf8.count + label.utf8.count + value.utf8.count + placeholder.utf8.count
    case .secretField(let id, let label, _, let placeholder):
      Cost.node + Cost.string * 4 + id.utf8.count + label.utf8.count + placeholder.utf8.count
    case .stack(_, let children): children.reduce(Cost.node + Cost.string * 2) { $0 + weight(of: $1) }
    case .slot(let name): Cost.node + Cost.string + name.utf8.count
    case .notice(_, let text): Cost.node + Cost.string * 2 + text.utf8.count
    @unknown default: Cost.node + String(describing: node).utf8.count
    }
  }

  /// About how many bytes `row` takes on the wire.
  static func weight(of row: ListRow) -> Int {
    let marker = row.marker.map { Cost.node + Cost.string * 2 + $0.label.utf8.count } ?? 0
    return Cost.node + Cost.string * 4 + row.id.utf8.count + row.title.utf8.count + row.detail.utf8.count + marker
  }
}

// MARK: Coding

/// On the wire a diff is one list: the base's fingerprint, then its root's
/// change. A change is a code, then what it carries, in the same list: a
/// node (`0`), or a stack's children (`1`) or a list's rows (`2`) as their
/// pieces, each `0 from count`, `1 index [change]` (a list of its own; never
/// in rows) or `2 count` and that many nodes or rows. So a change at depth
/// d nests d lists, no deeper than the tree it changes: a diff crosses
/// wherever its tree would.
extension ViewTreeDiff {
  package init(from decoder: any Decoder) throws {
    var list = try decoder.unkeyedContainer()
    base = try list.decode(UInt64.self)
    root = try Change(from: &list)
  }

  package func encode(to encoder: any Encoder) throws {
    var list = encoder.unkeyedContainer()
    try list.encode(base)
    try root.encode(to: &list)
  }
}

extension ViewTreeDiff.Change {
  private enum Code: UInt8, Codable {
    case node, children, rows
  }

  /// Reads a change from the rest of `list`, to its end.
  fileprivate init(from list: inout any UnkeyedDecodingContainer) throws {
    switch try list.decode(Code.self) {
    case .node:
      self = .node(try list.decode(ViewNode.self))
      guard list.isAtEnd else { throw ViewTreeDiff.corrupt(list, "a change ends with its node") }
    case .children:
      self = .children(
        try ViewTreeDiff.pieces(from: &list) { list throws in
          var nested = try list.nestedUnkeyedContainer()
          return try Self(from: &nested)
        })
    case .rows:
      self = .rows(try ViewTreeDiff.pieces(from: &list, changed: nil))
    }
  }

  /// A row changed inside, written: there is none.
  private static func unwritten(_ never: Never, _: inout any UnkeyedEncodingContainer) {}

  /// Writes the change to the rest of `list`.
  fileprivate func encode(to list: inout any UnkeyedEncodingContainer) throws {
    switch self {
    case .node(let node):
      try list.encode(Code.node)
      try list.encode(node)
    case .children(let pieces):
      try list.encode(Code.children)
      try ViewTreeDiff.encode(pieces, to: &list) { change, list throws in
        var nested = list.nestedUnkeyedContainer()
        try change.encode(to: &nested)
      }
    case .rows(let pieces):
      try list.encode(Code.rows)
      try ViewTreeDiff.encode(pieces, to: &list, changed: Self.unwritten)
    }
  }
}

extension ViewTreeDiff {
  private enum PieceCode: UInt8, Codable {
    case kept, changed, inserted
  }

  /// Reads pieces from the rest of `list`, to its end; an old element
  /// changed inside with `changed`, none when it is nil.
  fileprivate static func pieces<Element: Decodable, Inner>(
    from list: inout any UnkeyedDecodingContainer,
    changed: ((inout any UnkeyedDecodingContainer) throws -> Inner)?
  ) throws -> [Piece<Element, Inner>] {
    var pieces: [Piece<Element, Inner>] = []
    while !list.isAtEnd {
      switch try list.decode(PieceCode.self) {
      case .kept: pieces.append(.kept(from: try count(&list), count: try count(&list)))
      case .changed:
        guard let changed else { throw corrupt(list, "a row is never changed inside, only sent again") }
        pieces.append(.changed(at: try count(&list), try changed(&list)))
      case .inserted: pieces.append(.inserted(try elements(&list)))
      }
    }
    return pieces
  }

  /// Writes `pieces` to the rest of `list`; an old element changed inside with `changed`.
  fileprivate static func encode<Element: Encodable, Inner>(
    _ pieces: [Piece<Element, Inner>], to list: inout any UnkeyedEncodingContainer,
    changed: (Inner, inout any UnkeyedEncodingContainer) throws -> Void
  ) throws {
    for piece in pieces {
      switch piece {
      case .kept(let from, let count):
        try list.encode(PieceCode.kept)
        try list.encode(from)
        try list.encode(count)
      case .changed(let index, let inner):
        try list.encode(PieceCode.changed)
        try list.encode(index)
        try changed(inner, &list)
      case .inserted(let elements):
        try list.encode(PieceCode.inserted)
        try list.encode(elements.count)
        for element in elements { try list.encode(element) }
      }
    }
  }

  /// An index or a count: never negative.
  private static func count(_ list: inout any UnkeyedDecodingContainer) throws -> Int {
    let value = try list.decode(Int.self)
    guard value >= 0 else { throw corrupt(list, "an index or a count is not \(value)") }
    return value
  }

  /// A count, then that many elements: no more than the list holds.
  private static func elements<Element: Decodable>(_ list: inout any UnkeyedDecodingContainer) throws -> [Element] {
    let count = try count(&list)
    guard let total = list.count, count <= total - list.currentIndex else {
      throw corrupt(list, "\(count) elements are more than the rest of the diff holds")
    }
    var elements: [Element] = []
    elements.reserveCapacity(count)
    for _ in 0..<count { elements.append(try list.decode(Element.self)) }
    return elements
  }

  fileprivate static func corrupt(_ list: any UnkeyedDecodingContainer, _ description: String) -> DecodingError {
    .dataCorrupted(.init(codingPath: list.codingPath, debugDescription: description))
  }
}
