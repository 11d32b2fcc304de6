import ViperKit

/// Checks that a contract is well formed, so the router can rely on it.
public enum ContractCheck {
  /// Every problem with `contract`'s pattern, arguments, messages,
  /// slots, settings and commands, each saying what to fix; empty when it is well formed. (Its
  /// host services are each a ``ViperKit/Services/Name``: one a host does
  /// not provide cannot be listed.)
  public static func problems(_ contract: Contract) -> [String] {
    var problems: [String] = []
    let pattern: URNPattern
    do {
      pattern = try URNPattern(parsing: contract.urn)
    } catch {
      return ["\(error.description); fix Contract.urn"]
    }
    let urn = contract.urn
    if contract.version < 1 { problems.append("\(urn): contract version is \(contract.version); start at 1") }
    problems += duplicates(contract.arguments.map(\.name), "argument", urn)
    for argument in contract.arguments {
      problems += self.problems(argument, in: urn)
    }
    for name in pattern.placeholders {
      guard let argument = contract.argument(named: name) else {
        problems.append(
          "\(urn): placeholder {\(name)} has no argument; add ArgumentSpec.required(\"\(name)\", …) to the contract")
        continue
      }
      if !argument.required {
        problems.append(
          "\(urn): placeholder {\(name)} is always given, so its argument must be required, without a default")
      }
    }
    problems += duplicates(contract.inputs.map(\.name), "input", urn)
    problems += duplicates(contract.outputs.map(\.name), "output", urn)
    problems += contract.inputs.flatMap { self.problems($0, "input", in: urn) }
    problems += contract.outputs.flatMap { self.problems($0, "output", in: urn) }
    problems += duplicates(contract.slots.map(\.name), "slot", urn)
    for slot in contract.slots {
      if slot.accepts.isEmpty {
        problems.append(
          "\(urn): slot '\(slot.name)' accepts no URN pattern; list the patterns of the modules it may hold")
      }
      for accepted in slot.accepts {
        do { _ = try URNPattern(parsing: accepted) } catch {
          problems.append("\(urn): slot '\(slot.name)': \(error.description)")
        }
      }
    }
    problems += duplicates(contract.opens.map { "\($0.kind.rawValue) \($0.urn)" }, "navigation target", urn)
    for target in contract.opens {
      do { _ = try URNPattern(parsing: target.urn) } catch {
        problems.append("\(urn): opens .\(target.kind.rawValue)(\"\(target.urn)\"): \(error.description)")
      }
      for name in target.arguments.keys.sorted() where !URNSyntax.isIdentifier(Substring(name)) {
        problems.append(
          "\(urn): opens .\(target.kind.rawValue)(\"\(target.urn)\") passes '\(name)', which is not a name (letters, digits and '_', not starting with a digit)"
        )
      }
      problems += duplicates(target.expects.map(\.name), "expected output", urn)
      problems += target.expects.flatMap { self.problems($0, "expected output", in: urn) }
    }
    return problems + SettingCheck.problems(contract) + CommandCheck.problems(contract)
  }

  private static func problems(_ argument: ArgumentSpec, in urn: String) -> [String] {
    let name = argument.name
    guard URNSyntax.isIdentifier(Substring(name)) else {
      return ["\(urn): argument name '\(name)' is not a name (letters, digits and '_', not starting with a digit)"]
    }
    if argument.required, argument.defaultValue != nil {
      return ["\(urn): argument '\(name)' is required and has a default; make it optional or drop the default"]
    }
    if let wrong = argument.choices.first(where: { $0.type != argument.type }) {
      return ["\(urn): argument '\(name)' is \(argument.type) but its choice '\(wrong)' is \(wrong.type)"]
    }
    if let value = argument.defaultValue, !argument.choices.isEmpty, !argument.choices.contains(value) {
      return ["\(urn): argument '\(name)' defaults to '\(value)', which is not one of its choices"]
    }
    if !argument.required {
      guard let value = argument.defaultValue else {
        return ["\(urn): optional argument '\(name)' has no default; give it one or make it required"]
      }
      if value.type != argument.type {
        return ["\(urn): argument '\(name)' is \(argument.type) but its default '\(value)' is \(value.type)"]
      }
    }
    return []
  }

  private static func problems(_ message: MessageSpec, _ what: String, in urn: String) -> [String] {
    guard URNSyntax.isIdentifier(Substring(message.name)) else {
      return [
        "\(urn): \(what) name '\(message.name)' is not a name (letters, digits and '_', not starting with a digit)"
      ]
    }
    if message.fields.keys.contains(MessageSpec.unsupportedField) {
      return [
        "\(urn): \(what) '\(message.name)' has a field messages cannot carry; a message's fields are String, Int, Bool or Double, not lists or nested values"
      ]
    }
    return message.fields.keys.sorted().filter { !URNSyntax.isIdentifier(Substring($0)) }.map {
      "\(urn): \(what) '\(message.name)' has a field '\($0)' that is not a name (letters, digits and '_', not starting with a digit)"
    }
  }

  private static func duplicates(_ names: [String], _ what: String, _ urn: String) -> [String] {
    var seen: Set<String> = []
    return names.filter { !seen.insert($0).inserted }.map { "\(urn): \(what) '\($0)' is declared twice" }
  }
}
