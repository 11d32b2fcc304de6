import ViperKitHosting

/// What a `vivarium-check` child replies: the result of each job it was
/// given, in order, and what the plugin tried meanwhile that the sandbox
/// refused. `vivarium check` merges the refusals of every child into the
/// one check that reports them (``ConformanceCheck/sandboxRefused``).
package struct CheckReply: Codable, Sendable {
  /// Something the sandbox refused, and the module whose check was running
  /// (nil: while loading, or during a plugin check).
  package struct Refusal: Codable, Hashable, Sendable {
    /// The module's URN pattern, or nil.
    package let module: String?
    /// What the plugin tried, and what to do instead.
    package let message: String

    /// A refusal seen while checking `module`.
    package init(module: String?, message: String) {
      self.module = module
      self.message = message
    }
  }

  /// One result per job, in the order the jobs were given.
  package let results: [CheckResult]
  /// The distinct refusals, oldest first.
  package let refusals: [Refusal]
  /// How many more refused calls there were than could be recorded.
  package let unrecorded: Int

  /// A reply of `results`, with `refusals` and `unrecorded` more.
  package init(results: [CheckResult], refusals: [Refusal], unrecorded: Int) {
    self.results = results
    self.refusals = refusals
    self.unrecorded = unrecorded
  }

  /// The results of ``ConformanceCheck/sandboxRefused`` for `replies`: one
  /// failure per distinct thing refused (on the module it was first seen
  /// on), one for the calls that were not recorded, or one pass when the
  /// sandbox refused nothing.
  package static func sandboxResults(_ replies: [CheckReply]) -> [CheckResult] {
    let name = ConformanceCheck.sandboxRefused
    var seen: Set<String> = []
    var results: [CheckResult] = []
    for refusal in replies.flatMap(\.refusals) where seen.insert(refusal.message).inserted {
      results.append(CheckResult(check: name, status: .failed, module: refusal.module, message: refusal.message))
    }
    let unrecorded = replies.map(\.unrecorded).reduce(0, +)
    if unrecorded > 0 {
      results.append(
        CheckResult(
          check: name, status: .failed, module: nil,
          message: "\(unrecorded) more refused calls were not recorded; fix the ones above and check again"))
    }
    // A check process that crashed or timed out said nothing of what was
    // refused: nothing can be passed on its word.
    let ended = replies.flatMap(\.results).filter { $0.status == .crashed || $0.status == .timedOut }
    if !ended.isEmpty {
      let checks = Set(ended.map(\.check)).sorted().joined(separator: ", ")
      results.append(
        CheckResult(
          check: name, status: .failed, module: nil,
          message:
            "\(ended.count) check process\(ended.count == 1 ? "" : "es") (\(checks)) ended before saying what the sandbox refused; make \(ended.count == 1 ? "it" : "them") pass (--only CHECK --in-process), then check again"
        ))
    }
    if results.isEmpty {
      results.append(
        CheckResult(check: name, status: .passed, module: nil, message: "the sandbox refused nothing the plugin did"))
    }
    return results
  }
}
