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

/// A provider that breaks the rules: `echo` throws an error `EchoService`
/// does not declare; `refuse` takes its request, which has no sample.
@MainActor
final class CarelessEchoProvider: ServiceProvider {
  struct Oops: Error {}

  init(services: Services) {}

  func answer(_ answers: inout ServiceAnswers<EchoService>) {
    answers.on(\.echo) { _ in throw Oops() }
    answers.on(\.hang) { $0 }
  }
}

/// A service whose request holds itself, and one whose request has no sample.
enum TreeService: ServiceInterface {
  struct Tree: Codable, Sendable {
    var name: String
    var children: [Tree]
    var parent: [String: Tree]?
  }
  enum Colour: String, Codable, Sendable { case red, green }
  static let name = "tree"
  static let version: SemanticVersion = "1.0"
  static let count = ServiceOperation<Tree, Int>("count")
  static let paint = ServiceOperation<Colour, Colour>("paint")
}

@MainActor
final class TreeProvider: ServiceProvider {
  init(services: Services) {}

  func answer(_ answers: inout ServiceAnswers<TreeService>) {
    func size(_ tree: TreeService.Tree) -> Int { 1 + tree.children.map(size).reduce(0, +) }
    answers.on(\.count) { size($0) }
    answers.on(\.paint) { $0 }
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
    fake.provide(ShoutingEchoProvider.self)
    let newer = Contract(urn: "z:z", summary: "Wants 2.x.", requires: [.required(EchoService.self, "2.0"..<"3")])
    do {
      _ = try await fake.services(for: newer).service(EchoService.self).echo("a")
      Issue.record("a fake outside the versions required answered")
    } catch let error as ServiceCallError {
      #expect(error.kind == .unavailable)
      #expect(error.reason.contains("1.2.0"))
    }
  }

  @Test func theProviderCheckCallsEachOperationWithASampleAndJudgesTheAnswer() async {
    let good = await Conformance.run(providers: [ShoutingEchoProvider.self])
    #expect(good.map(\.module) == ["service echo.echo", "service echo.refuse"])
    #expect(good.allSatisfy { $0.check == Conformance.providerCheck && $0.status == .passed }, "\(good)")
    let careless = await Conformance.run(providers: [CarelessEchoProvider.self])
    #expect(careless.map(\.status) == [.failed, .passed], "\(careless)")
    #expect(careless.first?.message.contains("failed") == true)
  }

  @Test func aRequestThatHoldsItselfGetsAFiniteSampleAndOneWithoutASampleIsSkipped() async {
    let results = await Conformance.run(providers: [TreeProvider.self])
    #expect(results.map(\.module) == ["service tree.count", "service tree.paint"])
    #expect(results.map(\.status) == [.passed, .skipped], "\(results)")
  }
}
