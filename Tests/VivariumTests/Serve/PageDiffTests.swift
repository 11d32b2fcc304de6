import Foundation
import Testing
import ViperKit

@testable import VivariumServe

/// The page's changes: applied in order to the old page they make the new
/// one, whatever changed, and they cost what changed, not the page's size.
@Suite struct PageDiffTests {
  /// `changes` applied to `page` as the page's script applies them; nil
  /// when one names no element.
  static func apply(_ changes: [PageChange], to page: PageNode) -> PageNode? {
    var page = page
    for change in changes {
      var applied = true
      switch change {
      case .replace(let path, let node): applied = update(&page, path[...]) { $0 = node }
      case .text(let path, let text): applied = update(&page, path[...]) { $0.text = text }
      case .attributes(let path, let attributes):
        applied = update(&page, path[...]) { node in
          for (name, value) in attributes { node.attributes[name] = value }
        }
      case .splice(let path, let index, let remove, let insert):
        var fits = false
        applied = update(&page, path[...]) { node in
          guard index >= 0, remove >= 0, index + remove <= node.children.count else { return }
          node.children.replaceSubrange(index..<(index + remove), with: insert)
          fits = true
        }
        applied = applied && fits
      }
      guard applied else { return nil }
    }
    return page
  }

  private static func update(_ node: inout PageNode, _ path: ArraySlice<Int>, _ body: (inout PageNode) -> Void) -> Bool
  {
    guard let first = path.first else {
      body(&node)
      return true
    }
    guard node.children.indices.contains(first) else { return false }
    return update(&node.children[first], path.dropFirst(), body)
  }

  static func list(_ rows: [ListRow]) -> PageNode {
    PageRenderer.node(
      .stack(.vertical, [.heading("Items"), .list(id: "items", rows: rows), .button(id: "more", title: "More")]))
  }

  static func rows(_ count: Int, changed: Int? = nil) -> [ListRow] {
    (0..<count).map { ListRow(id: "\($0)", title: $0 == changed ? "changed" : "item \($0)", detail: "€\($0)") }
  }

  static func bytes(_ changes: [PageChange]) throws -> Int { try JSONEncoder().encode(changes).count }

  @Test func changesAppliedToTheOldPageMakeTheNewOne() throws {
    let pages: [PageNode] = [
      Self.list(Self.rows(5)), Self.list(Self.rows(5, changed: 2)), Self.list(Self.rows(8)), Self.list(Self.rows(3)),
      Self.list(Array(Self.rows(6).reversed())), Self.list([]),
      PageRenderer.node(.stack(.horizontal, [.text("a"), .notice(.negative, "no")])),
      PageRenderer.node(.field(id: "q", label: "Search", value: "mug")),
      PageRenderer.node(.field(id: "q", label: "Search", value: "")), PageRenderer.node(.text("only text")),
    ]
    for old in pages {
      for new in pages {
        let changes = PageDiff.changes(from: old, to: new)
        #expect(Self.apply(changes, to: old) == new, "\(old) → \(new): \(changes)")
        if old == new { #expect(changes.isEmpty) }
      }
    }
  }

  /// Generated pages, each changed at random: rows inserted, removed,
  /// retitled, elements replaced and attributes changed.
  @Test func changesOfGeneratedPagesApply() throws {
    var generator = SplitMix64(seed: 42)
    for _ in 0..<300 {
      let old = Self.randomTree(depth: 3, using: &generator)
      let new = Self.mutate(old, using: &generator)
      let changes = PageDiff.changes(from: old, to: new)
      #expect(Self.apply(changes, to: old) == new, "\(changes)")
    }
  }

  /// One row changed, added or removed costs the same however long the
  /// list (but for the digits of its index).
  @Test func aChangeCostsWhatChangedNotTheSizeOfTheList() throws {
    func cost(_ count: Int, _ edit: (inout [ListRow]) -> Void) throws -> Int {
      var rows = Self.rows(count)
      let old = Self.list(rows)
      edit(&rows)
      return try Self.bytes(PageDiff.changes(from: old, to: Self.list(rows)))
    }
    let edits: [(String, (inout [ListRow]) -> Void)] = [
      ("retitled", { $0[3].title = "retitled" }),
      ("inserted", { $0.insert(ListRow(id: "new", title: "new"), at: 4) }),
      ("removed", { $0.remove(at: 4) }), ("appended", { $0.append(ListRow(id: "end", title: "end")) }),
    ]
    for (name, edit) in edits {
      let small = try cost(10, edit)
      let large = try cost(1_000, edit)
      // The same, but for the digits of a row's index.
      #expect(
        small > 0 && (small...small + 4).contains(large), "\(name): \(small) bytes for 10 rows, \(large) for 1,000")
    }
    let whole = try JSONEncoder().encode(Self.list(Self.rows(1_000))).count
    #expect(try cost(1_000, edits[0].1) * 100 < whole)
  }

  // MARK: Generated trees

  private static func randomTree(depth: Int, using generator: inout SplitMix64) -> PageNode {
    let tags: [PageNode.Tag] = [.div, .p, .span, .ul, .li]
    let tag = tags[Int(generator.next() % UInt64(tags.count))]
    var attributes: [PageNode.Attribute: String] = [:]
    if generator.next() % 2 == 0 { attributes[.class] = "c\(generator.next() % 3)" }
    if generator.next() % 3 == 0 { attributes[.dataRow] = "r\(generator.next() % 4)" }
    if depth == 0 || generator.next() % 4 == 0 {
      return PageNode(tag, attributes, text: "t\(generator.next() % 5)")
    }
    let count = Int(generator.next() % 5)
    return PageNode(tag, attributes, (0..<count).map { _ in randomTree(depth: depth - 1, using: &generator) })
  }

  private static func mutate(_ node: PageNode, using generator: inout SplitMix64) -> PageNode {
    var node = node
    switch generator.next() % 7 {
    case 0: return randomTree(depth: 2, using: &generator)
    case 1: node.attributes[.class] = generator.next() % 2 == 0 ? nil : "m\(generator.next() % 3)"
    case 2 where node.text != nil: node.text = "m\(generator.next() % 5)"
    case 3 where node.text == nil:
      node.children.insert(
        randomTree(depth: 1, using: &generator), at: Int(generator.next() % UInt64(node.children.count + 1)))
    case 4 where !node.children.isEmpty: node.children.remove(at: Int(generator.next() % UInt64(node.children.count)))
    default: break
    }
    node.children = node.children.map { generator.next() % 3 == 0 ? mutate($0, using: &generator) : $0 }
    return node
  }
}
