import Foundation

/// The `:` command line: an editor, the history of commands run (Up/Down),
/// and completion (Tab) of command names, URNs and element addresses.
struct CommandLine {
  var editor = FieldEditor("")
  /// Commands run, oldest first.
  private(set) var history: [String] = []
  /// Where Up/Down is in the history, or nil at the line being typed.
  private var position: Int?
  /// The line being typed before Up was pressed.
  private var draft = ""
  /// The candidates the last Tab found, when there were several.
  private(set) var candidates: [String] = []

  /// The most history kept.
  static let historyLimit = 200

  /// Starts a new line.
  mutating func open() {
    editor = FieldEditor("")
    position = nil
    candidates = []
  }

  /// Records `line` in the history (not a repeat of the last one).
  mutating func remember(_ line: String) {
    guard !line.isEmpty, history.last != line else { return }
    history.append(line)
    if history.count > CommandLine.historyLimit { history.removeFirst(history.count - CommandLine.historyLimit) }
  }

  /// Up: the previous command.
  mutating func previous() {
    guard !history.isEmpty else { return }
    if position == nil { draft = editor.text }
    let index = max((position ?? history.count) - 1, 0)
    position = index
    editor.replace(with: history[index])
  }

  /// Down: the next command, or the line that was being typed.
  mutating func next() {
    guard let current = position else { return }
    if current + 1 < history.count {
      position = current + 1
      editor.replace(with: history[current + 1])
    } else {
      position = nil
      editor.replace(with: draft)
    }
  }

  /// Completes the word before the cursor (the line must end there) from
  /// `candidates(words before, word)`: one match completes it and adds a
  /// space; several complete their common start and are kept to be shown.
  mutating func complete(_ candidates: (_ before: [Substring], _ word: Substring) -> [String]) {
    let text = editor.text
    guard editor.cursor == text.count else { return }
    let words = text.split(separator: " ", omittingEmptySubsequences: true)
    let word = text.hasSuffix(" ") || text.isEmpty ? Substring("") : words.last ?? ""
    let before = Array(word.isEmpty ? words[...] : words.dropLast())
    let matches = candidates(before, word).filter { $0.hasPrefix(word) }.sorted()
    self.candidates = matches.count > 1 ? matches : []
    guard let first = matches.first else { return }
    let common = matches.dropFirst().reduce(first) { String($0.commonPrefix(with: $1)) }
    let ending = matches.count == 1 && !first.hasSuffix(":") ? " " : ""
    guard common.count > word.count || !ending.isEmpty else { return }
    editor.insert(String(common.dropFirst(word.count)) + ending)
  }
}
