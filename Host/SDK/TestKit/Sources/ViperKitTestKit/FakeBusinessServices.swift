import ViperKit
import ViperKitHosting

/// Business services in the test kit (ViperKit 2.7): a consumer tested
/// alone calls fakes of its providers, and a provider tested alone is
/// called as its consumers would call it. Values cross in their wire form,
/// encoded and decoded as between plugins, so a type that does not code
/// fails here as it would in the app.
extension FakeServices {
  /// Answers calls to `service` with what `answer` registers, as the
  /// provider would: `fake.provide(WeatherService.self) { $0.on(\.forecast) { _ in sunny } }`.
  public func provide<Interface: ServiceInterface>(
    _ service: Interface.Type, _ answer: (inout ServiceAnswers<Interface>) -> Void
  ) {
    var answers = ServiceAnswers<Interface>()
    answer(&answers)
    let table = answers
    providers[Interface.name] = (Interface.version, { await table.outcome(of: $0.operation, payload: $0.payload) })
  }

  /// Answers calls to `Provider`'s service with a real `Provider`, made
  /// with these fake services (and the fakes of the services it requires).
  public func provide<Provider: ServiceProvider>(_ provider: Provider.Type) {
    let made = made(provider)
    providers[Provider.Interface.name] = (Provider.Interface.version, { await made.outcome(of: $0) })
  }

  /// `Provider` made with these fake services: those it declares, and
  /// these fakes of the business services it requires.
  func made<Provider: ServiceProvider>(_ provider: Provider.Type) -> ProvidedService {
    let contract = Contract(
      urn: "provider:\(Provider.Interface.name)", summary: "The provider of \(Provider.Interface.name).",
      services: Provider.services, requires: Provider.requires)
    return ProvidedService(provider, services: services(for: contract, urn: contract.urn, isProvider: true))
  }

  /// A handle on `service` as a consumer requiring `requires` gets it:
  /// for testing a provider alone (``provide(_:)-(Provider.Type)``), its
  /// operations called as methods.
  public func handle<Interface: ServiceInterface>(
    _ service: Interface.Type, requiring requires: [ServiceRequirement]? = nil
  ) -> ServiceHandle<Interface> {
    let compatible = Interface.version..<SemanticVersion(Interface.version.major + 1)
    return ServiceHandle(
      calls: FakeCalls(self, caller: "the consumer", requires: requires ?? [.required(Interface.self, compatible)]))
  }

  /// Calls through the fakes: one the consumer did not declare is refused
  /// as the host refuses it, one with no fake provider is unavailable.
  @MainActor
  final class FakeCalls: ServiceCalling {
    let fake: FakeServices
    let caller: String
    let requires: [ServiceRequirement]

    init(_ fake: FakeServices, caller: String, requires: [ServiceRequirement]) {
      self.fake = fake
      self.caller = caller
      self.requires = requires
    }

    func call(_ request: ServiceRequest) async -> ServiceOutcome {
      fake.serviceCalls.append("\(request.service).\(request.operation)")
      func error(_ kind: ServiceCallError.Kind, _ reason: String) -> ServiceOutcome {
        .error(kind, request, reason)
      }
      let requirement: ServiceRequirement
      switch ServiceRequirement.allowing(request, among: requires, caller: caller) {
      case .success(let allowed): requirement = allowed
      case .failure(let refusal):
        if refusal.kind == .undeclared, !fake.unrequired.contains(request.service) {
          fake.unrequired.append(request.service)
        }
        return .error(refusal)
      }
      guard let (version, provider) = fake.providers[request.service] else {
        return error(.unavailable, "no fake provides '\(request.service)': call provide(_:) on the fake services")
      }
      guard requirement.versions.contains(version) else {
        return error(
          .unavailable,
          "the fake provides \(request.service) \(version), outside the versions required (\(requirement.versions))")
      }
      return await provider(request)
    }
  }
}
