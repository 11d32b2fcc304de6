import VivariumTerminal

/// Text being edited in place: the characters and a cursor between them.
/// Left/Right, Home/End, Backspace/Delete, typing and paste. It holds at
/// most ``longest`` characters: what is typed or pasted beyond is dropped,
/// so no input makes a field, and each edit of it, grow without end.
struct FieldEditor: Equatable {
  /// The most characters a field holds: as much as a paste brings.
  static let longest = KeyParser.pasteLimit

  private(set) var characters: [Character]
  /// The cursor: how many characters are before it.
  private(set) var cursor: Int

  /// Editing `text`, the cursor at its end.
  init(_ text: String) {
    characters = Array(text)
    cursor = characters.count
  }

  var text: String { String(characters) }

  /// Applies `key`; true if the text changed. Keys that are not editing
  /// keys change nothing.
  mutating func apply(_ key: KeyEvent) -> Bool {
    switch key {
    case .character(let character):
      return insert(String(character))
    case .paste(let text):
      // A field is one line: a pasted newline or tab becomes a space.
      return insert(text.oneLine)
    case .backspace:
      guard cursor > 0 else { return false }
      cursor -= 1
      characters.remove(at: cursor)
      return true
    case .delete:
      guard cursor < characters.count else { return false }
      characters.remove(at: cursor)
      return true
    case .left: cursor = max(cursor - 1, 0)
    case .right: cursor = min(cursor + 1, characters.count)
    case .home: cursor = 0
    case .end: cursor = characters.count
    case .control("a"): cursor = 0
    case .control("e"): cursor = characters.count
    case .control("u"):
      guard cursor > 0 else { return false }
      characters.removeSubrange(0..<cursor)
      cursor = 0
      return true
    default: break
    }
    return false
  }

  /// The part of `shown` (text as drawn, a character per character typed)
  /// that fits `columns` with the cursor at `cursor` in view, and the
  /// cursor's column within it.
  static func window(_ shown: String, cursor: Int, columns: Int) -> (text: String, cursorColumn: Int) {
    let characters = Array(shown)
    let cursor = min(cursor, characters.count)
    let first = max(0, cursor - (columns - 1))
    return (String(characters[first...]), DisplayWidth.of(String(characters[first..<cursor])))
  }

  /// Puts `text` at the cursor, which moves past it, as much of it as
  /// fits in ``longest``; true if any did.
  @discardableResult
  mutating func insert(_ text: String) -> Bool {
    let new = Array(text.prefix(max(FieldEditor.longest - characters.count, 0)))
    characters.insert(contentsOf: new, at: cursor)
    cursor += new.count
    return !new.isEmpty
  }

  /// Replaces the whole text, the cursor at its end.
  mutating func replace(with text: String) {
    self = FieldEditor(text)
  }

  /// Whether `key` is one an editor uses (so it is not a shortcut while editing).
  static func handles(_ key: KeyEvent) -> Bool {
    switch key {
    case .character, .paste, .backspace, .delete, .left, .right, .home, .end, .control("a"), .control("e"),
      .control("u"):
      true
    default: false
    }
  }
}
