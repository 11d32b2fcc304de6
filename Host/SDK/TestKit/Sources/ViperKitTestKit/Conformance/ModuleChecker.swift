import ViperKit

/// The module checks, each on fresh modules built from one factory.
@MainActor
struct ModuleChecker {
  struct Outcome {
    let status: CheckStatus
    let message: String
    static func passed(_ message: String) -> Outcome { Outcome(status: .passed, message: message) }
    static func failed(_ message: String) -> Outcome { Outcome(status: .failed, message: message) }
    static func skipped(_ message: String) -> Outcome { Outcome(status: .skipped, message: message) }
    static func warning(_ message: String) -> Outcome { Outcome(status: .warning, message: message) }
  }

  let factory: any ModuleFactory
  let strictness: Int
  /// Every factory of the module's plugin, itself included.
  var siblings: [any ModuleFactory] = []
  /// Whether the plugin's contracts declare their navigation (built against
  /// ViperKit 2.4 or later).
  var declaresNavigation = true
  var contract: Contract { factory.contract }

  func run(_ name: String) -> Outcome? {
    let checks: [String: () -> Outcome] = [
      "contract.wellformed": wellFormed, "contract.services": services, "build.minimal": buildMinimal,
      "build.missing-argument": buildMissing, "build.wrong-type": buildWrongType,
      "build.unknown-argument": buildUnknown, "presentation.first-cycle": firstCycle,
      "presentation.interaction": interaction, "composition.slots": slots, "composition.outputs": outputs,
      "composition.inputs": inputs, "composition.lifecycle": lifecycle, "navigation.declared": declaredNavigation,
      "navigation.back": back, "leaks.teardown": leaksAfterTeardown,
      "leaks.repeated": leaksRepeated, "concurrency.build": concurrentBuilds, "speed.first-render": firstRenderSpeed,
    ]
    return checks[name].map { $0() }
  }

  /// A module built from the minimal valid arguments.
  func harness(_ arguments: [String: ArgumentValue]? = nil) throws -> ModuleHarness {
    let values = arguments ?? SampleValues.arguments(contract)
    return try ModuleHarness(factory, arguments: values)
  }

  /// Runs `body` on a presented module, or says why there is none.
  func presented(_ body: (ModuleHarness) -> Outcome) -> Outcome {
    do {
      let module = try harness()
      module.presentNow()
      defer { module.tearDown() }
      return body(module)
    } catch {
      return .skipped("the module does not build from the minimal arguments (see build.minimal)")
    }
  }

  // MARK: Contract

  func wellFormed() -> Outcome {
    let problems = ContractCheck.structuralProblems(contract)
    return problems.isEmpty ? .passed("the contract is well formed") : .failed(problems.joined(separator: "; "))
  }

  func services() -> Outcome {
    let problems = ContractCheck.serviceProblems(contract, knownServices: Services.Name.all)
    return problems.isEmpty
      ? .passed("requires \(contract.services.isEmpty ? "no services" : contract.services.joined(separator: ", "))")
      : .failed(problems.joined(separator: "; "))
  }

  // MARK: Build

  func buildMinimal() -> Outcome {
    let arguments = SampleValues.arguments(contract)
    do {
      _ = try harness(arguments).tearDown()
      return .passed("built with \(describe(arguments))")
    } catch {
      return .failed("build(_:) threw with the minimal valid arguments \(describe(arguments)): \(error)")
    }
  }

  func buildMissing() -> Outcome {
    let required = contract.arguments.filter(\.required)
    guard !required.isEmpty else { return .skipped("the contract has no required argument") }
    for spec in required {
      var arguments = SampleValues.arguments(contract)
      arguments[spec.name] = nil
      _ = try? harness(arguments).tearDown()
    }
    return .passed("without each of \(required.map(\.name).joined(separator: ", ")), build(_:) threw or coped; no trap")
  }

  func buildWrongType() -> Outcome {
    guard !contract.arguments.isEmpty else { return .skipped("the contract has no arguments") }
    for spec in contract.arguments {
      var arguments = SampleValues.arguments(contract)
      arguments[spec.name] = SampleValues.wrong(spec.type)
      _ = try? harness(arguments).tearDown()
    }
    return .passed("with a wrongly typed value for each argument, build(_:) threw or coped; no trap")
  }

  func buildUnknown() -> Outcome {
    var arguments = SampleValues.arguments(contract)
    arguments["undeclaredProbeArgument"] = .string("surprise")
    _ = try? harness(arguments).tearDown()
    return .passed("with an undeclared argument, build(_:) threw or coped; no trap")
  }

  // MARK: Presentation

  func firstCycle() -> Outcome {
    presented { module in
      guard let tree = module.tree else {
        return .failed(
          "attach and appear drew nothing; the view must call canvas.draw(_:), a loading state first when it starts work"
        )
      }
      let elements = ViewElements(tree)
      return .passed(
        "drew \(count(elements.buttons.count, "button")), \(count(elements.lists.count, "list")), \(count(elements.fields.count, "field"))"
      )
    }
  }

  /// Every action the first screen offers; with `fuzz`, fuzzed text from
  /// strictness 6 and every row.
  func actions(_ tree: ViewNode?, fuzz: Bool) -> [ViewEvent] {
    let elements = ViewElements(tree)
    let depth = fuzz ? strictness : min(strictness, 5)
    var events = elements.buttons.map { ViewEvent.tap(button: $0) }
    for (list, rows) in elements.lists.sorted(by: { $0.key < $1.key }) {
      let picked = depth >= 6 ? rows : Array(Set([rows.first, rows.last].compactMap { $0 })).sorted()
      events += picked.map { .select(list: list, row: $0) }
    }
    for field in elements.fields {
      events += SampleValues.texts(strictness: depth, seed: field).map { .type(field: field, text: $0) }
    }
    return events
  }

  /// Performs each action on a fresh module; returns the outputs emitted
  /// and the requests made, presenting included.
  func interact(fuzz: Bool) throws(HarnessError) -> (actions: Int, outputs: [Message], requests: [RouteRequest]) {
    guard let first = try? harness() else { return (0, [], []) }
    first.presentNow()
    let events = actions(first.tree, fuzz: fuzz)
    var outputs = first.outputs
    var requests = first.requests
    first.tearDown()
    var performed = 0
    for event in events {
      guard let module = try? harness() else { continue }
      module.presentNow()
      defer { module.tearDown() }
      // Data the module shares on purpose (one data manager per process) may
      // have changed under an earlier action: act only on what is drawn now.
      guard ViewElements(module.tree).problem(with: event) == nil else { continue }
      try module.send(event)
      outputs += module.outputs
      requests += module.requests
      performed += 1
    }
    return (performed, outputs, requests)
  }

  func interaction() -> Outcome {
    do {
      let (count, _, _) = try interact(fuzz: true)
      return count == 0
        ? .skipped("the first screen has nothing to act on") : .passed("performed \(self.count(count, "action"))")
    } catch {
      return .failed("an element the view drew could not be acted on: \(error)")
    }
  }

  // MARK: Composition

  func slots() -> Outcome {
    guard !contract.slots.isEmpty else { return .skipped("the contract declares no slot") }
    return presented { module in
      let drawn = ViewElements(module.tree).slots
      for slot in contract.slots {
        guard drawn.contains(slot.name) else {
          return .failed("declares slot '\(slot.name)' but its view never draws .slot(\"\(slot.name)\")")
        }
        for accepted in slot.accepts {
          guard let pattern = try? URNPattern(parsing: accepted),
            let probe = try? ParsedURN(parsing: accepted.replacingPlaceholders()),
            pattern.match(probe) != nil
          else { return .failed("slot '\(slot.name)' accepts '\(accepted)', which is not a valid URN pattern") }
        }
      }
      for case .embed(let urn, let slot) in module.requests {
        guard let spec = contract.slots.first(where: { $0.name == slot }) else {
          return .failed("asked to embed '\(urn)' in '\(slot)', which the contract does not declare")
        }
        let parsed = try? ParsedURN(parsing: urn)
        let accepted = spec.accepts.compactMap { try? URNPattern(parsing: $0) }.contains {
          parsed.flatMap($0.match) != nil
        }
        guard accepted else {
          return .failed(
            "asked to embed '\(urn)' in slot '\(slot)', which accepts \(spec.accepts.joined(separator: ", "))")
        }
      }
      return .passed("every slot is drawn and accepts a probe child of each pattern")
    }
  }

  func outputs() -> Outcome {
    guard let (_, emitted, _) = try? interact(fuzz: false) else { return .skipped("see presentation.interaction") }
    for message in emitted {
      guard let spec = contract.outputs.first(where: { $0.name == message.name }) else {
        return .failed("emitted '\(message.name)', which the contract does not declare as an output")
      }
      if let problem = MessageCheck.problem(message, spec) { return .failed("output \(problem)") }
    }
    return .passed(emitted.isEmpty ? "emitted no outputs" : "emitted \(count(emitted.count, "declared output"))")
  }

  func inputs() -> Outcome {
    guard !contract.inputs.isEmpty else { return .skipped("the contract declares no input") }
    return presented { module in
      for spec in contract.inputs {
        do {
          try module.receive(SampleValues.message(spec), from: .parent(urn: "probe:parent"))
        } catch {
          return .failed("declares the input '\(spec.name)' but \(error)")
        }
      }
      return .passed("accepted \(contract.inputs.map(\.name).joined(separator: ", "))")
    }
  }

  func lifecycle() -> Outcome {
    guard let module = try? harness() else { return .skipped("see build.minimal") }
    guard module.drawn.isEmpty, module.requests.isEmpty, module.outputs.isEmpty else {
      module.tearDown()
      return .failed("drew, navigated or emitted during build(_:); wait for attach")
    }
    for event: LifecycleEvent in [.attach, .appear, .disappear, .appear, .disappear, .detach] { module.send(event) }
    return .passed("nothing happened during build; handled attach, appear, disappear twice, detach")
  }

  /// `1 button`, `2 buttons`.
  func count(_ number: Int, _ noun: String) -> String { "\(number) \(noun)\(number == 1 ? "" : "s")" }

  private func describe(_ arguments: [String: ArgumentValue]) -> String {
    arguments.isEmpty
      ? "no arguments"
      : arguments.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
        .joined(separator: ", ")
  }
}

extension String {
  /// This URN text with any `{name}` segment replaced by `probe`.
  fileprivate func replacingPlaceholders() -> String {
    split(separator: ":", omittingEmptySubsequences: false).map { $0.hasPrefix("{") ? "probe" : String($0) }
      .joined(separator: ":")
  }
}
