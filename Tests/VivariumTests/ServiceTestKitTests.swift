import Testing
import ViperKit
import ViperKitTestKit

/// A provider of the echo service for the test kit's tests: its own type,
/// so that ``EchoProvider``'s counts belong to the tests that read them.
@MainActor
final class ShoutingEchoProvider: ServiceProvider {
  init(services: Services) {}

  func answer(_ answers: inout ServiceAnswers<EchoService>) {
    answers.on(\.echo) { $0.uppercased() }
    answers.on(\.refuse) { throw EchoRefusal(why: $0) }
  }
}

/// The test kit's business services: a provider tested alone, called as a
/// consumer would call it, and a consumer tested alone against a fake of
/// its provider; values coded both ways, undeclared and missing services
/// refused as the host refuses them.
@Suite("Business services in the test kit", .serialized)
@MainActor
struct ServiceTestKitTests {
  let consumer = Contract(urn: "user:home", summary: "Uses echo.", requires: [.required(EchoService.self, "1.0"..<"2")])

  @Test func aProviderTestedAloneAnswersThroughATypedHandle() async throws {
    let fake = FakeServices()
    fake.provide(ShoutingEchoProvider.self)
    let echo = fake.handle(EchoService.self)
    #expect(try await echo.echo("x") == "X")
    await #expect(throws: EchoRefusal(why: "no")) { try await echo.refuse("no") }
    #expect(fake.serviceCalls == ["echo.echo", "echo.refuse"])
  }

  @Test func aConsumerTestedAloneCallsAFakeOfItsProvider() async throws {
    let fake = FakeServices()
    fake.provide(EchoService.self) { answers in answers.on(\.echo) { "fake \($0)" } }
    let echo = fake.services(for: consumer).service(EchoService.self)
    #expect(try await echo.echo("a") == "fake a")
  }

  @Test func aServiceTheContractDoesNotRequireIsRefusedAndOneWithNoFakeIsUnavailable() async throws {
    let fake = FakeServices()
    let undeclared = fake.services(for: Contract(urn: "x:y", summary: "Requires nothing.")).service(EchoService.self)
    do {
      _ = try await undeclared.echo("a")
      Issue.record("an undeclared service answered")
    } catch let error as ServiceCallError {
      #expect(error.kind == .undeclared)
    }
    do {
      _ = try await fake.services(for: consumer).service(EchoService.self).echo("a")
      Issue.record("a service with no fake answered")
    } catch let error as ServiceCallError {
      #expect(error.kind == .unavailable)
    }
  }
}
