import Foundation
import ViperKit
import ViperKitHosting

/// Checks the arguments given for a module against its contract: from URN
/// placeholders, from the URN's `?query` and from `--arg NAME=VALUE`.
enum ArgumentBinder {
  /// The validated arguments, or an error naming the argument and the contract.
  static func bind(
    _ given: [(name: String, value: String, origin: String)], to route: Route
  ) throws(ResolveError) -> Arguments {
    let contract = route.contract
    if let arguments = bindValid(given, to: contract.arguments) { return arguments }
    // Something is wrong: checked one argument at a time, in the order given,
    // to name the first problem. Only now is a message made.
    let owner = "\(contract.urn) (\(PathName.lastComponent(route.pluginPath)))"
    var values: [String: ArgumentValue] = [:]
    var origins: [String: String] = [:]
    for (name, text, origin) in given {
      guard let spec = contract.argument(named: name) else {
        throw ResolveError(
          .unknownArgument,
          "unknown argument '\(name)' (\(origin)) for \(owner); it takes \(describe(contract.arguments))")
      }
      if let first = origins[name] {
        throw ResolveError(
          .duplicateArgument, "argument '\(name)' of \(owner) is given twice: \(first) and \(origin); give it once")
      }
      guard let value = ArgumentValue(parsing: text, as: spec.type) else {
        throw ResolveError(
          .wrongType,
          "argument '\(name)' of \(owner) must be \(article(spec.type))\(example(spec.type)), got '\(text)' (\(origin))"
        )
      }
      if !spec.choices.isEmpty, !spec.choices.contains(value) {
        throw ResolveError(
          .wrongType,
          "argument '\(name)' of \(owner) must be one of \(spec.choices.map(\.description).joined(separator: ", ")), got '\(text)' (\(origin))"
        )
      }
      values[name] = value
      origins[name] = origin
    }
    for spec in contract.arguments where values[spec.name] == nil {
      if let value = spec.defaultValue {
        values[spec.name] = value
      } else {
        throw ResolveError(
          .missingArgument,
          "missing required argument '\(spec.name)' (\(spec.type)) of \(owner); pass it with --arg \(spec.name)=VALUE or ?\(spec.name)=VALUE in the URN"
        )
      }
    }
    return Arguments(values)
  }

  /// The arguments if nothing is wrong with them: every one given is one
  /// the contract takes, given once, with a value it accepts, and every
  /// required one is given. Nil otherwise, and ``bind(_:to:)`` says what is
  /// wrong. Each spec is read once and nothing but the values is made.
  private static func bindValid(
    _ given: [(name: String, value: String, origin: String)], to specs: [ArgumentSpec]
  ) -> Arguments? {
    // Sized once: growing it rehashes what it holds.
    var values: [String: ArgumentValue] = .init(minimumCapacity: specs.count)
    var taken = 0
    for spec in specs {
      let name = spec.name
      if let index = given.firstIndex(where: { $0.name == name }) {
        guard let value = ArgumentValue(parsing: given[index].value, as: spec.type),
          spec.choices.isEmpty || spec.choices.contains(value)
        else { return nil }
        values[name] = value
        taken += 1
      } else {
        guard let value = spec.defaultValue else { return nil }
        values[name] = value
      }
    }
    // As many values as specs: no two specs share a name. Then as many
    // arguments taken as given: none is unknown and none is given twice.
    guard values.count == specs.count, taken == given.count else { return nil }
    return Arguments(values)
  }

  /// `itemID (int, required), compact (bool, default false)`, or `no arguments`.
  static func describe(_ arguments: [ArgumentSpec]) -> String {
    guard !arguments.isEmpty else { return "no arguments" }
    return arguments.map { spec in
      "\(spec.name) (\(spec.type), \(spec.defaultValue.map { "default \($0)" } ?? "required"))"
    }.joined(separator: ", ")
  }

  private static func article(_ type: ArgumentType) -> String {
    switch type {
    case .int: "an int"
    case .bool: "a bool"
    case .double: "a double"
    case .string: "a string"
    @unknown default: "a \(type)"
    }
  }

  private static func example(_ type: ArgumentType) -> String {
    switch type {
    case .int: " such as 42"
    case .bool: ": true or false"
    case .double: " such as 2.5"
    case .string: ""
    @unknown default: ""
    }
  }
}
