import Foundation
import ViperKitHosting
import VivariumSupport
import VivariumTools

/// `vivarium check`: conformance checks on plugin files.
enum CheckCommand: Command {
  static let name = "check"
  static let summary = "Run the conformance checks on plugin files before shipping them."
  static let synopsis =
    "vivarium check (PLUGIN.so... | --app DIR [--without PLUGIN]... [--data DIR]) [--strictness 1-10] [--only PATTERN]... [--skip PATTERN]... [--timeout SECONDS] [--json] [--in-process]"
  static let details = """
    Runs every check listed in Host/SDK/TestKit/CHECKS.md on each file (a directory means
    every .so in it; the SDK's own libraries there are skipped, as in a build folder):
    loading and the descriptor, then each module's contract, building,
    presentation, composition, leaks, concurrency and speed. Each check runs in a child
    process with a time limit, so a plugin that traps, segfaults or hangs is reported as
    crashed or timed out and the other checks and files still run. Results: passed,
    warning, failed, crashed, timed out, skipped. Strictness 1 runs the cheap, always-safe
    checks; higher levels add interaction, leaks, fuzzing and concurrency (default 5).
    PATTERN is a check name, an area such as build, or a prefix ending in *; a
    PATTERN that matches no check is a usage error.

    With --app DIR: proves from the contracts, without running a module, that the app
    the directory and its vivarium-app.json make up holds together: the start opens;
    every push, present, replace and slot pattern a contract declares resolves to
    exactly one module, passing arguments it takes with their types and all it
    requires; every output a module expects back is one its target declares, with the
    same fields; every module is reachable from the start (with a scheme, those only a
    deep link reaches are listed). Each finding has a stable name, the files involved
    and what to change. For each plugin turned off in the data directory (vivarium plugins
    disable), and each named with --without, a note says what stops working without it:
    the start, the links of other plugins' modules into its modules, and what requires a
    business service it provides.
    """ + "\n\nFindings: " + AppFinding.names.map { "\($0.name), \($0.meaning)" }.joined(separator: "; ") + "."
  static let strictness = ValueOption("strictness", "N", "How deep to go, 1 to 10 (default 5).")
  static let only = ValueOption("only", "PATTERN", "Run only checks matching PATTERN (repeatable).")
  static let skip = ValueOption("skip", "PATTERN", "Skip checks matching PATTERN (repeatable).")
  static let timeout = ValueOption("timeout", "SECONDS", "Time limit of each check (default 30).")
  static let app = ValueOption("app", "DIR", "Check the whole app in the plugin directory DIR instead of plugin files.")
  static let without = ValueOption(
    "without", "PLUGIN",
    "With --app: say what stops working when PLUGIN (its declared name) is turned off (repeatable).")
  static let list = FlagOption(
    "list", "List the checks (those --only and --skip select): name, strictness, what each verifies.")
  static let inProcess = CommonOptions.inProcess.described(
    "Load the plugin in this process and run every check in one vivarium-check process without a time limit, for debuggers; a crash then ends the run."
  )
  static let options: [any CommandOption] = [
    strictness, only, skip, timeout, app, without, CommonOptions.data, list, CommonOptions.json, inProcess,
  ]
  static let exitCodes =
    "0 nothing failed, crashed or timed out (warnings and notes allowed); 1 something did, a file named does not exist, or --app found a failure; 2 usage error."

  /// One check, as `--list --json` prints it.
  struct Listed: Encodable {
    let name: String
    let level: Int
    let scope: String
    let verifies: String
    let why: String
    let fix: String
  }

  static func run(_ arguments: ParsedArguments, _ console: Console) throws -> Int32 {
    if !arguments.all(app).isEmpty { return try checkApp(arguments, console) }
    for option in [without, CommonOptions.data] where arguments.isGiven(option) {
      throw UsageError("\(option.spelling) applies to --app: give the app's plugin directory with --app DIR")
    }
    let only = arguments.all(Self.only)
    let skip = arguments.all(Self.skip)
    try validate(only, option: Self.only)
    try validate(skip, option: Self.skip)
    if arguments.has(list) {
      let selected = ConformanceCheck.all.filter { check in
        (only.isEmpty || only.contains { ConformanceCheck.matches(check.name, pattern: $0) })
          && !skip.contains { ConformanceCheck.matches(check.name, pattern: $0) }
      }
      let checks = selected.map {
        Listed(
          name: $0.name, level: $0.level, scope: $0.scope.rawValue, verifies: $0.verifies, why: $0.why, fix: $0.fix)
      }
      if arguments.has(CommonOptions.json) {
        console.json(checks)
      } else {
        for check in checks {
          console.out(
            console.style.bold(check.name) + console.style.dim("  strictness \(check.level), per \(check.scope)"))
          console.out(
            TextRenderer.wrap(check.verifies, width: console.width - 4).map { "    " + $0 }.joined(separator: "\n"))
        }
      }
      return ExitCode.success
    }
    guard !arguments.positionals.isEmpty else {
      throw UsageError("name at least one plugin file, e.g. 'vivarium check .build/debug/libItemsList.so'")
    }
    let strictness = try number(arguments, Self.strictness, default: 5, range: 1...10)
    let timeout = try number(arguments, Self.timeout, default: 30, range: 1...3600)
    var files: [String] = []
    for path in arguments.positionals {
      var isDirectory: ObjCBool = false
      guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
        throw CommandFailure("there is no file '\(path)'; give the path of a plugin .so file")
      }
      if isDirectory.boolValue {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
        files += names.filter { $0.hasSuffix(".so") }.sorted().map { (path as NSString).appendingPathComponent($0) }
      } else {
        files.append(path)
      }
    }
    let host = PluginCatalogLoader.executablePath
    let runner: String
    do {
      runner = try PluginChecker.runner(besides: host)
    } catch {
      throw CommandFailure(error.description)
    }
    let checker = PluginChecker(
      strictness: strictness, only: only, skip: skip, runner: runner, host: host,
      timeout: arguments.has(inProcess) ? nil : .seconds(timeout))
    let report = CheckReport(
      strictness: strictness, plugins: files.map { CheckReport.Plugin(path: $0, results: checker.check($0)) })
    if arguments.has(CommonOptions.json) {
      console.json(report)
    } else {
      console.out(report.text(style: console.style, width: console.terminalWidth))
    }
    return report.failed ? ExitCode.failure : ExitCode.success
  }

  /// Throws a usage error for a pattern that matches no check, suggesting
  /// the closest check name or area.
  private static func validate(_ patterns: [String], option: ValueOption) throws {
    let names = ConformanceCheck.all.map(\.name)
    for pattern in patterns where !names.contains(where: { ConformanceCheck.matches($0, pattern: pattern) }) {
      var areas: [String] = []
      for name in names {
        let area = String(name.prefix { $0 != "." })
        if !areas.contains(area) { areas.append(area) }
      }
      let hint = Suggestion.didYouMean(
        pattern, among: areas + names, otherwise: "; areas: \(areas.joined(separator: ", "))")
      throw UsageError(
        "\(option.spelling) '\(pattern)' matches no check\(hint). 'vivarium check --list' lists every check")
    }
  }

  private static func number(
    _ arguments: ParsedArguments, _ option: ValueOption, default value: Int, range: ClosedRange<Int>
  ) throws -> Int {
    guard let text = arguments.all(option).last else { return value }
    guard let number = Int(text), range.contains(number) else {
      throw UsageError(
        "\(option.spelling) takes a whole number from \(range.lowerBound) to \(range.upperBound), got '\(text)'")
    }
    return number
  }
}
