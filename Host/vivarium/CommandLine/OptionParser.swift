import VivariumSupport

/// A command-line mistake: printed on stderr with a pointer to `--help`, exit 2.
struct UsageError: Error {
  let message: String
  init(_ message: String) { self.message = message }
}

/// One option a command accepts.
struct OptionSpec {
  let name: String
  let valueName: String?
  let help: String

  /// `--name`: a flag.
  static func flag(_ name: String, _ help: String) -> OptionSpec {
    OptionSpec(name: name, valueName: nil, help: help)
  }

  /// `--name VALUE`, possibly repeated.
  static func value(_ name: String, _ valueName: String, _ help: String) -> OptionSpec {
    OptionSpec(name: name, valueName: valueName, help: help)
  }
}

/// Parsed arguments: positionals, flags and option values in order.
struct ParsedArguments {
  var positionals: [String] = []
  var flags: Set<String> = []
  var values: [String: [String]] = [:]

  func has(_ flag: String) -> Bool { flags.contains(flag) }
  func all(_ option: String) -> [String] { values[option] ?? [] }
}

/// Parses `--name`, `--name VALUE`, `--name=VALUE`, `-h`, and `--` (the rest
/// are positionals). Unknown options (with the closest known one suggested)
/// and missing values are usage errors.
enum OptionParser {
  static func parse(_ arguments: [String], options: [OptionSpec]) throws -> ParsedArguments {
    var result = ParsedArguments()
    let names = options.map { "--" + $0.name }
    var index = 0
    while index < arguments.count {
      let argument = arguments[index]
      index += 1
      if argument == "--" {
        result.positionals += arguments[index...]
        break
      }
      if argument == "-h" {
        result.flags.insert("help")
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
