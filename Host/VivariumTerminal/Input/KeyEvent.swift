/// One thing the person at the terminal did, as ``KeyParser`` reads it
/// from the terminal's bytes.
package enum KeyEvent: Hashable, Sendable {
  /// Text typed: one grapheme cluster (U+FFFD for bytes that are not
  /// UTF-8).
  case character(Character)
  /// Return or Enter (CR or LF).
  case enter
  /// Tab.
  case tab
  /// Shift+Tab.
  case backTab
  /// Backspace (DEL or BS).
  case backspace
  /// The Delete key (forward delete).
  case delete
  /// Escape alone; also what Alt adds before the key it modifies.
  case escape
  /// Arrow up.
  case up
  /// Arrow down.
  case down
  /// Arrow left.
  case left
  /// Arrow right.
  case right
  /// Home.
  case home
  /// End.
  case end
  /// Page Up.
  case pageUp
  /// Page Down.
  case pageDown
  /// Ctrl with a letter, as the lowercase letter: Ctrl+A is
  /// `control("a")`. Ctrl+H, Ctrl+I, Ctrl+J and Ctrl+M are the same bytes
  /// as backspace, tab and enter, and come as those.
  case control(Character)
  /// Text pasted with bracketed paste on: text to insert, never keys to
  /// obey. Bytes that are not UTF-8 are U+FFFD; line breaks are as the
  /// terminal sent them (usually CR).
  case paste(String)
  /// A mouse button, motion or wheel (xterm SGR mouse reports).
  case mouse(MouseEvent)
  /// A sequence or control byte that was not understood, shown printable
  /// (ESC as `\e`, other control and non-ASCII bytes as `\xHH`), for
  /// diagnostics.
  case unknown(String)
}
