import VivariumSupport

/// A command-line mistake: printed on stderr with a pointer to `--help`, exit 2.
struct UsageError: Error {
  let message: String
  init(_ message: String) { self.message = message }
}

/// One option a command accepts: a ``FlagOption`` or a ``ValueOption``.
/// Declared once, as a static constant; a command lists it in its options,
/// and its code reads it through that constant, never by its name.
protocol CommandOption: Sendable {
  /// The name after `--`.
  var name: String { get }
  /// What its value is called in help and errors (`DIR`), nil for a flag.
  var valueName: String? { get }
  var help: String { get }
}

extension CommandOption {
  /// As it is written on the command line: `--name`.
  var spelling: String { "--" + name }
}

/// `--name`: a flag, given or not.
struct FlagOption: CommandOption {
  let name: String
  let help: String
  var valueName: String? { nil }

  init(_ name: String, _ help: String) {
    self.name = name
    self.help = help
  }

  /// The same flag, described for a command where it does something more
  /// particular: read through either, it is one option.
  func described(_ help: String) -> FlagOption { FlagOption(name, help) }
}

/// `--name VALUE`, possibly repeated.
struct ValueOption: CommandOption {
  let name: String
  /// What its value is called: `DIR`.
  let value: String
  let help: String
  var valueName: String? { value }

  init(_ name: String, _ value: String, _ help: String) {
    self.name = name
    self.value = value
    self.help = help
  }
}

/// Parsed arguments: positionals, flags and option values in order. Options
/// are read through their declarations: ``has(_:)`` a flag, ``all(_:)`` the
/// values of a value option.
struct ParsedArguments {
  var positionals: [String] = []
  fileprivate var flags: Set<String> = []
  fileprivate var values: [String: [String]] = [:]

  /// Whether the flag was given.
  func has(_ flag: FlagOption) -> Bool { flags.contains(flag.name) }
  /// Every value given to the option, in order.
  func all(_ option: ValueOption) -> [String] { values[option.name] ?? [] }
  /// Whether the option, a flag or a value option, was given at all.
  func isGiven(_ option: any CommandOption) -> Bool { flags.contains(option.name) || values[option.name] != nil }

  /// Adds `more` after the values given to `option`.
  mutating func append(_ more: [String], to option: ValueOption) { values[option.name, default: []] += more }
}

/// Parses `--name`, `--name VALUE`, `--name=VALUE`, `-h`, and `--` (the rest
/// are positionals). Unknown options (with the closest known one suggested)
/// and missing values are usage errors.
enum OptionParser {
  static func parse(_ arguments: [String], options: [any CommandOption]) throws -> ParsedArguments {
    var result = ParsedArguments()
    let names = options.map(\.spelling)
    var index = 0
    while index < arguments.count {
      let argument = arguments[index]
      index += 1
      if argument == "--" {
        result.positionals += arguments[index...]
        break
      }
      if argument == "-h" {
        result.flags.insert(helpOption.name)
        continue
      }
      guard argument.hasPrefix("--"), argument.count > 2 else {
        if argument.hasPrefix("-"), argument.count > 1 {
          throw UsageError("unknown option '\(argument)'" + Suggestion.didYouMean(argument, among: names))
        }
        result.positionals.append(argument)
        continue
      }
      let body = argument.dropFirst(2)
      let name = String(body.prefix { $0 != "=" })
      let inline = body.firstIndex(of: "=").map { String(body[body.index(after: $0)...]) }
      guard let spec = options.first(where: { $0.name == name }) else {
        throw UsageError("unknown option '--\(name)'" + Suggestion.didYouMean("--" + name, among: names))
      }
      guard let valueName = spec.valueName else {
        if inline != nil { throw UsageError("option '--\(name)' takes no value") }
        result.flags.insert(name)
        continue
      }
      let value: String
      if let inline {
        value = inline
      } else if index < arguments.count {
        value = arguments[index]
        index += 1
      } else {
        throw UsageError("option '--\(name)' needs a value: --\(name) \(valueName)")
      }
      result.values[name, default: []].append(value)
    }
    return result
  }
}
