/// How a cell is drawn: a foreground colour and attributes. Attributes
/// (bold, dim, underline, reverse) are not colour and are drawn under
/// `NO_COLOR` too; the foreground colour is drawn only when colour is on.
public struct CellStyle: Hashable, Sendable {
  /// The eight basic terminal colours, numbered as in SGR 30–37.
  public enum Colour: UInt8, Hashable, Sendable {
    case black, red, green, yellow, blue, magenta, cyan, white
  }

  /// The foreground colour, or nil for the terminal's own.
  public var foreground: Colour?
  /// Bold text.
  public var bold: Bool
  /// Dimmed text.
  public var dim: Bool
  /// Underlined text.
  public var underline: Bool
  /// Foreground and background swapped: how focus shows at a glance.
  public var reverse: Bool

  /// A style; every attribute off unless given.
  public init(
    foreground: Colour? = nil, bold: Bool = false, dim: Bool = false, underline: Bool = false, reverse: Bool = false
  ) {
    self.foreground = foreground
    self.bold = bold
    self.dim = dim
    self.underline = underline
    self.reverse = reverse
  }

  /// No colour, no attribute.
  public static let plain = CellStyle()
}
