import CViperKit
import Foundation
import ViperKitHosting
import VivariumLoading
import VivariumSupport

extension PluginChecker {
  /// The file checks' results, read off how loading went.
  func fileResults(_ path: String, _ outcome: PluginOutcome) -> [CheckResult] {
    let planned = ConformanceCheck.plan(strictness: strictness, only: only, skip: skip, scopes: [.file])
    var failing: [String: [String]] = [:]
    var status = CheckStatus.failed
    if case .rejected(let rejection) = outcome {
      for (check, reason) in zip(rejection.checks, rejection.reasons) { failing[check, default: []].append(reason) }
      status = rejection.kind == .crashed ? .crashed : rejection.kind == .timedOut ? .timedOut : .failed
    }
    let stoppedAt = [CheckID]([
      .loadFile, .loadEntry, .descriptorMagic, .descriptorAbi, .descriptorSdk, .descriptorCompiler,
    ])
    .map(\.rawValue).first { failing[$0] != nil }
    return planned.map { check, reason in
      if let reason { return CheckResult(check: check.name, status: .skipped, module: nil, message: reason) }
      if let reasons = failing[check.name] {
        return CheckResult(check: check.name, status: status, module: nil, message: reasons.joined(separator: "; "))
      }
      switch outcome {
      case .loaded(let plugin):
        return loadedResult(check.id, path: path, plugin: plugin)
      case .rejected:
        let passedBefore =
          check.id == .loadFile || (check.id == .loadEntry && stoppedAt?.hasPrefix("descriptor") == true)
        return passedBefore
          ? CheckResult(check: check.name, status: .passed, module: nil, message: "passed")
          : CheckResult(
            check: check.name, status: .skipped, module: nil,
            message: "not reached: loading stopped at \(stoppedAt ?? "load")")
      }
    }
  }

  private func loadedResult(_ id: CheckID, path: String, plugin: LoadedPlugin) -> CheckResult {
    let check = id.rawValue
    switch id {
    case .descriptorExports:
      // From the file that was checked and loaded, not whatever is at the path now.
      let symbols = plugin.fileDescriptor.flatMap { PluginLoader.exportedSymbols(descriptor: $0) }
      let exported = (symbols ?? []).subtracting([VK_PLUGIN_ENTRY_SYMBOL])
      guard exported.isEmpty else {
        let sample = exported.sorted().prefix(2).map { $0.count > 40 ? $0.prefix(39) + "…" : $0 }.joined(
          separator: ", ")
        return CheckResult(
          check: check, status: .warning, module: nil,
          message:
            "exports \(exported.count) symbols besides \(VK_PLUGIN_ENTRY_SYMBOL) (\(sample), …); \(ConformanceCheck.fixText(check))"
        )
      }
      return CheckResult(check: check, status: .passed, module: nil, message: "exports only \(VK_PLUGIN_ENTRY_SYMBOL)")
    case .speedLoad:
      let time = plugin.loadTime
      let milliseconds = Double(time.components.seconds) * 1000 + Double(time.components.attoseconds) / 1e15
      let shown = String(format: "%.1f ms", milliseconds)
      return time > PluginChecker.loadLimit
        ? CheckResult(
          check: check, status: .warning, module: nil,
          message: "loading took \(shown), over 100 ms; \(ConformanceCheck.fixText(check))")
        : CheckResult(check: check, status: .passed, module: nil, message: "loaded in \(shown)")
    default:
      let detail =
        switch id {
        case .descriptorSdk: "built against ViperKit \(plugin.sdkVersion)"
        case .loadEntry:
          "\(plugin.name) offers \(Plural.count(plugin.modules.count, "module"))"
        default: "passed"
        }
      return CheckResult(check: check, status: .passed, module: nil, message: detail)
    }
  }
}
