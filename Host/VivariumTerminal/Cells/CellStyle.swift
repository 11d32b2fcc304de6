/// How a cell is drawn: a foreground colour and attributes. Attributes
/// (bold, dim, underline, reverse) are not colour and are drawn under
/// `NO_COLOR` too; the foreground colour is drawn only when colour is on.
package struct CellStyle: Hashable, Sendable {
  /// The eight basic terminal colours, numbered as in SGR 30–37.
  package enum Colour: UInt8, Hashable, Sendable {
    case black, red, green, yellow, blue, magenta, cyan, white
  }

  /// The foreground colour, or nil for the terminal's own.
  package var foreground: Colour?
  /// Bold text.
  package var bold: Bool
  /// Dimmed text.
  package var dim: Bool
  /// Underlined text.
  package var underline: Bool
  /// Foreground and background swapped: how focus shows at a glance.
  package var reverse: Bool

  /// A style; every attribute off unless given.
  package init(
    foreground: Colour? = nil, bold: Bool = false, dim: Bool = false, underline: Bool = false, reverse: Bool = false
  ) {
    self.foreground = foreground
    self.bold = bold
    self.dim = dim
    self.underline = underline
    self.reverse = reverse
  }

  /// No colour, no attribute.
  package static let plain = CellStyle()
}
