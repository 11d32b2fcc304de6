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

  /// The outcome of the module check `id`; nil for a check of another
  /// scope (the file, the plugin, the sandbox), which is run elsewhere.
  func run(_ id: CheckID) -> Outcome? {
    switch id {
    case .contractWellformed: wellFormed()
    case .buildMinimal: buildMinimal()
    case .buildMissingArgument: buildMissing()
    case .buildWrongType: buildWrongType()
    case .buildUnknownArgument: buildUnknown()
    case .presentationFirstCycle: firstCycle()
    case .presentationInteraction: interaction()
    case .compositionSlots: slots()
    case .compositionOutputs: outputs()
    case .compositionInputs: inputs()
    case .compositionLifecycle: lifecycle()
    case .navigationDeclared: declaredNavigation()
    case .navigationBack: back()
    case .servicesDeclared: declaredServices()
    case .leaksTeardown: leaksAfterTeardown()
    case .leaksRepeated: leaksRepeated()
    case .concurrencyBuild: concurrentBuilds()
    case .speedFirstRender: firstRenderSpeed()
    case .loadFile, .loadEntry, .descriptorMagic, .descriptorAbi, .descriptorSdk, .descriptorCompiler,
      .descriptorExports, .contractUnambiguous, .serviceAnswers, .speedLoad, .sandboxRefused:
      nil
    }
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
    let problems = ContractCheck.problems(contract)
    return problems.isEmpty ? .passed("the contract is well formed") : .failed(problems.joined(separator: "; "))
  }

  // MARK: Build

  func buildMinimal() -> Outcome {
    let arguments = SampleValues.arguments(contract)
    do {
      let module = try harness(arguments)
      module.presentNow()
      module.tearDown()
      let declared = contract.arguments.map(\.name)
      let misread = module.undeclaredArguments.map { name in
        "read the argument '\(name)', which the contract does not declare (it declares \(declared.isEmpty ? "none" : declared.joined(separator: ", "))): a misspelt name reads nothing; read a declared one"
      }
      let problems = misread + module.ambiguities
      guard problems.isEmpty else { return .failed(problems.joined(separator: "; ")) }
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
    return events + contract.commands.map { .command(id: $0.id) }
  }

  /// What presenting a module and acting on it did.
  struct Interaction {
    /// How many actions were performed.
    var actions = 0
    /// The outputs emitted, presenting included.
    var outputs: [Message] = []
    /// The requests made, presenting included.
    var requests: [RouteRequest] = []
    /// The host services used that the contract does not list, first use first.
    var undeclaredServices: [Services.Name] = []
    /// The business services called that the contract does not require.
    var unrequiredServices: [String] = []

    @MainActor mutating func add(_ module: ModuleHarness) {
      outputs += module.outputs
      requests += module.requests
      for service in module.services.undeclared where !undeclaredServices.contains(service) {
        undeclaredServices.append(service)
      }
      for service in module.services.unrequired where !unrequiredServices.contains(service) {
        unrequiredServices.append(service)
      }
    }
  }

  /// Performs each action on a fresh module, and delivers each declared
  /// input to one: what presenting, acting, answering and tearing down did.
  func interact(fuzz: Bool) throws(HarnessError) -> Interaction {
    var done = Interaction()
    guard let first = try? harness() else { return done }
    first.presentNow()
    let events = actions(first.tree, fuzz: fuzz)
    first.tearDown()
    done.add(first)
    for event in events {
      guard let module = try? harness() else { continue }
      module.presentNow()
      // Data the module shares on purpose (one data manager per process) may
      // have changed under an earlier action: act only on what is drawn now.
      guard ViewElements(module.tree).problem(with: event) == nil else {
        module.tearDown()
        continue
      }
      do {
        try module.send(event)
      } catch {
        module.tearDown()
        throw error
      }
      module.tearDown()
      done.add(module)
      done.actions += 1
    }
    // What the module does when its parent sends an input; one it refuses
    // is composition.inputs' to report.
    for spec in contract.inputs {
      guard let module = try? harness() else { continue }
      module.presentNow()
      try? module.receive(SampleValues.message(spec), from: .parent(urn: "probe:parent"))
      module.tearDown()
      done.add(module)
    }
    return done
  }

  func interaction() -> Outcome {
    do {
      let count = try interact(fuzz: true).actions
      return count == 0
        ? .skipped("the first screen has nothing to act on") : .passed("performed \(self.count(count, "action"))")
    } catch {
      return .failed("an element the view drew could not be acted on: \(error)")
    }
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
