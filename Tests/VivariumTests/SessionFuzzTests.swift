import Testing
import ViperKit

@testable import VivariumRuntime
@testable import VivariumSupport

/// Generated session lines, mostly malformed, through the parser, the address
/// lookup and whole sessions over composed screens: none may trap, and every
/// refusal must say what is wrong.
@Suite("Fuzzing session lines")
@MainActor
struct SessionFuzzTests {
  /// Lines parsed, and looked up where they hold an address.
  static let lineCount = 100_000
  /// Every this many lines, one is also run as a whole session command.
  static let executeEvery = 25

  /// The demo app signed in, its tabs slot showing the items list.
  private static func demoSession() async throws -> Session {
    let runtime = HostRuntime(catalog: BuildProducts.demoCatalog, services: try TestServices.make())
    let session = Session(
      runtime: runtime, renderer: TextRenderer(), plugins: "plugins", routes: "routes", scheme: nil,
      settleLimit: TestServices.settleLimit)
    try await runtime.open("dashboard:home?user=ada/feed:home")
    return session
  }

  /// `probe:parent` with two children in its stack slot, two in its tabs and one in its single slot.
  private static func composeProbes(_ probes: ProbeHost) async throws {
    try await probes.runtime.open("probe:parent/probe:child:1/probe:child:2")
    try probes.request(from: "probe:parent") { router in
      router.embed("probe:child:3", in: "tabs")
      router.embed("probe:child:4", in: "tabs")
      router.embed("probe:child:5", in: "one")
    }
  }

  /// The modules drawn on the current screen.
  private static func shown(_ runtime: HostRuntime) -> [ModuleNode] {
    func walk(_ node: ModuleNode) -> [ModuleNode] { [node] + node.visibleChildren.flatMap(walk) }
    return runtime.top.map(walk) ?? []
  }

  private static func address(of command: SessionCommand) -> String? {
    switch command {
    case .tap(let address), .select(let address, _), .type(let address, _): address
    default: nil
    }
  }

  /// What the lookups found, and what went wrong; a test expects `problems` empty.
  @MainActor
  private struct Tally {
    var located = 0
    var refusedEmpty = 0
    var refusedOther = 0
    var parseErrors = 0
    var executed = 0
    var problems: [String] = []

    mutating func note(_ problem: String) {
      if problems.count < 10 { problems.append(problem) }
    }

    mutating func lookUp(_ address: String, in runtime: HostRuntime) {
      let hasEmptyPart = address.split(separator: "/", omittingEmptySubsequences: false).contains { $0.isEmpty }
      do {
        let (node, id) = try runtime.locate(address)
        located += 1
        if hasEmptyPart { note("'\(address.prefix(80))' has an empty part but was located") }
        if id.isEmpty || id.contains("/") { note("'\(address.prefix(80))' gave the element id '\(id.prefix(80))'") }
        if !SessionFuzzTests.shown(runtime).contains(where: { $0 === node }) {
          note("'\(address.prefix(80))' named \(node.urn), which is not on screen")
        }
      } catch {
        if hasEmptyPart {
          refusedEmpty += 1
          if !error.message.contains("empty") { note("'\(address.prefix(80))': \(error.message.prefix(200))") }
        } else {
          refusedOther += 1
          if error.message.isEmpty { note("'\(address.prefix(80))' was refused without a reason") }
        }
      }
    }
  }

  @Test func generatedLinesNeverTrapAndRefusalsSayWhy() async throws {
    var grammar = SessionLineGrammar(seed: 0x5EED_0008)
    let demo = try await Self.demoSession()
    let probes = try ProbeHost()
    try await Self.composeProbes(probes)
    let probeSession = Session(
      runtime: probes.runtime, renderer: TextRenderer(), plugins: "plugins", routes: "routes", scheme: "vivarium-demo")
    var tally = Tally()
    for number in 1...Self.lineCount {
      let line = grammar.line()
      do {
        if let command = try SessionCommand.parse(line), let address = Self.address(of: command) {
          tally.lookUp(address, in: demo.runtime)
          tally.lookUp(address, in: probes.runtime)
        }
      } catch {
        tally.parseErrors += 1
        if error.message.isEmpty { tally.note("'\(line.prefix(80))' was refused without a reason") }
      }
      guard number % Self.executeEvery == 0 else { continue }
      let session = number % (2 * Self.executeEvery) == 0 ? demo : probeSession
      let step = await session.execute(line)
      tally.executed += 1
      if step.errors.contains(where: \.isEmpty) { tally.note("'\(line.prefix(80))' failed without a reason") }
      if step.screen != nil, let header = step.output.first, header.count > 80 {
        tally.note("'\(line.prefix(80))' drew a header of \(header.count) columns")
      }
      if number % 1_000 == 0 {
        try await demo.runtime.open("dashboard:home?user=ada/feed:home")
        try await Self.composeProbes(probes)
      }
    }
    #expect(tally.problems.isEmpty)
    #expect(tally.executed == Self.lineCount / Self.executeEvery)
    #expect(tally.located > 1_000, "the grammar should reach real elements")
    #expect(tally.refusedEmpty > 1_000, "the grammar should make addresses with empty parts")
    #expect(tally.refusedOther > 1_000)
    #expect(tally.parseErrors > 1_000)
  }
}
