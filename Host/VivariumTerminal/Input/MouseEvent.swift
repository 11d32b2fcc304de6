/// A mouse report: what happened, where, and the modifier keys held.
package struct MouseEvent: Hashable, Sendable {
  /// What the mouse did. Buttons are numbered as xterm reports them:
  /// 0 left, 1 middle, 2 right; 3 in a drag is motion with no button held;
  /// 8 and up are extra buttons.
  package enum Kind: Hashable, Sendable {
    /// A button went down.
    case press(button: Int)
    /// A button came up.
    case release(button: Int)
    /// The mouse moved with the button held.
    case drag(button: Int)
    /// The wheel turned away from the person.
    case wheelUp
    /// The wheel turned towards the person.
    case wheelDown
  }

  /// What happened.
  package var kind: Kind
  /// The column, 0-based.
  package var x: Int
  /// The row, 0-based.
  package var y: Int
  /// Whether Shift was held.
  package var shift: Bool
  /// Whether Alt (Meta) was held.
  package var alt: Bool
  /// Whether Ctrl was held.
  package var control: Bool

  /// A mouse event at column `x`, row `y` (0-based).
  package init(kind: Kind, x: Int, y: Int, shift: Bool = false, alt: Bool = false, control: Bool = false) {
    self.kind = kind
    self.x = x
    self.y = y
    self.shift = shift
    self.alt = alt
    self.control = control
  }
}
