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
  /// allow it; nil when a declared target's pattern matches `urn`, or when
  /// `urn` is no URN at all (the request fails for that reason instead).
  public static func problem(_ kind: NavigationTarget.Kind, _ urn: String, from contract: Contract) -> String? {
    guard let parsed = try? ParsedURN(parsing: urn) else { return nil }
    let declared = contract.opens.filter { $0.kind == kind }
    for target in declared {
      if let pattern = try? URNPattern(parsing: target.urn), pattern.match(parsed) != nil { return nil }
    }
    let path = parsed.segments.joined(separator: ":")
    let others = declared.map { "\"\($0.urn)\"" }.joined(separator: ", ")
    let has = declared.isEmpty ? "declares no .\(kind.rawValue)" : "declares .\(kind.rawValue) only of \(others)"
    return
      "\(contract.urn) asked to \(kind.rawValue) '\(urn)', which its contract does not declare (it \(has)); add .\(kind.rawValue)(\"\(path)\") or a pattern matching it to Contract.opens"
  }
}
