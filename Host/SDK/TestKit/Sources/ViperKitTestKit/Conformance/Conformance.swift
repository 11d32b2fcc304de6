import ViperKit

/// Runs the conformance checks in this process: the plugin and module checks
/// of CHECKS.md, against factories. Use it from a plugin's own tests:
///
/// ```swift
/// let report = Conformance.run(factories: MyPlugin.factories())
/// #expect(report.failures.isEmpty, "\(report)")
/// ```
///
/// A check that traps takes the calling process down with it; the host's
/// `vivarium check` runs each check in a child process instead.
@MainActor
public enum Conformance {
  /// Runs every selected plugin and module check on `factories` (one
  /// plugin's modules, built against ViperKit `sdkVersion`) at `strictness`
  /// (1 to 10).
  public static func run(
    factories: [any ModuleFactory], strictness: Int = 10, only: [String] = [], skip: [String] = [],
    sdkVersion: ViperKitVersion = .current
  ) -> ConformanceReport {
    var results: [CheckResult] = []
    for (check, reason) in ConformanceCheck.plan(strictness: strictness, only: only, skip: skip, scopes: [.plugin]) {
      results.append(
        reason.map { CheckResult(check: check.name, status: .skipped, module: nil, message: $0) }
          ?? run(check.id, factories: factories, strictness: strictness))
    }
    for factory in factories {
      for (check, reason) in ConformanceCheck.plan(strictness: strictness, only: only, skip: skip, scopes: [.module]) {
        results.append(
          reason.map { CheckResult(check: check.name, status: .skipped, module: factory.contract.urn, message: $0) }
            ?? run(check.id, on: factory, strictness: strictness, plugin: factories, sdkVersion: sdkVersion))
      }
    }
    return ConformanceReport(results: results)
  }

  /// Runs the plugin check `check` over `factories`.
  public static func run(_ check: CheckID, factories: [any ModuleFactory], strictness: Int) -> CheckResult {
    let name = check.rawValue
    guard check == .contractUnambiguous else {
      return CheckResult(check: name, status: .skipped, module: nil, message: "not a plugin check")
    }
    var seen: [[String?]: String] = [:]
    for factory in factories {
      guard let pattern = try? URNPattern(parsing: factory.contract.urn) else { continue }
      if let other = seen[pattern.shape] {
        return CheckResult(
          check: name, status: .failed, module: pattern.text,
          message:
            "\(pattern.text) and \(other) match the same URNs, so the host cannot route them; \(ConformanceCheck.fixText(name))"
        )
      }
      seen[pattern.shape] = pattern.text
    }
    return CheckResult(
      check: name, status: .passed, module: nil,
      message: factories.count == 1 ? "1 pattern" : "\(factories.count) patterns, all distinct")
  }

  /// Runs the module check `check` on the module `factory` builds. `plugin`
  /// is every factory of its plugin, so that a request to a sibling module
  /// is checked against its contract; `sdkVersion` is the ViperKit the
  /// plugin was built against (navigation is checked from 2.4).
  public static func run(
    _ check: CheckID, on factory: any ModuleFactory, strictness: Int, plugin: [any ModuleFactory] = [],
    sdkVersion: ViperKitVersion = .current
  ) -> CheckResult {
    let checker = checker(factory, strictness: strictness, plugin: plugin, sdkVersion: sdkVersion)
    return result(check.rawValue, factory, checker.run(check))
  }

  /// ``run(_:on:strictness:plugin:sdkVersion:)``, letting the work a
  /// presented module starts run until it settles: `services.declared` then
  /// also sees the services used in that work (a fetch started on attach).
  /// `vivarium check` runs this.
  public static func runWithWork(
    _ check: CheckID, on factory: any ModuleFactory, strictness: Int, plugin: [any ModuleFactory] = [],
    sdkVersion: ViperKitVersion = .current
  ) async -> CheckResult {
    let checker = checker(factory, strictness: strictness, plugin: plugin, sdkVersion: sdkVersion)
    guard check == .servicesDeclared else { return result(check.rawValue, factory, checker.run(check)) }
    return result(check.rawValue, factory, await checker.declaredServicesWithWork())
  }

  private static func checker(
    _ factory: any ModuleFactory, strictness: Int, plugin: [any ModuleFactory], sdkVersion: ViperKitVersion
  ) -> ModuleChecker {
    var checker = ModuleChecker(factory: factory, strictness: max(1, min(strictness, 10)))
    checker.siblings = plugin
    checker.declaresNavigation = sdkVersion >= NavigationCheck.declaredSince
    return checker
  }

  /// The result of the check `name` on `factory`'s module: `outcome`, with
  /// the catalog's advice when it failed or warned.
  private static func result(_ name: String, _ factory: any ModuleFactory, _ outcome: ModuleChecker.Outcome?)
    -> CheckResult
  {
    let urn = factory.contract.urn
    guard let outcome else {
      return CheckResult(check: name, status: .skipped, module: urn, message: "not a module check")
    }
    var message = outcome.message
    if outcome.status == .failed || outcome.status == .warning { message += "; " + ConformanceCheck.fixText(name) }
    return CheckResult(check: name, status: outcome.status, module: urn, message: message)
  }
}
