import Testing
import ViperKit

@testable import VivariumServe

/// How view nodes become the page's elements where the choice is the
/// renderer's own: names a screen reader says, and what never travels.
@Suite struct PageRendererTests {
  /// The listbox at `address` in `page`, if any.
  static func listbox(_ address: String, in page: PageNode) -> PageNode? {
    if page.attributes[.role] == "listbox", page.attributes[.dataAddress] == address { return page }
    return page.children.lazy.compactMap { listbox(address, in: $0) }.first
  }

  @Test func aListIsNamedByTheHeadingAboveItAndByItsIdWithoutOne() throws {
    let rows = [ListRow(id: "1", title: "one")]
    let page = PageRenderer.node(
      .stack(
        .vertical,
        [
          .list(id: "first", rows: rows), .heading("Favourites"), .text("what you kept"),
          .stack(.horizontal, [.list(id: "kept", rows: rows)]), .heading("Recent"), .list(id: "recent", rows: rows),
        ]))
    #expect(try #require(Self.listbox("first", in: page)).attributes[.ariaLabel] == "first")
    #expect(try #require(Self.listbox("kept", in: page)).attributes[.ariaLabel] == "Favourites")
    #expect(try #require(Self.listbox("recent", in: page)).attributes[.ariaLabel] == "Recent")
  }

  @Test func aModulesFirstHeadingTitlesItAndLaterOnesAreOneLevelBelow() {
    func tags(_ page: PageNode) -> [PageNode.Tag] {
      [page.tag].filter { [.h2, .h3, .h4, .h5].contains($0) } + page.children.flatMap(tags)
    }
    let tree = ViewNode.stack(.vertical, [.heading("Settings"), .text("yours"), .heading("weather.units")])
    #expect(tags(PageRenderer.node(tree)) == [.h2, .h3])
    #expect(tags(PageRenderer.node(tree, depth: 1)) == [.h3, .h4])
    #expect(tags(PageRenderer.node(tree, depth: 2)) == [.h4, .h5])
    // A heading inside a nested stack counts for the headings after it.
    let nested = ViewNode.stack(
      .vertical, [.stack(.horizontal, [.heading("Wallet"), .button(id: "b", title: "B")]), .heading("History")])
    #expect(tags(PageRenderer.node(nested)) == [.h2, .h3])
    #expect(tags(PageRenderer.node(tree, depth: 5)) == [.h4, .h5], "no deeper than h5")
  }

  @Test func aSecretFieldSendsOnlyHowLongItsTextIs() throws {
    let page = PageRenderer.node(.secretField(id: "pin", label: "PIN", length: 4))
    let input = try #require(page.children.first { $0.tag == .input })
    #expect(input.attributes[.type] == "password")
    #expect(input.attributes[.dataLength] == "4")
    #expect(input.attributes[.value] == nil)
  }
}
