import ViperKit

/// Whether a module's navigation request is one its contract declares
/// (``Contract/opens``): shared by the host, which reports an undeclared
/// request, and the conformance checks, which fail it.
public enum NavigationCheck {
  /// The first version of ViperKit whose contracts declare their navigation;
  /// requests of plugins built against an earlier one are not checked.
  public static let declaredSince = ViperKitVersion(major: 2, minor: 4, patch: 0)

  /// What is wrong with the module of `contract` asking to open `urn` with
  /// `kind`, naming the module, the request and the declaration that would
  /// allow it; nil when a declared target's pattern matches `urn` and its
  /// ``NavigationTarget/arguments`` take every `?query` argument and the
  /// value of each argument they type, or when `urn` is no URN at all (the
  /// request fails for that reason instead).
  public static func problem(_ kind: NavigationTarget.Kind, _ urn: String, from contract: Contract) -> String? {
    guard let parsed = try? ParsedURN(parsing: urn) else { return nil }
    let declared = contract.opens.filter { $0.kind == kind }
    var argumentProblems: [String] = []
    for target in declared {
      guard let pattern = try? URNPattern(parsing: target.urn), pattern.match(parsed) != nil else { continue }
      guard let problem = argumentProblem(parsed, target, pattern) else { return nil }
      argumentProblems.append(problem)
    }
    if let first = argumentProblems.first {
      return "\(contract.urn) asked to \(kind.rawValue) '\(urn)', but \(first)"
    }
    let path = parsed.segments.joined(separator: ":")
    let others = declared.map { "\"\($0.urn)\"" }.joined(separator: ", ")
    let has = declared.isEmpty ? "declares no .\(kind.rawValue)" : "declares .\(kind.rawValue) only of \(others)"
    return
      "\(contract.urn) asked to \(kind.rawValue) '\(urn)', which its contract does not declare (it \(has)); add .\(kind.rawValue)(\"\(path)\") or a pattern matching it to Contract.opens"
  }

  /// What is wrong with the arguments `urn` passes to `target`, whose
  /// `pattern` matches it: a `?query` argument it does not list, or a value
  /// not of the type it lists.
  private static func argumentProblem(_ urn: ParsedURN, _ target: NavigationTarget, _ pattern: URNPattern) -> String? {
    let declaration = ".\(target.kind.rawValue)(\"\(target.urn)\")"
    for (name, value, origin) in ArgumentCheck.given(urn, matching: pattern) {
      guard let type = target.arguments[name] else {
        if pattern.placeholders.contains(name) { continue }
        let listed =
          target.arguments.isEmpty
          ? "it passes no query argument" : "it passes " + ArgumentCheck.describe(target.arguments)
        return
          "\(declaration) does not pass the argument '\(name)' (\(listed)); correct the name, or add \"\(name)\" and its type to the target's arguments"
      }
      guard ArgumentValue(parsing: value, as: type) != nil else {
        return
          "\(declaration) passes '\(name)' as \(ArgumentCheck.article(type)), and '\(value)' (\(origin)) is not one"
      }
    }
    return nil
  }
}
