/// How a check ended.
public enum CheckStatus: String, Codable, Hashable, Sendable, CaseIterable {
  /// The plugin keeps this part of its contract.
  case passed
  /// It does not; the message says what to fix.
  case failed
  /// The check's process died of a signal: the plugin trapped or segfaulted.
  case crashed
  /// The check did not finish within its time limit: the plugin hangs.
  case timedOut = "timed out"
  /// The check does not apply, or was not selected.
  case skipped
  /// Worth fixing, but not a broken contract.
  case warning

  /// Whether this result makes a run fail: failed, crashed or timed out.
  public var isFailure: Bool { self == .failed || self == .crashed || self == .timedOut }
}

/// The outcome of one check on one plugin or module.
public struct CheckResult: Codable, Hashable, Sendable, CustomStringConvertible {
  /// The check's stable name, such as `build.minimal`.
  public let check: String
  /// How it ended.
  public let status: CheckStatus
  /// The URN pattern of the module concerned; nil for checks of the plugin file.
  public let module: String?
  /// What is wrong and what to do, or what passed.
  public let message: String

  /// Creates a result.
  public init(check: String, status: CheckStatus, module: String?, message: String) {
    self.check = check
    self.status = status
    self.module = module
    self.message = message
  }

  /// `status  check  module: message`.
  public var description: String {
    "\(status.rawValue)  \(check)\(module.map { "  \($0)" } ?? ""): \(message)"
  }
}

/// The results of a conformance run.
public struct ConformanceReport: Codable, Hashable, Sendable, CustomStringConvertible {
  /// Every result, in the order the checks ran.
  public var results: [CheckResult]

  /// Creates a report.
  public init(results: [CheckResult]) {
    self.results = results
  }

  /// The results that make the run fail.
  public var failures: [CheckResult] { results.filter(\.status.isFailure) }

  /// One line per result.
  public var description: String { results.map(\.description).joined(separator: "\n") }
}
