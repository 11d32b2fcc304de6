import ViperKit

extension Conformance {
  /// The check every business service provider gets (ViperKit 2.7): made
  /// with fake host services, and fakes of the business services it
  /// requires that answer nothing (their calls fail as unavailable), it is
  /// called once per operation it answers, with a sample request, and must
  /// answer within the operation's deadline with a response, the
  /// operation's declared failure, or a service error of its dependencies;
  /// not with an undeclared error, a request it cannot decode, or silence.
  ///
  /// ```swift
  /// let results = await Conformance.run(providers: WeatherPlugin.providers)
  /// #expect(results.allSatisfy { $0.status != .failed }, "\(results)")
  /// ```
  public static func run(providers: [any ServiceProvider.Type]) async -> [CheckResult] {
    let (answers, uses) = await findings(providers)
    return answers + uses
  }

  /// What ``run(providers:)`` finds: the result of each operation called,
  /// and a failure for each service used without being listed.
  private static func findings(_ providers: [any ServiceProvider.Type]) async -> (
    answers: [CheckResult], uses: [CheckResult]
  ) {
    var results: [CheckResult] = []
    var uses: [CheckResult] = []
    for provider in providers {
      let fake = FakeServices()
      let made = fake.made(provider)
      for operation in made.answered {
        results.append(await check(operation, of: made))
      }
      // What answering used without listing it: the host hands such a
      // provider a stand-in that refuses it.
      let subject = "provider:\(made.service)"
      for service in fake.undeclared {
        uses.append(
          CheckResult(
            check: providerCheck, status: .failed, module: "service \(made.service)",
            message: UndeclaredService.problem(service, provider: subject)))
      }
      for service in fake.unrequired {
        uses.append(
          CheckResult(
            check: providerCheck, status: .failed, module: "service \(made.service)",
            message: ModuleChecker.unrequiredProblem(
              service, caller: subject, list: "the provider's static let requires")))
      }
    }
    return (results, uses)
  }

  /// The id of the provider check.
  public static let providerCheck = CheckID.serviceAnswers.rawValue

  /// ``run(providers:)`` as one result for the plugin: failed when any
  /// operation failed, naming each; passed (or skipped, with no provider
  /// or nothing to call) otherwise.
  public static func runProviderCheck(_ providers: [any ServiceProvider.Type]) async -> CheckResult {
    let (answers, uses) = await findings(providers)
    let results = answers + uses
    let failed = results.filter { $0.status == .failed }
    guard failed.isEmpty else {
      // Each failure of a use not listed says what to list; the catalog's
      // advice is about answering, so it comes only with such a failure.
      let answering = answers.contains { $0.status == .failed }
      return CheckResult(
        check: providerCheck, status: .failed, module: nil,
        message: failed.map { "\($0.module ?? ""): \($0.message)" }.joined(separator: "; ")
          + (answering ? "; " + ConformanceCheck.fixText(providerCheck) : ""))
    }
    let called = results.filter { $0.status == .passed }.count
    guard called > 0 else {
      let why =
        providers.isEmpty ? "the plugin provides no business service" : "no operation could be called with a sample"
      return CheckResult(check: providerCheck, status: .skipped, module: nil, message: why)
    }
    return CheckResult(
      check: providerCheck, status: .passed, module: nil,
      message: "\(called) operation\(called == 1 ? "" : "s") answered a sample request")
  }

  private static func check(_ operation: AnsweredOperation, of made: ProvidedService) async -> CheckResult {
    let subject = "service \(made.service).\(operation.name)"
    func result(_ status: CheckStatus, _ message: String) -> CheckResult {
      CheckResult(check: providerCheck, status: status, module: subject, message: message)
    }
    guard let sample = SampleRequest.value(of: operation.request) else {
      return result(
        .skipped,
        "no sample of \(operation.request) could be made (its decoding refuses 'sample', 1, true); call it in your own tests"
      )
    }
    let request = ServiceRequest(
      service: made.service, operation: operation.name, payload: sample, deadline: operation.deadline)
    guard let outcome = await answer(request, by: made, within: operation.deadline) else {
      return result(.failed, "it did not answer within its deadline of \(operation.deadline) s")
    }
    switch outcome {
    case .response: return result(.passed, "answered a sample request")
    case .failure: return result(.passed, "answered a sample request with the operation's declared failure")
    case .error(let error) where error.kind == .unavailable || error.kind == .deadline:
      return result(.passed, "answered with its dependencies' error (\(error.kind.rawValue))")
    case .error(let error):
      return result(.failed, "answered \(error.kind.rawValue): \(error.reason)")
    @unknown default:
      return result(.failed, "answered in a way this test kit does not know: \(outcome)")
    }
  }

  /// `request` answered by `made`, or nil when `seconds` of real time pass first.
  private static func answer(_ request: ServiceRequest, by made: ProvidedService, within seconds: Double) async
    -> ServiceOutcome?
  {
    let first = FirstAnswer()
    let call = Task { @MainActor in first.take(await made.outcome(of: request)) }
    let timer = Task { @MainActor in
      try? await Task.sleep(nanoseconds: UInt64(min(max(seconds, 0), 3600) * 1e9))
      first.take(nil)
    }
    let outcome = await first.value()
    call.cancel()
    timer.cancel()
    return outcome
  }
}

/// Whichever of a call's answer and its time limit comes first.
@MainActor
private final class FirstAnswer {
  private var answer: ServiceOutcome??
  private var waiter: CheckedContinuation<ServiceOutcome?, Never>?

  func take(_ outcome: ServiceOutcome?) {
    guard answer == nil else { return }
    answer = .some(outcome)
    waiter?.resume(returning: outcome)
    waiter = nil
  }

  func value() async -> ServiceOutcome? {
    if let answer { return answer }
    return await withCheckedContinuation { waiter = $0 }
  }
}
