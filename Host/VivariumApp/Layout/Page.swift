import VivariumTerminal

/// What focus rests on: an element's address, and for a list the row's id.
package struct FocusKey: Hashable, Sendable {
  /// The element's address (`slot/id` for embedded modules).
  package let address: String
  /// The row's id, for a list row.
  package let row: String?

  /// Focus on the element at `address`, or on row `row` of that list.
  package init(_ address: String, row: String? = nil) {
    self.address = address
    self.row = row
  }
}

/// A place on a page a person can focus and act on.
package struct Hotspot: Equatable, Sendable {
  /// What kind of element it is, with what acting on it needs.
  package enum Kind: Equatable, Sendable {
    /// A button: Enter taps it.
    case button(title: String)
    /// Row `index` (0-based) of `count` in a list: Enter selects it.
    case row(index: Int, count: Int)
    /// A field showing `value`; a secret field shows only `length` dots.
    case field(value: String, secretLength: Int?)
  }

  /// Its focus key.
  package let key: FocusKey
  /// What it is.
  package let kind: Kind
  /// The page row it is drawn on.
  package let row: Int
  /// Its first column.
  package let x: Int
  /// Its width in columns.
  package let width: Int
}

/// A view laid out at a width, as tall as it needs: rows of cells and the
/// hotspots on them, in screen order. A window shows part of it.
struct Page {
  let width: Int
  private(set) var rows: [Grid] = []
  private(set) var hotspots: [Hotspot] = []
  /// Where the terminal cursor goes (the field being edited), page coordinates.
  var cursor: Grid.Point?

  init(width: Int) {
    self.width = max(width, 1)
  }

  var height: Int { rows.count }

  /// Adds an empty row and returns its index.
  mutating func addRow() -> Int {
    rows.append(Grid(width: width, height: 1))
    return rows.count - 1
  }

  /// Writes `text` on `row` from column `x`, cut at `limit`; returns the
  /// column after it.
  @discardableResult
  mutating func put(_ text: some StringProtocol, x: Int, row: Int, style: CellStyle = .plain, limit: Int? = nil) -> Int
  {
    rows[row].put(text, x: x, y: 0, style: style, limit: limit)
  }

  /// Changes the style of `width` cells of `row` from `x`.
  mutating func restyle(row: Int, x: Int, width: Int, _ change: (inout CellStyle) -> Void) {
    rows[row].restyle(x: x, y: 0, width: width, change)
  }

  mutating func add(_ hotspot: Hotspot) { hotspots.append(hotspot) }
}
