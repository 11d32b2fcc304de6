import Foundation
import Testing
import ViperKit

@testable import VivariumLoading
@testable import VivariumRuntime

/// A business service for the tests: one plugin provides it, another's
/// module requires it.
enum EchoService: ServiceInterface {
  static let name = "echo"
  static let version: SemanticVersion = "1.2"
  static let echo = ServiceOperation<String, String>("echo")
  static let refuse = ServiceOperation<String, String>("refuse", failure: EchoRefusal.self)
  static let hang = ServiceOperation<Int, Int>("hang", deadline: 2)
  static let unanswered = ServiceOperation<Int, Int>("unanswered")
}

/// The error `refuse` declares.
struct EchoRefusal: Error, Codable, Equatable {
  var why: String
}

@MainActor
final class EchoProvider: ServiceProvider {
  static var made = 0
  static var entered = 0
  static var cancelled = 0

  init(services: Services) { Self.made += 1 }

  func answer(_ answers: inout ServiceAnswers<EchoService>) {
    answers.on(\.echo) { "echo: \($0)" }
    answers.on(\.refuse) { throw EchoRefusal(why: $0) }
    answers.on(\.hang) { number in
      Self.entered += 1
      do {
        try await Task.sleep(for: .seconds(86_400))
      } catch {
        Self.cancelled += 1
        throw error
      }
      return number
    }
  }
}

/// Business service calls in one process: typed calls and typed errors
/// through the host's router, the provider made once on first use, each
/// call checked against the consumer's requirements, deadlines on the
/// host's (virtual) clock, cancellation reaching the provider, and a log
/// line for every call.
@Suite("Business service calls in one process", .serialized)
@MainActor
struct ServiceCallTests {
  let recorder = ProbeRecorder()
  let runtime: HostRuntime

  init() throws {
    var provider = LoadedPlugin(
      path: "echo.so", name: "Echo",
      factories: [ProbeFactory(contract: Contract(urn: "echo:home", summary: "Home."), recorder: recorder).factory])
    provider.version = "1.2.0"
    provider.provides = [EchoProvider.provision]
    provider.providerTypes = [EchoProvider.self]
    let consumer = LoadedPlugin(
      path: "user.so", name: "User",
      factories: [
        ProbeFactory(
          contract: Contract(
            urn: "user:home", summary: "Uses echo.", requires: [.required(EchoService.self, "1.0"..<"2")]),
          recorder: recorder
        ).factory
      ])
    runtime = HostRuntime(
      catalog: PluginCatalog(outcomes: [.loaded(provider), .loaded(consumer)]), services: try TestServices.make())
    EchoProvider.made = 0
    EchoProvider.entered = 0
    EchoProvider.cancelled = 0
  }

  private func echo(from urn: String = "user:home") async throws -> ServiceHandle<EchoService> {
    try await runtime.open(urn)
    return try #require(recorder.context(urn)).services.service(EchoService.self)
  }

  @Test func aModuleCallsAnotherPluginsServiceAsAMethod() async throws {
    let echo = try await echo()
    #expect(try await echo.echo("hi") == "echo: hi")
    #expect(try await echo.echo("again") == "echo: again")
    #expect(EchoProvider.made == 1)
    let logged = runtime.services.recentLog.filter { $0.contains("echo.echo") }
    #expect(logged.count == 2)
    #expect(logged.allSatisfy { $0.contains("user:home") && $0.contains("Echo") && $0.contains("answered") })
  }

  @Test func theProvidersDeclaredErrorReachesTheConsumerAsItsOwnType() async throws {
    let echo = try await echo()
    await #expect(throws: EchoRefusal(why: "no")) { try await echo.refuse("no") }
  }

  @Test func anOperationTheProviderDoesNotAnswerFailsNamingIt() async throws {
    let echo = try await echo()
    do {
      _ = try await echo.unanswered(1)
      Issue.record("an unanswered operation answered")
    } catch let error as ServiceCallError {
      #expect(error.kind == .failed)
      #expect(error.reason.contains("unanswered"))
    }
  }

  @Test func aModuleThatDoesNotRequireTheServiceIsRefused() async throws {
    let echo = try await echo(from: "echo:home")
    do {
      _ = try await echo.echo("hi")
      Issue.record("an undeclared call answered")
    } catch let error as ServiceCallError {
      #expect(error.kind == .undeclared)
    }
    #expect(EchoProvider.made == 0)
  }

  /// The router's own checks, not the handle's: a module that requires the
  /// echo service calls another it does not require.
  @Test func theHostRefusesACallToAServiceTheCallerDoesNotRequire() async throws {
    try await runtime.open("user:home")
    let context = try #require(recorder.context("user:home"))
    do {
      _ = try await context.services.service(TreeService.self).count(TreeService.Tree(name: "a", children: []))
      Issue.record("an undeclared service answered")
    } catch let error as ServiceCallError {
      #expect(error.kind == .undeclared)
      #expect(error.reason.contains("tree"))
    }
    #expect(runtime.services.recentLog.contains { $0.contains("service call tree.count") && $0.contains("undeclared") })
  }

  @Test func aCallPastItsDeadlineFailsAndIsCancelledInTheProvider() async throws {
    let echo = try await echo()
    let call = Task { try await echo.hang(1) }
    // In the provider, and its deadline set: 2 s on the host's virtual clock.
    let clock = runtime.services.clock
    for _ in 0..<1_000 where EchoProvider.entered == 0 || clock.sleeping == 0 { await Task.yield() }
    #expect(clock.sleeping == 1)
    await runtime.letTimePass(1)
    #expect(EchoProvider.cancelled == 0)
    await runtime.letTimePass(1.5)
    let result = await call.result
    #expect(throws: ServiceCallError.self) { try result.get() }
    if case .failure(let error as ServiceCallError) = result { #expect(error.kind == .deadline) }
    for _ in 0..<1_000 where EchoProvider.cancelled == 0 { await Task.yield() }
    #expect(EchoProvider.cancelled == 1)
  }

  @Test func aCallerCancelledCancelsTheCallInTheProvider() async throws {
    let echo = try await echo()
    let call = Task { try await echo.hang(1) }
    for _ in 0..<1_000 where EchoProvider.entered == 0 { await Task.yield() }
    call.cancel()
    let result = await call.result
    if case .failure(let error as ServiceCallError) = result {
      #expect(error.kind == .cancelled)
    } else {
      Issue.record("a cancelled call ended with \(result)")
    }
    for _ in 0..<1_000 where EchoProvider.cancelled == 0 { await Task.yield() }
    #expect(EchoProvider.cancelled == 1)
  }
}
