import Foundation
import ViperKit
import ViperKitHosting
import VivariumLoading
import VivariumSupport

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
    switch ArgumentCheck.bind(given, to: contract, owner: owner) {
    case .success(let values): return Arguments(values)
    case .failure(let problem):
      let kind: ResolveError.Kind =
        switch problem.kind {
        case .unknown: .unknownArgument
        case .duplicate: .duplicateArgument
        case .wrongType: .wrongType
        case .missing: .missingArgument
        }
      throw ResolveError(kind, problem.message)
    }
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

}
