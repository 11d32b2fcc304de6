import Testing
import ViperKit
import ViperKitHosting
import ViperKitTestKit
import VivariumTools

/// A module that, on attach, emits `emits`, and calls the echo service
/// from its work (whether its contract requires it or not).
struct FindingsFactory: RuntimeModule {
  let contract: Contract
  var emits: [Message] = []
  var callsEcho = false

  func build(_ context: ModuleContext) throws -> Module {
    let view = FindingsView(context: context, emits: emits, callsEcho: callsEcho)
    return Module(view: view, presenter: view)
  }
}

/// View and presenter in one: there is nothing to present.
final class FindingsView: ViperView, ViperPresenter {
  let context: ModuleContext
  let emits: [Message]
  let callsEcho: Bool

  init(context: ModuleContext, emits: [Message], callsEcho: Bool) {
    self.context = context
    self.emits = emits
    self.callsEcho = callsEcho
  }

  func lifecycle(_ event: LifecycleEvent) {
    guard event == .attach else { return }
    context.canvas.draw(.text("here"))
    for message in emits { context.messages.emit(message) }
    guard callsEcho else { return }
    let echo = context.services.service(EchoService.self)
    context.work.start("echo") { _ = try? await echo.echo("hello") }
  }

  func handle(_ event: ViewEvent) {}
}

/// A provider that fetches over http without listing `http` in its
/// services: the host hands it a stand-in that refuses.
@MainActor
final class UnlistedHTTPProvider: ServiceProvider {
  let http: (any HTTPClient)?
  init(services: Services) { http = services.http }

  func answer(_ answers: inout ServiceAnswers<EchoService>) {
    answers.on(\.echo) { [http] text in
      _ = try? await http?.send(HTTPRequest("https://example.org/" + text))
      return text
    }
  }
}

/// What the conformance checks find that they once let pass: every
/// failure of a check, not the first; an output declared and never sent;
/// a business service called without being required; a provider using a
/// host service it does not list, with advice that fits a provider.
@Suite("What the checks find")
@MainActor
struct CheckFindingsTests {
  private func result(_ check: CheckID, _ factory: any ModuleFactory) async -> CheckResult {
    await Conformance.runWithWork(check, on: factory, strictness: 10, plugin: [factory])
  }

  @Test func composition_outputsNamesEveryBadOutputNotOnlyTheFirst() async {
    let contract = Contract(
      urn: "test:outputs", summary: "Emits two bad outputs.",
      outputs: [MessageSpec(name: "refreshed", fields: ["count": .int], description: "Reloaded.")])
    let factory = FindingsFactory(
      contract: contract, emits: [Message("finished"), Message("refreshed", ["count": .string("3")])]
    ).factory
    let found = await result(.compositionOutputs, factory)
    #expect(found.status == .failed)
    #expect(found.message.contains("'finished'"), "the undeclared output: \(found.message)")
    #expect(found.message.contains("'count'"), "the declared output's wrongly typed field: \(found.message)")
  }

  @Test func anOutputDeclaredButNeverSentIsAWarningNamingIt() async {
    let contract = Contract(
      urn: "test:silent", summary: "Declares an output it never sends.",
      outputs: [MessageSpec(name: "picked", description: "Never sent.")])
    let found = await result(.compositionOutputs, FindingsFactory(contract: contract).factory)
    #expect(found.status == .warning)
    #expect(found.message.contains("'picked'"), "\(found.message)")
    let sent = FindingsFactory(contract: contract, emits: [Message("picked")]).factory
    #expect(await result(.compositionOutputs, sent).status == .passed)
  }

  @Test func aBusinessServiceCalledWithoutBeingRequiredFailsServicesDeclared() async {
    let unrequired = FindingsFactory(
      contract: Contract(urn: "test:caller", summary: "Calls echo, requires nothing."), callsEcho: true
    ).factory
    let found = await result(.servicesDeclared, unrequired)
    #expect(found.status == .failed)
    #expect(found.message.contains("'echo'"), "the service: \(found.message)")
    let required = FindingsFactory(
      contract: Contract(
        urn: "test:caller", summary: "Calls echo, requires it.", requires: [.required(EchoService.self, "1.0"..<"2")]),
      callsEcho: true
    ).factory
    #expect(await result(.servicesDeclared, required).status == .passed)
  }

  @Test func aProviderUsingAHostServiceItDoesNotListFailsWithAdviceForAProvider() async throws {
    let results = await Conformance.run(providers: [UnlistedHTTPProvider.self])
    let unlisted = try #require(results.first { $0.status == .failed }, "\(results)")
    #expect(unlisted.check == Conformance.providerCheck)
    #expect(unlisted.message.contains("'\(Services.Name.http)'"), "\(unlisted.message)")
    #expect(!unlisted.message.contains("contract"), "a provider has no contract: \(unlisted.message)")
    let one = await Conformance.runProviderCheck([UnlistedHTTPProvider.self])
    #expect(one.status == .failed)
    let answeringAdvice = try #require(ConformanceCheck.named(Conformance.providerCheck)?.fix)
    #expect(!one.message.contains(answeringAdvice), "advice about answering, for a use not listed: \(one.message)")
  }
}

/// A module whose factory reads the argument `read` and whose presenter and
/// interactor both take messages, when `bothReceive`.
struct MisreadingFactory: RuntimeModule {
  let contract: Contract
  let read: String
  var bothReceive = false

  final class Interactor: ViperInteractor, MessageReceiver {
    func receive(_ message: Message, from origin: MessageOrigin) {}
  }
  final class Plain: ViperInteractor {}

  func build(_ context: ModuleContext) throws -> Module {
    let city = context.arguments.string(read) ?? ""
    let view = FindingsView(context: context, emits: [], callsEcho: false)
    _ = city
    return Module(view: view, presenter: view, interactor: bothReceive ? Interactor() : Plain())
  }
}

extension FindingsView: MessageReceiver {
  func receive(_ message: Message, from origin: MessageOrigin) {}
}

/// Mistakes the compiler cannot see, as build.minimal finds them.
@Suite("What building finds")
@MainActor
struct BuildFindingsTests {
  private let weather = Contract(
    urn: "test:weather:{city}", summary: "The weather.", arguments: [.required("city", .string, "Where.")])

  @Test func aMisspeltArgumentNameIsAFindingNamingIt() {
    let misspelt = Conformance.run(
      .buildMinimal, on: MisreadingFactory(contract: weather, read: "cty").factory, strictness: 1)
    #expect(misspelt.status == .failed)
    #expect(misspelt.message.contains("'cty'") && misspelt.message.contains("city"), "\(misspelt.message)")
    let right = Conformance.run(
      .buildMinimal, on: MisreadingFactory(contract: weather, read: "city").factory, strictness: 1)
    #expect(right.status == .passed, "\(right.message)")
  }

  @Test func twoRolesTakingMessagesAreAFindingNamingThem() {
    let both = MisreadingFactory(contract: weather, read: "city", bothReceive: true).factory
    let found = Conformance.run(.buildMinimal, on: both, strictness: 1)
    #expect(found.status == .failed)
    #expect(
      found.message.contains("presenter") && found.message.contains("interactor")
        && found.message.contains("MessageReceiver"), "\(found.message)")
  }
}

/// What `vivarium check` says of the sandbox from its check processes'
/// replies: never a pass on the word of a process that crashed.
@Suite("The sandbox's findings")
struct SandboxFindingsTests {
  @Test func aCheckProcessThatCrashedMakesNoPassAndEachRefusalIsOnce() {
    let refusal = CheckReply.Refusal(module: "a:b", message: "tried to open /etc/passwd")
    let answered = CheckReply(
      results: [CheckResult(check: "build.minimal", status: .passed, module: "a:b", message: "built")],
      refusals: [refusal], unrecorded: 0)
    let twice = CheckReply.sandboxResults([answered, answered])
    #expect(twice.map(\.status) == [.failed] && twice.map(\.message) == [refusal.message])
    let quiet = CheckReply(results: answered.results, refusals: [], unrecorded: 0)
    #expect(CheckReply.sandboxResults([quiet]).map(\.status) == [.passed])
    let crashed = CheckReply(
      results: [CheckResult(check: "presentation.interaction", status: .crashed, module: "a:b", message: "SIGILL")],
      refusals: [], unrecorded: 0)
    let found = CheckReply.sandboxResults([quiet, crashed])
    #expect(found.map(\.status) == [.failed], "\(found)")
    #expect(found.first?.message.contains("presentation.interaction") == true)
  }
}
