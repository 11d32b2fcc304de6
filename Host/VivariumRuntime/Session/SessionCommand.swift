import Foundation
import ViperKit
import ViperKitHosting
import VivariumSupport

/// One line a person types in `vivarium run`, or a script holds.
package enum SessionCommand: Equatable, Sendable {
  /// `tap ADDRESS`: tap a button.
  case tap(String)
  /// `select ADDRESS ROW`: select a list row.
  case select(String, row: String)
  /// `type ADDRESS TEXT`: fill a field.
  case type(String, text: String)
  /// `open URN`: push a module, or replace everything with a deep link.
  case open(String)
  /// `back`: pop, or close the top modal.
  case back
  /// `dismiss`: close the top modal.
  case dismiss
  /// `ok`: acknowledge the alert, or answer the question with its confirming answer.
  case ok
  /// `cancel`: answer the question with its cancelling answer.
  case cancel
  /// `run COMMAND`, or the command's id alone: run a command a module on
  /// the current screen offers (``HostRuntime/screenCommands()``).
  case run(String)
  /// `wait DURATION`: let time pass (seconds), then let work settle.
  case wait(Double)
  /// `screen`: draw the screen again.
  case screen
  /// `tree`: the live module tree; `tree --link`: the main stack as a deep
  /// link (``HostRuntime/link(scheme:)``) instead.
  case tree(link: Bool)
  /// `routes`: the catalog.
  case routes
  /// `plugins`: the plugin report.
  case plugins
  /// `log [PLUGIN] [LEVEL]`: the latest log lines, of PLUGIN (as a person
  /// names it: its file, its file's name without `lib` and `.so`, or its
  /// declared name) and at LEVEL and above when given.
  case log(plugin: String?, level: LogLevel?)
  /// `help`: the command list.
  case help
  /// `quit` or `exit`: end the session.
  case quit

  /// Why a line is not a command, with what to type instead.
  package struct ParseError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Stable names of the problems, for tests.
    package enum Kind: String, Sendable {
      /// A known command with the wrong words after it: the message is its usage.
      case usage
      case unknownCommand = "unknown-command"
      /// `wait` with no duration, or one out of range.
      case badDuration = "bad-duration"
      /// `log PLUGIN LEVEL` whose LEVEL is not a log level.
      case badLevel = "bad-level"
    }

    /// Which problem it is.
    package let kind: Kind
    /// The sentence for the person.
    package let message: String
    /// The message.
    package var description: String { message }

    init(_ kind: Kind, _ message: String) {
      self.kind = kind
      self.message = message
    }
  }

  /// Parses `line`; nil for a blank line or a comment. A word that is no
  /// command's name but one of `commands`, alone on the line, runs that
  /// command (`run` it).
  package static func parse(_ line: String, commands: [String] = []) throws(ParseError) -> SessionCommand? {
    let trimmed = line.trimmingCharacters(in: .whitespaces)
    guard !trimmed.isEmpty, !trimmed.hasPrefix("#") else { return nil }
    let words = trimmed.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
    let name = words[0]
    let rest = Array(words.dropFirst())
    guard let command = Name(spelling: name) else {
      if rest.isEmpty, commands.contains(name) { return .run(name) }
      throw ParseError(
        .unknownCommand,
        "unknown command '\(name)'"
          + Suggestion.didYouMean(name, among: names + commands, otherwise: "; type 'help' for the list"))
    }
    // What may follow the name, as the command declares it: `type`'s TEXT
    // is the rest of the line, and a command with flags takes one of them.
    let arity = command.arguments.split(separator: " ").count
    let fits =
      switch command {
      case .type: rest.count >= 1
      case .tree: rest.isEmpty || command.options.contains { [$0.flag] == rest }
      case .log: rest.count <= arity
      default: rest.count == arity
      }
    guard fits else { throw ParseError(.usage, command.usage(as: name)) }
    switch command {
    case .tap: return .tap(rest[0])
    case .select: return .select(rest[0], row: rest[1])
    case .type:
      let text = trimmed.dropFirst(name.count).trimmingCharacters(in: .whitespaces).dropFirst(rest[0].count)
      return .type(rest[0], text: unquote(text.trimmingCharacters(in: .whitespaces)))
    case .open: return .open(rest[0])
    case .wait: return .wait(try duration(rest[0]))
    case .tree: return .tree(link: !rest.isEmpty)
    case .back: return .back
    case .dismiss: return .dismiss
    case .ok: return .ok
    case .cancel: return .cancel
    case .run: return .run(rest[0])
    case .screen: return .screen
    case .routes: return .routes
    case .plugins: return .plugins
    case .log: return try log(rest)
    case .help: return .help
    case .quit: return .quit
    }
  }

  /// The line shown and recorded in place of `type ADDRESS TEXT` into a
  /// secret field: the text as a dot per character, as the field draws it.
  package static func secretType(_ address: String, length: Int) -> String {
    (["type", address] + (length > 0 ? [String(repeating: "•", count: length)] : [])).joined(separator: " ")
  }

  /// The longest `wait`: a day.
  static let longestWait: Double = 86_400

  /// `5s`, `300ms`, `2m`, `1h` or a bare number of seconds, in seconds.
  static func duration(_ text: String) throws(ParseError) -> Double {
    let units: [(suffix: String, seconds: Double)] = [("ms", 0.001), ("s", 1), ("m", 60), ("h", 3600), ("", 1)]
    for unit in units where text.hasSuffix(unit.suffix) {
      guard let number = Double(text.dropLast(unit.suffix.count)), number.isFinite else { continue }
      let seconds = number * unit.seconds
      guard seconds > 0, seconds <= longestWait else {
        throw ParseError(.badDuration, "wait '\(text)': give a time above 0 and at most 24h, e.g. wait 5s")
      }
      return seconds
    }
    throw ParseError(.badDuration, "wait '\(text)' is not a duration; write e.g. wait 5s, wait 300ms, wait 2m")
  }

  /// `log`'s words: a level alone, a plugin alone, or a plugin then a level.
  static func log(_ words: [String]) throws(ParseError) -> SessionCommand {
    let levels = LogLevel.allCases.map(\.rawValue)
    switch words.count {
    case 0: return .log(plugin: nil, level: nil)
    case 1:
      return LogLevel(rawValue: words[0]).map { .log(plugin: nil, level: $0) } ?? .log(plugin: words[0], level: nil)
    default:
      guard let level = LogLevel(rawValue: words[1]) else {
        throw ParseError(
          .badLevel,
          "log: '\(words[1])' is not a level\(Suggestion.didYouMean(words[1], among: levels)); give one of \(levels.joined(separator: ", ")), e.g. log \(words[0]) warning"
        )
      }
      return .log(plugin: words[0], level: level)
    }
  }

  /// Whether this is a `wait`.
  var isWait: Bool {
    if case .wait = self { return true }
    return false
  }

  private static func unquote(_ text: String) -> String {
    guard text.count >= 2, let first = text.first, first == "\"" || first == "'", text.last == first else {
      return text
    }
    return String(text.dropFirst().dropLast())
  }
}
