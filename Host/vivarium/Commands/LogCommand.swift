import Foundation
import Glibc
import Synchronization
import ViperKit
import VivariumLoading
import VivariumRuntime
import VivariumSupport
import VivariumTerminal

/// `vivarium log`: the host's log in the data directory, of one plugin and
/// at a level and above; followed as it is written; a plugin's level set.
enum LogCommand: Command {
  static let name = "log"
  static let summary = "Show the log, of one plugin, at a level and above; follow it; set a plugin's log level."
  static let synopsis =
    "vivarium log [--plugin PLUGIN] [--level LEVEL] [--follow] [--json] [--plugins DIR]... [--data DIR] | --plugin PLUGIN --set-level LEVEL [--plugins DIR]... [--data DIR]"
  static let details =
    """
    Prints the log of the data directory, oldest first: vivarium.log, and before it \
    vivarium.log.1, the one it replaced when it grew past its size. Each line is TIME LEVEL \
    [PLUGIN] MODULE: MESSAGE, PLUGIN the declared name of the plugin whose line it is (the \
    host's own lines, and lines written before lines named their plugin, have none). --plugin \
    PLUGIN (its file, its file's name without lib and .so, or its declared name) shows its \
    lines only, --level LEVEL those at LEVEL and above. --follow shows the last 10 lines, then \
    each line as it is written, following the log when it is renamed, until Ctrl-C or SIGTERM. \
    --json writes each line as a JSON object (time, level, plugin, module, message; a line of \
    another form as line).

    --set-level LEVEL with --plugin sets the level the plugin logs at: the host drops each line \
    it logs below it (debug, the lowest, keeps every line, as for a plugin with no level set). \
    It is kept in log-levels.json in the data directory, by the plugin's declared name; an app \
    running on the data directory follows it within a second.
    """ + "\n\nLevels, the least severe first: " + levelNames + "."
  static let plugin = ValueOption(
    "plugin", "PLUGIN",
    "Only the lines of PLUGIN: its file, its file's name without lib and .so, or its declared name.")
  static let level = ValueOption("level", "LEVEL", "Only the lines at LEVEL and above: \(levelNames).")
  static let follow = FlagOption(
    "follow", "Show the last 10 lines, then each line as it is written, until Ctrl-C or SIGTERM.")
  static let setLevel = ValueOption(
    "set-level", "LEVEL",
    "With --plugin: the level PLUGIN logs at from now on, kept in the data directory; lines below it are dropped.")
  static let options: [any CommandOption] = [
    plugin, level, follow, setLevel, CommonOptions.json, CommonOptions.plugins, CommonOptions.data,
    CommonOptions.inProcess, CommonOptions.noCache,
  ]
  static let exitCodes = """
    0 the log was shown (or followed until Ctrl-C or SIGTERM), or the level saved; 1 PLUGIN names no \
    plugin or several, a --plugins path does not exist, the log cannot be read, or the level cannot be \
    saved (a damaged log-levels.json is never overwritten); 2 usage error (an unknown LEVEL, --set-level \
    without --plugin).
    """

  /// The levels, as a person writes them.
  static var levelNames: String { LogLevel.allCases.map(\.rawValue).joined(separator: ", ") }
  /// How many lines `--follow` shows of what was written before it started.
  static let followedBefore = 10

  static func run(_ arguments: ParsedArguments, _ console: Console) async throws -> Int32 {
    if let word = arguments.positionals.first {
      throw UsageError("unexpected '\(word)'; name a plugin with --plugin PLUGIN")
    }
    let minimum = try level(given: level, arguments)
    let selector = arguments.all(plugin).last
    if let newLevel = try level(given: setLevel, arguments) {
      guard let selector else {
        throw UsageError("--set-level needs --plugin PLUGIN: the plugin whose level it sets")
      }
      let others: [any CommandOption] = [level, follow, CommonOptions.json]
      if let other = others.first(where: arguments.isGiven) {
        throw UsageError("--set-level takes no \(other.spelling); give it with --plugin alone")
      }
      return try set(newLevel, of: selector, arguments, console)
    }
    let data = RuntimeSetup.dataDirectory(arguments, console)
    let filter = Filter(plugin: try selector.map { try pluginName($0, arguments, console, data: data) }, level: minimum)
    let show = { (line: String) in write(line, filter, arguments, console) }
    var problems = 0
    let say = { (problem: String?) in
      guard let problem else { return }
      console.error(name, problem)
      problems += 1
    }
    var previous = LogTail(dataDirectory: data, file: LogRecord.previousFileName)
    var tail = LogTail(dataDirectory: data)
    let (before, beforeProblem) = previous.read()
    previous.close()
    say(beforeProblem)
    let (current, currentProblem) = tail.read()
    say(currentProblem)
    let written = before + (previous.unfinished.map { [$0] } ?? []) + current
    guard arguments.has(follow) else {
      for line in written + (tail.unfinished.map { [$0] } ?? []) { show(line) }
      return problems == 0 ? ExitCode.success : ExitCode.failure
    }
    for line in written.filter(filter.keeps).suffix(followedBefore) { show(line) }
    let stop = stopOnSignals()
    while !stop.asked.load(ordering: .relaxed) {
      try? await Task.sleep(for: .milliseconds(200))
      let (lines, problem) = tail.read()
      say(problem)
      for line in lines { show(line) }
    }
    return ExitCode.success
  }

  /// Which lines are shown.
  struct Filter {
    /// The declared name of the plugin whose lines are shown; nil: every line's.
    let plugin: String?
    /// The lowest level shown; nil: every line, those of another form too.
    let level: LogLevel?

    /// Whether `line` is shown.
    func keeps(_ line: String) -> Bool {
      guard plugin != nil || level != nil else { return true }
      guard let record = LogRecord(parsing: line[...]) else { return false }
      return (plugin.map { record.plugin == TerminalText.visible($0) } ?? true)
        && (level.map { record.level >= $0 } ?? true)
    }
  }

  /// Writes `line` if `filter` keeps it: as it is, its level coloured on a
  /// terminal, or as a JSON object.
  private static func write(_ line: String, _ filter: Filter, _ arguments: ParsedArguments, _ console: Console) {
    guard filter.keeps(line) else { return }
    let record = LogRecord(parsing: line[...])
    if arguments.has(CommonOptions.json) {
      if let record { return console.jsonLine(record) }
      return console.jsonLine(["line": line])
    }
    guard let record, let tone = tone(record.level) else { return console.out(line.oneLineVisible) }
    let rest = String(line.dropFirst(record.time.count + record.level.rawValue.count + 2))
    console.out(
      record.time.oneLineVisible + " " + console.style.tone(tone, record.level.rawValue) + " " + rest.oneLineVisible)
  }

  /// How a level stands out on a terminal; nil: plain.
  private static func tone(_ level: LogLevel) -> Tone? {
    switch level {
    case .error: .negative
    case .warning: .warning
    default: nil
    }
  }

  /// The level `option` gives, or nil when it is not given; a usage error
  /// naming it when it is not a level.
  private static func level(given option: ValueOption, _ arguments: ParsedArguments) throws -> LogLevel? {
    guard let text = arguments.all(option).last else { return nil }
    guard let level = LogLevel(rawValue: text) else {
      let names = LogLevel.allCases.map(\.rawValue)
      throw UsageError(
        "\(option.spelling) '\(text)' is not a level\(Suggestion.didYouMean(text, among: names)); give one of \(levelNames)"
      )
    }
    return level
  }

  /// The declared name of the plugin `selector` names among those loaded
  /// (as `vivarium plugins disable` takes it), or, when it names none, a
  /// name the log holds lines of (a plugin removed since).
  private static func pluginName(_ selector: String, _ arguments: ParsedArguments, _ console: Console, data: String)
    throws -> String
  {
    do {
      return try PluginCatalogLoader.plugin(named: selector, arguments, console, command: name).name
    } catch let failure as CommandFailure {
      var previous = LogTail(dataDirectory: data, file: LogRecord.previousFileName)
      var current = LogTail(dataDirectory: data)
      defer {
        previous.close()
        current.close()
      }
      let lines = previous.read().lines + current.read().lines
      guard lines.contains(where: { LogRecord(parsing: $0[...])?.plugin == TerminalText.visible(selector) }) else {
        throw failure
      }
      return selector
    }
  }

  /// Sets the level of the plugin `selector` names, in the data directory's
  /// ``PluginLogLevels``, and says so.
  private static func set(_ level: LogLevel, of selector: String, _ arguments: ParsedArguments, _ console: Console)
    throws -> Int32
  {
    let plugin = try PluginCatalogLoader.plugin(named: selector, arguments, console, command: name)
    var levels = PluginLogLevels(dataDirectory: RuntimeSetup.dataDirectory(arguments, console))
    let changed: Bool
    do {
      changed = try levels.set(level, for: plugin.name)
    } catch {
      throw CommandFailure("\(error)")
    }
    console.out(
      "\(plugin.name.oneLineVisible) \(changed ? "now logs" : "already logs") at \(level.rawValue) and above (\(levels.path))"
    )
    return ExitCode.success
  }

  /// A flag set when SIGINT or SIGTERM arrives.
  private static func stopOnSignals() -> Stop {
    let stop = Stop()
    _ = SignalPipe.start([SIGINT, SIGTERM]) { _ in stop.asked.store(true, ordering: .relaxed) }
    return stop
  }

  /// Whether a signal asked `--follow` to stop.
  private final class Stop: Sendable {
    let asked = Atomic(false)
  }
}
