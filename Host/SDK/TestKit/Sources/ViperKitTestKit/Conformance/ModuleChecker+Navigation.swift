import ViperKit

/// The navigation checks: what a module asks to open is declared, and it
/// does not go back from a first screen.
extension ModuleChecker {
  func declaredNavigation() -> Outcome {
    guard declaresNavigation else {
      return .skipped("the plugin was built against a ViperKit before 2.4, whose contracts cannot declare navigation")
    }
    guard let requests = try? interact(fuzz: false).requests else { return .skipped("see presentation.interaction") }
    var opened = 0
    var problems: [String] = []
    for request in requests {
      guard let (kind, urn) = request.opening else { continue }
      opened += 1
      if let problem = problem(kind, urn), !problems.contains(problem) { problems.append(problem) }
    }
    guard problems.isEmpty else { return .failed(problems.joined(separator: "; ")) }
    return .passed(
      opened == 0
        ? "asked to open nothing"
        : "asked to open \(count(opened, "screen")), \(opened == 1 ? "declared" : "each declared")")
  }

  func back() -> Outcome {
    guard let requests = try? interact(fuzz: false).requests else { return .skipped("see presentation.interaction") }
    guard requests.contains(.pop) else { return .passed("did not ask to go back as the first screen") }
    return .warning(
      "\(contract.urn) asked to go back with pop() when shown as the first screen; where it is one (the app's start, a replace target, the first URN of a deep link), the host can only report 'cannot pop the first screen'"
    )
  }

  /// What is wrong with the module asking to open `urn` with `kind`: no URN,
  /// not declared, or refused by the module of this plugin that answers it.
  private func problem(_ kind: NavigationTarget.Kind, _ urn: String) -> String? {
    let asked = "\(contract.urn) asked to \(kind.rawValue) '\(urn)'"
    let parsed: ParsedURN
    do { parsed = try ParsedURN(parsing: urn) } catch { return "\(asked), which is no URN: \(error.description)" }
    if let problem = NavigationCheck.problem(kind, urn, from: contract) { return problem }
    let matching = siblings.compactMap { sibling -> (contract: Contract, pattern: URNPattern)? in
      guard let pattern = try? URNPattern(parsing: sibling.contract.urn), pattern.match(parsed) != nil else {
        return nil
      }
      return (sibling.contract, pattern)
    }
    // The one the host routes it to, a literal segment before a placeholder.
    guard
      let (target, pattern) = URNPattern.preferred(
        matching, for: parsed.segments.map(Optional.some), pattern: \.pattern
      ).first
    else { return nil }
    let given = ArgumentCheck.given(parsed, matching: pattern)
    guard case .failure(let refused) = ArgumentCheck.bind(given, to: target, owner: target.urn) else { return nil }
    return "\(asked), which the host would refuse: \(refused.message)"
  }
}

extension RouteRequest {
  /// How and what the request opens, if it is a push, present or replace.
  fileprivate var opening: (NavigationTarget.Kind, String)? {
    switch self {
    case .push(let urn): (.push, urn)
    case .present(let urn): (.present, urn)
    case .replace(let urn): (.replace, urn)
    default: nil
    }
  }
}
