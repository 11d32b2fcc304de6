/// One column of a terminal row: a grapheme cluster and its style. A wide
/// character (CJK, most emoji) takes two cells: its own, then a
/// continuation cell with empty text that the terminal fills by itself.
package struct Cell: Hashable, Sendable {
  /// One grapheme cluster, or empty for the right half of a wide character.
  package var text: String
  /// How it is drawn.
  package var style: CellStyle

  /// A cell holding `text` (one grapheme cluster) in `style`.
  package init(_ text: String, style: CellStyle = .plain) {
    self.text = text
    self.style = style
  }

  /// A space with no style.
  package static let blank = Cell(" ")

  /// Whether this is the right half of a wide character.
  package var isContinuation: Bool { text.isEmpty }
}
