extension SessionCommand {
  /// Every session command, the one place each is declared: how it is
  /// spelt, what follows its name, and what the help says it does. The help,
  /// the names completed and suggested, the usage errors and
  /// ``SessionCommand/parse(_:)``'s dispatch are all derived from it.
  package enum Name: String, CaseIterable, Sendable {
    case tap, select, type, open, back, dismiss, ok, cancel, run, wait, screen, tree, routes, plugins, log, help, quit

    /// Other spellings of the command, which parse as it but are not
    /// listed, completed or suggested.
    package var aliases: [String] {
      switch self {
      case .quit: ["exit"]
      case .tap, .select, .type, .open, .back, .dismiss, .ok, .cancel, .run, .wait, .screen, .tree, .routes, .plugins,
        .log, .help:
        []
      }
    }

    /// The words that follow the name (`ADDRESS ROW` for `select`); empty
    /// for a command that takes none.
    package var arguments: String {
      switch self {
      case .tap: "ADDRESS"
      case .select: "ADDRESS ROW"
      case .type: "ADDRESS TEXT"
      case .open: "URN"
      case .run: "COMMAND"
      case .wait: "DURATION"
      case .log: "[PLUGIN] [LEVEL]"
      case .back, .dismiss, .ok, .cancel, .screen, .tree, .routes, .plugins, .help, .quit: ""
      }
    }

    /// The flags the command may take instead, each with what it does then
    /// (`tree --link`): the help gives each its own line.
    package var options: [(flag: String, does: String)] {
      switch self {
      case .tree: [("--link", "where you are, as a deep link to share")]
      case .tap, .select, .type, .open, .back, .dismiss, .ok, .cancel, .run, .wait, .screen, .routes, .plugins, .log,
        .help, .quit:
        []
      }
    }

    /// What the command does, in one line of the help.
    package var summary: String {
      switch self {
      case .tap: "tap a button"
      case .select: "select row ROW of a list"
      case .type: "put TEXT in a field (the rest of the line)"
      case .open: "push a module; a deep link a:b/c:d replaces everything shown"
      case .back: "pop the top screen, or close the top modal"
      case .dismiss: "close the top modal presentation"
      case .ok: "acknowledge the alert on screen, or confirm its question"
      case .cancel: "answer the question on screen with its cancel answer"
      case .run: "run a command a module on screen offers; its id alone runs it too"
      case .wait: "let time pass, e.g. wait 5s, wait 300ms, wait 2m"
      case .screen: "draw the screen again"
      case .tree: "the live module tree, with each module's plugin"
      case .routes: "every module the plugins offer"
      case .plugins: "every plugin file, loaded or rejected"
      case .log: "the latest log lines; of PLUGIN, at LEVEL and above"
      case .help: "this list"
      case .quit: "end the session"
      }
    }

    /// The command's lines in the help: each a way to type it and what
    /// that does.
    var helpLines: [(form: String, does: String)] {
      [(words(rawValue, arguments), summary)] + options.map { (rawValue + " " + $0.flag, $0.does) }
    }

    /// The command `spelling` names, its name or an alias; nil for none.
    package init?(spelling: String) {
      guard let name = Self.allCases.first(where: { $0.rawValue == spelling || $0.aliases.contains(spelling) })
      else { return nil }
      self = name
    }

    /// The usage line for the command as `spelling` typed it, e.g.
    /// `usage: tap ADDRESS`, or `usage: exit`.
    func usage(as spelling: String) -> String {
      "usage: " + words(spelling, arguments, options.map { "[\($0.flag)]" }.joined(separator: " "))
    }

    /// `parts` that are not empty, a space between each.
    private func words(_ parts: String...) -> String {
      parts.filter { !$0.isEmpty }.joined(separator: " ")
    }
  }

  /// How wide the help's forms are padded, so that what each does lines up.
  private static let helpFormWidth = 23

  /// The command list `help` prints.
  package static let commandList =
    """
    Commands. ADDRESS is an element id, e.g. deleteAll or tabs/items, and ROW a row id
    of that list: the line session draws both in parentheses; full screen names the
    focused element's on its bottom line, and Tab completes addresses.

    """
    + Name.allCases.flatMap(\.helpLines).map { line in
      "  " + line.form + String(repeating: " ", count: max(1, helpFormWidth - line.form.count)) + line.does + "\n"
    }.joined()
    + "Lines starting with # are comments."

  /// Every command's name, as a person types it (aliases such as `exit` aside).
  package static let names = Name.allCases.map(\.rawValue)
}

extension SessionCommand {
  /// Which command this is.
  package var name: Name {
    switch self {
    case .tap: .tap
    case .select: .select
    case .type: .type
    case .open: .open
    case .back: .back
    case .dismiss: .dismiss
    case .ok: .ok
    case .cancel: .cancel
    case .run: .run
    case .wait: .wait
    case .screen: .screen
    case .tree: .tree
    case .routes: .routes
    case .plugins: .plugins
    case .log: .log
    case .help: .help
    case .quit: .quit
    }
  }
}
