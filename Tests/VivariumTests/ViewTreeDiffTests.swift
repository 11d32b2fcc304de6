import Testing
import ViperKit

@testable import ViperKitTestKit
@testable import VivariumWire

/// A draw as what changed since the last one: applied to the tree it was
/// made from, a diff gives the new tree, whatever the two trees are; to
/// any other tree, or out of its range, it is an error, never a trap; and
/// a small change makes a small diff.
@Suite("View tree diffs")
struct ViewTreeDiffTests {
  // MARK: Round trips

  /// For random trees and random changes of them (rows and children
  /// inserted, removed, moved and changed, kinds, axes and ids changed),
  /// the diff of A to B applied to A is B, also after crossing the wire;
  /// and one that is not whole costs about no more than the whole tree.
  @Test func aDiffAppliedToItsBaseGivesTheNewTree() throws {
    var trees = RandomTrees(seed: 0x4449_4646)
    var partial = 0
    for round in 0..<3_000 {
      let old = trees.stack(depth: 4)
      // Mostly changes of the old tree; every fourth pair two unrelated trees.
      let new = round % 4 == 3 ? trees.node(depth: 4) : trees.changed(old, depth: 4)
      let diff = ViewTreeDiff.diff(from: old, to: new)
      #expect(try ViewTreeDiff.apply(diff, to: old) == new, "\(old) to \(new): \(diff)")
      let message = PluginMessage.drawChanges(module: 1, diff)
      let bytes = try message.encoded()
      #expect(try PluginMessage.decode(bytes) == message)
      if diff.wholeTree == nil {
        partial += 1
        let whole = try PluginMessage.draw(module: 1, new).encoded()
        #expect(bytes.count <= whole.count + whole.count / 4 + 16, "\(diff) for \(new)")
      } else {
        #expect(diff.wholeTree == new)
      }
    }
    // Most changes of a tree are sent as changes.
    #expect(partial > 1_500, "\(partial) of 3,000 diffs were changes")
  }

  @Test func aTreeOfTheSameShapeCostsItsChangesOnly() throws {
    let old = Self.page(rows: 100)
    #expect(ViewTreeDiff.diff(from: old, to: old).root == .children([.kept(from: 0, count: 5)]))
    let new = Self.page(rows: 100, changing: 42)
    let diff = ViewTreeDiff.diff(from: old, to: new)
    #expect(diff.base == old.fingerprint)
    guard case .children(let pieces) = diff.root, pieces.count == 3,
      case .changed(2, .rows(let rows)) = pieces[1]
    else {
      Issue.record("not the list's rows changed: \(diff)")
      return
    }
    #expect(pieces[0] == .kept(from: 0, count: 2) && pieces[2] == .kept(from: 3, count: 2))
    #expect(
      rows == [
        .kept(from: 0, count: 42), .inserted([Self.row(42, title: "Product 42, now on sale")]),
        .kept(from: 43, count: 57),
      ])
  }

  @Test func rowsInsertedRemovedAndMovedAreSentAloneAndTheRestKept() throws {
    let rows = (0..<100).map { Self.row($0) }
    func list(_ rows: [ListRow]) -> ViewNode { .list(id: "results", rows: rows) }
    func pieces(_ new: [ListRow]) -> [ViewTreeDiff.RowPiece] {
      let diff = ViewTreeDiff.diff(from: list(rows), to: list(new))
      #expect(try! ViewTreeDiff.apply(diff, to: list(rows)) == list(new))
      guard case .rows(let pieces) = diff.root else { return [] }
      return pieces
    }
    var inserted = rows
    inserted.insert(Self.row(500), at: 10)
    #expect(pieces(inserted) == [.kept(from: 0, count: 10), .inserted([Self.row(500)]), .kept(from: 10, count: 90)])
    var removed = rows
    removed.remove(at: 0)
    removed.remove(at: 50)
    #expect(pieces(removed) == [.kept(from: 1, count: 50), .kept(from: 52, count: 48)])
    var moved = rows
    moved.insert(moved.remove(at: 80), at: 5)
    #expect(
      pieces(moved) == [
        .kept(from: 0, count: 5), .inserted([Self.row(80)]), .kept(from: 5, count: 75), .kept(from: 81, count: 19),
      ])
    // Shorter than one row, the rows of another list are the whole list.
    #expect(ViewTreeDiff.diff(from: list(rows), to: .list(id: "other", rows: rows)).wholeTree != nil)
  }

  // MARK: Sizes

  /// One changed row of a page of 100 sends under a tenth of the page's
  /// bytes (about a row's); of 10, under half.
  @Test(arguments: [(100, 10), (10, 2)])
  func oneChangedRowSendsAboutARow(rows: Int, fraction: Int) throws {
    let old = Self.page(rows: rows)
    let new = Self.page(rows: rows, changing: rows / 2)
    let whole = try PluginMessage.draw(module: 1, new).encoded().count
    let diff = ViewTreeDiff.diff(from: old, to: new)
    let changes = try PluginMessage.drawChanges(module: 1, diff).encoded().count
    #expect(changes * fraction < whole, "\(changes) bytes of changes, \(whole) whole")
    let row = try WireEncoder.encode(Self.row(rows / 2, title: "Product \(rows / 2), now on sale")).count
    // The row, and the message, its base and its pieces around it.
    #expect(changes < row + 128, "\(changes) bytes of changes, a row \(row)")
  }

  /// A root of another kind, a leaf, a stack turned on its side or a list
  /// with another id is sent whole; a stack whose children are all new
  /// sends them, in fewer bytes than the whole tree.
  @Test func whatHasNothingToKeepIsSentWhole() throws {
    let old = Self.page(rows: 10)
    let wholes: [(ViewNode, ViewNode)] = [
      (old, .heading("Products")), (.text("a"), .text("b")),
      (.stack(.vertical, [.text("a")]), .stack(.horizontal, [.text("a")])),
      (.list(id: "a", rows: [Self.row(1)]), .list(id: "b", rows: [Self.row(1)])),
      (.heading("a"), .stack(.vertical, [])),
    ]
    for (old, new) in wholes { #expect(ViewTreeDiff.diff(from: old, to: new).wholeTree == new, "\(old) to \(new)") }
    let new = ViewNode.stack(.vertical, [.heading("Elsewhere"), .text("Nothing in common")])
    let diff = ViewTreeDiff.diff(from: old, to: new)
    #expect(diff.root == .children([.inserted([.heading("Elsewhere"), .text("Nothing in common")])]))
    let bytes = try PluginMessage.drawChanges(module: 1, diff).encoded().count
    #expect(bytes <= (try PluginMessage.draw(module: 1, new).encoded().count))
  }

  /// A diff nests no deeper than its tree: a change at the bottom of the
  /// deepest tree that crosses, or of a subtree as deep put in below the
  /// root, crosses too.
  @Test func aDiffOfTheDeepestTreeCrosses() throws {
    func chain(_ depth: Int, _ leaf: ViewNode) -> ViewNode {
      depth == 1 ? leaf : .stack(.vertical, [chain(depth - 1, leaf), .text("level \(depth)")])
    }
    let old = chain(64, .heading("old"))
    for new in [chain(64, .heading("new")), .stack(.vertical, [chain(63, .heading("new")), .text("level 64")])] {
      let diff = ViewTreeDiff.diff(from: old, to: new)
      #expect(diff.wholeTree == nil)
      let message = PluginMessage.drawChanges(module: 1, diff)
      let decoded = try PluginMessage.decode(try message.encoded())
      guard case .drawChanges(_, let crossed) = decoded else {
        Issue.record("\(decoded)")
        continue
      }
      #expect(try ViewTreeDiff.apply(crossed, to: old) == new)
    }
  }

  // MARK: Mismatches

  /// A diff applied to any tree but its base is refused, as a
  /// ``ViewTreeDiff/Mismatch``.
  @Test func aDiffAppliedToAnotherTreeIsRefused() throws {
    var trees = RandomTrees(seed: 0x4241_5345)
    for _ in 0..<1_000 {
      let old = trees.node(depth: 3)
      let new = trees.changed(old, depth: 3)
      var other = trees.changed(old, depth: 3)
      if other == old { other = .stack(.vertical, [old]) }
      let diff = ViewTreeDiff.diff(from: old, to: new)
      #expect(throws: ViewTreeDiff.Mismatch.self) { try ViewTreeDiff.apply(diff, to: other) }
    }
    let page = Self.page(rows: 10)
    let error = try #require(
      throws: ViewTreeDiff.Mismatch.self,
      performing: {
        try ViewTreeDiff.apply(ViewTreeDiff.diff(from: page, to: Self.page(rows: 10, changing: 3)), to: .text(""))
      })
    #expect(error.description == "it was made from another tree than the one it was applied to")
  }

  /// Diffs that name their base but not its shape: pieces out of range,
  /// going back, changing a node as what it is not; each is refused,
  /// saying where.
  static let misfits: [(ViewTreeDiff.Change, String)] = [
    (
      .children([.kept(from: 3, count: 3)]), "it keeps 3 children from 3 of the stack at the root, which has 5 children"
    ),
    (
      .children([.kept(from: 0, count: 0)]), "it keeps 0 children from 0 of the stack at the root, which has 5 children"
    ),
    (
      .children([.kept(from: -1, count: 2)]),
      "it keeps 2 children from -1 of the stack at the root, which has 5 children"
    ),
    (
      .children([.kept(from: 1, count: .max)]),
      "it keeps \(Int.max) children from 1 of the stack at the root, which has 5 children"
    ),
    (
      .children([.kept(from: 2, count: 2), .kept(from: 1, count: 1)]),
      "it goes back to child 1 of the stack at the root, after child 3"
    ),
    (
      .children([.changed(at: 2, .rows([])), .changed(at: 2, .rows([]))]),
      "it goes back to child 2 of the stack at the root, after child 2"
    ),
    (.children([.changed(at: 5, .rows([]))]), "it changes child 5 of the stack at the root, which has 5 children"),
    (.children([.changed(at: 0, .rows([]))]), "it changes the rows of a heading at [0], not a list"),
    (
      .children([.changed(at: 3, .children([.changed(at: 1, .children([]))]))]),
      "it changes the children of the button 'next' at [3, 1], not a stack"
    ),
    (
      .children([.changed(at: 2, .rows([.kept(from: 9, count: 2)]))]),
      "it keeps 2 rows from 9 of the list at [2], which has 10 rows"
    ),
    (.rows([]), "it changes the rows of a stack at the root, not a list"),
  ]

  @Test(arguments: misfits)
  func aDiffThatDoesNotFitItsBaseIsRefused(root: ViewTreeDiff.Change, reason: String) throws {
    let page = Self.page(rows: 10)
    let error = try #require(
      throws: ViewTreeDiff.Mismatch.self,
      performing: { try ViewTreeDiff.apply(ViewTreeDiff(base: page.fingerprint, root: root), to: page) })
    #expect(error.description == reason)
  }

  /// What crosses the wire as a diff is checked as it is decoded:
  /// negative numbers, counts beyond what follows and unknown pieces are
  /// refused; mutated diffs decode or are refused, and what decodes
  /// applies or is refused, never a trap.
  @Test func malformedDiffsAreRefusedAndMutatedOnesNeverTrap() throws {
    func decodes(_ values: [any Encodable & Sendable]) -> Bool {
      let bytes = try! WireEncoder.encode(values.map(AnyEncodable.init))
      return (try? WireDecoder.decode(ViewTreeDiff.self, from: bytes)) != nil
    }
    let base = Self.page(rows: 10).fingerprint
    #expect(decodes([base, 1 as UInt8, 0 as UInt8, 0, 2]))
    #expect(!decodes([base, 1 as UInt8, 0 as UInt8, -1, 2]))
    #expect(!decodes([base, 1 as UInt8, 0 as UInt8, 0]))
    #expect(!decodes([base, 1 as UInt8, 2 as UInt8, 3, ViewNode.text("only one")]))
    #expect(!decodes([base, 1 as UInt8, 2 as UInt8, Int.max]))
    #expect(!decodes([base, 1 as UInt8, 7 as UInt8]))
    #expect(!decodes([base, 2 as UInt8, 1 as UInt8, 0, 2]))
    #expect(!decodes([base, 3 as UInt8]))
    #expect(!decodes([base, 0 as UInt8, ViewNode.text(""), 0]))
    #expect(!decodes([base]))

    var trees = RandomTrees(seed: 0x4D55_5441)
    var random = SplitMix64(seed: 0x4D55_5441)
    var (applied, refused) = (0, 0)
    for _ in 0..<3_000 {
      let old = trees.node(depth: 3)
      var bytes = try WireEncoder.encode(ViewTreeDiff.diff(from: old, to: trees.changed(old, depth: 3)))
      for _ in 0..<Int.random(in: 1...3, using: &random) {
        let index = Int.random(in: bytes.indices, using: &random)
        bytes[index] = Int.random(in: 0..<4, using: &random) == 0 ? UInt8.random(in: 0...255, using: &random) : 0xFF
      }
      guard let diff = try? WireDecoder.decode(ViewTreeDiff.self, from: bytes) else {
        refused += 1
        continue
      }
      // The base's number is checked first; this reaches the rest.
      let named = ViewTreeDiff(base: old.fingerprint, root: diff.root)
      if (try? ViewTreeDiff.apply(named, to: old)) != nil { applied += 1 } else { refused += 1 }
    }
    #expect(applied > 0 && refused > 0, "\(applied) applied, \(refused) refused")
  }

  @Test func theFingerprintTellsTreesApartAndIsTheSameEachTime() {
    let page = Self.page(rows: 10)
    #expect(page.fingerprint == Self.page(rows: 10).fingerprint)
    let others: [ViewNode] = [
      Self.page(rows: 9), Self.page(rows: 10, changing: 0), Self.page(rows: 10, changing: 9), .stack(.horizontal, []),
      .stack(.vertical, []), .text(""), .text("", tone: .muted), .heading(""), .slot(""), .list(id: "", rows: []),
      .list(id: "", rows: [ListRow(id: "", title: "")]),
      .list(id: "", rows: [ListRow(id: "", title: "", marker: Marker(.normal, ""))]),
      .stack(.vertical, [.text("ab"), .text("c")]), .stack(.vertical, [.text("a"), .text("bc")]),
      .secretField(id: "p", label: "", length: 1), .secretField(id: "p", label: "", length: 2),
    ]
    let fingerprints = Set(([page] + others).map(\.fingerprint))
    #expect(fingerprints.count == others.count + 1)
    // Fixed for a tree: the same in every process and run.
    #expect(ViewNode.text("").fingerprint == ViewNode.text("").fingerprint)
  }

  // MARK: Helpers

  /// A page like products:search's: a heading, a field, `rows` rows, two
  /// buttons side by side, a line; row `changing` on sale.
  static func page(rows: Int, changing: Int? = nil) -> ViewNode {
    .stack(
      .vertical,
      [
        .heading("Products"), .field(id: "query", label: "Search", value: "lamp", placeholder: "Name"),
        .list(
          id: "results",
          rows: (0..<rows).map { $0 == changing ? row($0, title: "Product \($0), now on sale") : row($0) }),
        .stack(.horizontal, [.button(id: "previous", title: "Previous"), .button(id: "next", title: "Next")]),
        .text("page 1 of 3", tone: .muted),
      ])
  }

  static func row(_ index: Int, title: String? = nil) -> ListRow {
    ListRow(
      id: "\(index)", title: title ?? "Product \(index)", detail: "€ \(index).99",
      marker: Marker(.positive, "in stock"))
  }
}

/// Any encodable value, to write lists of values of several types by hand.
private struct AnyEncodable: Encodable, Sendable {
  let value: any Encodable & Sendable
  func encode(to encoder: any Encoder) throws { try value.encode(to: encoder) }
}

/// Random view trees from few words and ids (so that ids repeat and
/// match), and random changes of them.
struct RandomTrees {
  var random: SplitMix64
  let words = ["", "a", "Lamp", "Product 7", "€ 3.99", "日本", "in stock", "a longer line of text than the others"]
  let ids = ["a", "b", "c", "d", "e", "1", "2", ""]
  let tones: [Tone] = [.normal, .muted, .info, .positive, .warning, .negative]

  init(seed: UInt64) { random = SplitMix64(seed: seed) }

  mutating func pick<T>(_ items: [T]) -> T { items[Int.random(in: items.indices, using: &random)] }
  mutating func number(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &random) }
  mutating func chance(_ percent: Int) -> Bool { number(1...100) <= percent }

  mutating func row() -> ListRow {
    ListRow(
      id: pick(ids), title: pick(words), detail: pick(words),
      marker: chance(50) ? Marker(pick(tones), pick(words)) : nil)
  }

  mutating func node(depth: Int) -> ViewNode {
    switch number(0...(depth > 1 ? 11 : 8)) {
    case 0: .text(pick(words), tone: pick(tones))
    case 1: .heading(pick(words))
    case 2, 3: .list(id: pick(ids), rows: (0..<number(0...12)).map { _ in row() })
    case 4: .button(id: pick(ids), title: pick(words))
    case 5: .field(id: pick(ids), label: pick(words), value: pick(words), placeholder: pick(words))
    case 6: .secretField(id: pick(ids), label: pick(words), length: number(0...9), placeholder: pick(words))
    case 7: .slot(pick(ids))
    case 8: .notice(pick(tones), pick(words))
    default: stack(depth: depth)
    }
  }

  /// A stack of random nodes.
  mutating func stack(depth: Int) -> ViewNode {
    .stack(chance(50) ? .vertical : .horizontal, (0..<number(0...6)).map { _ in node(depth: depth - 1) })
  }

  /// `node` changed here and there: elements inserted, removed, moved,
  /// changed inside or replaced, now and then an axis or id changed or
  /// the node replaced whole.
  mutating func changed(_ node: ViewNode, depth: Int) -> ViewNode {
    if chance(5) { return self.node(depth: depth) }
    switch node {
    case .stack(var axis, var children):
      for _ in 0..<number(0...3) {
        switch number(0...4) {
        case 0: children.insert(self.node(depth: depth - 1), at: number(0...children.count))
        case 1 where !children.isEmpty: children.remove(at: number(0...children.count - 1))
        case 2 where children.count > 1: children.insert(children.remove(at: number(0...children.count - 1)), at: 0)
        case 3 where !children.isEmpty:
          let index = number(0...children.count - 1)
          children[index] = changed(children[index], depth: depth - 1)
        default: break
        }
      }
      if chance(5) { axis = axis == .vertical ? .horizontal : .vertical }
      return .stack(axis, children)
    case .list(var id, var rows):
      for _ in 0..<number(0...3) {
        switch number(0...4) {
        case 0: rows.insert(row(), at: number(0...rows.count))
        case 1 where !rows.isEmpty: rows.remove(at: number(0...rows.count - 1))
        case 2 where rows.count > 1: rows.append(rows.remove(at: number(0...rows.count - 2)))
        case 3 where !rows.isEmpty:
          let index = number(0...rows.count - 1)
          rows[index].title = pick(words)
          rows[index].marker = chance(50) ? nil : Marker(pick(tones), pick(words))
        default: break
        }
      }
      if chance(5) { id = pick(ids) }
      return .list(id: id, rows: rows)
    default:
      return chance(30) ? self.node(depth: depth) : node
    }
  }
}
