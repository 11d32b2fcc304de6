import Testing
import ViperKit

@testable import VivariumLoading
@testable import VivariumRuntime
@testable import VivariumSupport

/// A module inside a module of its own URN (a cycle) is refused at once,
/// naming the chain, and no tree grows deeper than the nesting limit: a
/// module that embeds itself cannot make the host build and draw without end.
@Suite("Nesting limits")
@MainActor
struct NestingTests {
  /// `loop:self` embeds itself; `loop:a` embeds `loop:b`, which embeds
  /// `loop:a`; `loop:host` accepts itself but embeds nothing; `loop:deep:{n}`
  /// embeds `loop:deep:{n + 1}` without end.
  private func loopRuntime() throws -> HostRuntime {
    func contract(_ urn: String, accepting accepted: String) -> Contract {
      Contract(
        urn: urn, summary: "A loop.", arguments: urn.contains("{n}") ? [.required("n", .int, "Level.")] : [],
        slots: [SlotSpec(name: "inner", accepts: [accepted], kind: .single, description: "Inside.")])
    }
    func factory(_ contract: Contract, embedding next: @escaping @MainActor @Sendable (ModuleContext) -> String?)
      -> any ModuleFactory
    {
      SelfEmbeddingFactory(
        contract: contract, tree: { .stack(.vertical, [.text($0), .slot("inner")]) },
        embeds: { context in next(context).map { [($0, "inner")] } ?? [] }
      ).factory
    }
    let factories: [any ModuleFactory] = [
      factory(contract("loop:self", accepting: "loop:self")) { _ in "loop:self" },
      factory(contract("loop:a", accepting: "loop:b")) { _ in "loop:b" },
      factory(contract("loop:b", accepting: "loop:a")) { _ in "loop:a" },
      factory(contract("loop:host", accepting: "loop:host")) { _ in nil },
      factory(contract("loop:deep:{n}", accepting: "loop:deep:{n}")) { context in
        "loop:deep:\((context.arguments.int("n") ?? 0) + 1)"
      },
    ]
    let catalog = PluginCatalog(outcomes: [.loaded(LoadedPlugin(path: "loop.so", name: "Loop", factories: factories))])
    return HostRuntime(catalog: catalog, services: try TestServices.make())
  }

  @Test(arguments: [("loop:self", "loop:self → loop:self"), ("loop:a", "loop:a → loop:b → loop:a")])
  func aModuleEmbeddingItselfIsRefusedAtOnceAndTheRestStays(urn: String, chain: String) async throws {
    let runtime = try loopRuntime()
    try await runtime.open(urn)
    let problems = runtime.takeProblems()
    #expect(problems.count == 1)
    let problem = try #require(problems.first)
    #expect(problem.cause == .cycle)
    #expect(problem.message.contains(chain), "\(problem.message)")
    // Everything up to the cycle is built, drawn and usable.
    let depth = chain.components(separatedBy: " → ").count - 1
    #expect(runtime.nodes.count == depth)
    let lines = try #require(runtime.screen()).lines(TextRenderer(width: 80))
    #expect(lines.first == urn)
    try await runtime.open("loop:host")
    #expect(runtime.top?.urn == "loop:host")
    runtime.shutdown()
  }

  @Test func aDeepLinkRepeatingAnAncestorIsRefused() async throws {
    let runtime = try loopRuntime()
    await #expect {
      try await runtime.open("loop:host/loop:host")
    } throws: { error in
      let error = try #require(error as? ResolveError)
      return error.kind == .cycle && error.message.contains("segment 2")
        && error.message.contains("loop:host → loop:host")
    }
    #expect(runtime.nodes.isEmpty)
  }

  @Test func nestingStopsAtTheLimitAndSaysSo() async throws {
    let runtime = try loopRuntime()
    try await runtime.open("loop:deep:1")
    let problems = runtime.takeProblems()
    #expect(problems.count == 1)
    let message = try #require(problems.first?.message)
    #expect(problems.first?.cause == .tooDeep)
    #expect(message.contains("'loop:deep:\(HostRuntime.nestingLimit + 1)'"), "\(message)")
    #expect(message.contains(SessionHeader.grouped(HostRuntime.nestingLimit)))
    #expect(runtime.nodes.count == HostRuntime.nestingLimit)
    runtime.shutdown()
  }
}
