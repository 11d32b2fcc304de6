/// How a person runs a command that sees what this process sees: the same
/// plugin directories and data directory, and, inside a session, the
/// session's own command. Every hint that tells a person to run something
/// is written with one, so that running it as written is true.
package struct Invocation: Sendable, Equatable {
  /// Where the hint is read, which decides how a session's own command
  /// (`routes`, `plugins`, `log`) is named.
  package enum Place: Sendable, Equatable {
    /// On the command line: `vivarium routes --plugins DIR`.
    case commandLine
    /// In a session's lines (a script or a pipe): `routes`.
    case session
    /// In the full-screen app's command line: `:routes`.
    case fullScreen
  }

  /// The options naming the directories, as given: `--plugins DIR`...,
  /// `--data DIR`.
  package var options: [String]
  /// Where hints are read.
  package var place: Place

  /// A command line with no directories named (the defaults), read on the command line.
  package static let plain = Invocation(options: [], place: .commandLine)

  /// One that names `plugins` (each `--plugins`) and `data` (`--data`,
  /// nil: the default), read at `place`.
  package init(plugins: [String], data: String?, place: Place = .commandLine) {
    self.init(
      options: plugins.flatMap { ["--plugins", $0] } + (data.map { ["--data", $0] } ?? []), place: place)
  }

  /// One with `options`, read at `place`.
  package init(options: [String], place: Place) {
    self.options = options
    self.place = place
  }

  /// `'vivarium WORDS OPTIONS'`, quoted: a command to run in a shell, each
  /// of `words` and of the options quoted for the shell where it needs it.
  package func command(_ words: String...) -> String { command(words) }

  /// ``command(_:)-(String...)`` of `words`.
  package func command(_ words: [String]) -> String {
    "'" + (["vivarium"] + words + options).map(Self.shellWord).joined(separator: " ") + "'"
  }

  /// The session command `name` as it is given where the hint is read:
  /// `':routes'` in the full-screen app, `'routes'` in a session, else
  /// ``command(_:)``.
  package func sessionCommand(_ name: String) -> String {
    switch place {
    case .fullScreen: "':\(name)'"
    case .session: "'\(name)'"
    case .commandLine: command(name)
    }
  }

  /// The same directories, read at `place`.
  package func with(_ place: Place) -> Invocation { Invocation(options: options, place: place) }

  /// `word` as a shell reads it back: bare when it holds only safe
  /// characters, else in double quotes with `"`, `\`, `$` and `` ` `` escaped.
  static func shellWord(_ word: String) -> String {
    let safe = word.unicodeScalars.allSatisfy {
      ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0)
        || "-_./:=@%+,".unicodeScalars.contains($0)
    }
    if safe, !word.isEmpty { return word }
    var quoted = "\""
    for character in word {
      if "\"\\$`".contains(character) { quoted.append("\\") }
      quoted.append(character)
    }
    return quoted + "\""
  }
}
