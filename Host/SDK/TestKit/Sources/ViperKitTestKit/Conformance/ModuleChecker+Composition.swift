import ViperKit

/// The composition checks (slots, outputs, inputs, lifecycle) and the
/// services check: what a module does with its children, its parent and
/// its services while it is presented, acted on and torn down.
extension ModuleChecker {
  // MARK: Composition

  func slots() -> Outcome {
    guard !contract.slots.isEmpty else { return .skipped("the contract declares no slot") }
    var problems: [String] = []
    let drawn = presented { module in
      let drawn = ViewElements(module.tree).slots
      for slot in contract.slots {
        if !drawn.contains(slot.name) {
          problems.append("declares slot '\(slot.name)' but its view never draws .slot(\"\(slot.name)\")")
        }
        for accepted in slot.accepts {
          guard let pattern = try? URNPattern(parsing: accepted),
            let probe = try? ParsedURN(parsing: accepted.replacingPlaceholders()),
            pattern.match(probe) != nil
          else {
            problems.append("slot '\(slot.name)' accepts '\(accepted)', which is not a valid URN pattern")
            continue
          }
        }
      }
      return .passed("every slot is drawn and accepts a probe child of each pattern")
    }
    guard drawn.status == .passed else { return drawn }
    // Embeds asked for while presenting, acting on and tearing down the module.
    if let requests = try? interact(fuzz: false).requests {
      for case .embed(let urn, let slot) in requests {
        guard let spec = contract.slots.first(where: { $0.name == slot }) else {
          problems.append("asked to embed '\(urn)' in '\(slot)', which the contract does not declare")
          continue
        }
        let parsed = try? ParsedURN(parsing: urn)
        let accepted = spec.accepts.compactMap { try? URNPattern(parsing: $0) }.contains {
          parsed.flatMap($0.match) != nil
        }
        if !accepted {
          problems.append(
            "asked to embed '\(urn)' in slot '\(slot)', which accepts \(spec.accepts.joined(separator: ", "))")
        }
      }
    }
    let unique = problems.uniqued()
    return unique.isEmpty ? drawn : .failed(unique.joined(separator: "; "))
  }

  func outputs() -> Outcome {
    guard let emitted = try? interact(fuzz: false).outputs else { return .skipped("see presentation.interaction") }
    var problems: [String] = []
    for message in emitted {
      guard let spec = contract.outputs.first(where: { $0.name == message.name }) else {
        problems.append("emitted '\(message.name)', which the contract does not declare as an output")
        continue
      }
      if let problem = MessageCheck.problem(message, spec) { problems.append("output \(problem)") }
    }
    let unique = problems.uniqued()
    guard unique.isEmpty else { return .failed(unique.joined(separator: "; ")) }
    let names = Set(emitted.map(\.name))
    let neverSent = contract.outputs.map(\.name).filter { !names.contains($0) }
    guard neverSent.isEmpty else {
      return .warning(
        "declares \(neverSent.map { "'\($0)'" }.joined(separator: ", ")) in Contract.outputs but never emitted \(neverSent.count == 1 ? "it" : "them") while presented, acted on and sent each declared input, with fake services that answer nothing: a parent waiting for it waits forever. If it is sent only after a service answers or a screen the module opened closes, cover that in a test of your own"
      )
    }
    return .passed(emitted.isEmpty ? "emitted no outputs" : "emitted \(count(emitted.count, "declared output"))")
  }

  func inputs() -> Outcome {
    guard let sent = try? interact(fuzz: false).requests else { return .skipped("see presentation.interaction") }
    var problems: [String] = []
    for case .send(let message, let slot) in sent {
      if let problem = sendProblem(message, slot), !problems.contains(problem) { problems.append(problem) }
    }
    let sends = sent.filter { if case .send = $0 { true } else { false } }.count
    guard problems.isEmpty else { return .failed(problems.joined(separator: "; ")) }
    guard !contract.inputs.isEmpty else {
      return sends == 0
        ? .skipped("the contract declares no input, and the module sent none to a child")
        : .passed("sent \(count(sends, "input")) its children declare")
    }
    return presented { module in
      var refused: [String] = []
      for spec in contract.inputs {
        do {
          try module.receive(SampleValues.message(spec), from: .parent(urn: "probe:parent"))
        } catch {
          refused.append("declares the input '\(spec.name)' but \(error)")
        }
      }
      guard refused.isEmpty else { return .failed(refused.joined(separator: "; ")) }
      return .passed("accepted \(contract.inputs.map(\.name).joined(separator: ", "))")
    }
  }

  /// What is wrong with the module sending `message` to its child in
  /// `slot`: no such slot, or a module of this plugin the slot accepts does
  /// not declare the input with these fields. Children from other plugins
  /// are not known here.
  private func sendProblem(_ message: Message, _ slot: String) -> String? {
    let asked = "\(contract.urn) sent '\(message.name)' to its child in slot '\(slot)'"
    guard let spec = contract.slots.first(where: { $0.name == slot }) else {
      return "\(asked), which the contract does not declare"
    }
    for accepted in spec.accepts {
      guard let probe = try? ParsedURN(parsing: accepted.replacingPlaceholders()) else { continue }
      let matching = siblings.compactMap { sibling -> (contract: Contract, pattern: URNPattern)? in
        guard let pattern = try? URNPattern(parsing: sibling.contract.urn), pattern.match(probe) != nil else {
          return nil
        }
        return (sibling.contract, pattern)
      }
      guard
        let child = URNPattern.preferred(matching, for: probe.segments.map(Optional.some), pattern: \.pattern).first?
          .contract
      else { continue }
      guard let input = child.inputs.first(where: { $0.name == message.name }) else {
        return "\(asked), but \(child.urn), which the slot accepts, declares no input '\(message.name)'"
      }
      if let problem = MessageCheck.problem(message, input) { return "\(asked), but for \(child.urn) input \(problem)" }
    }
    return nil
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

  // MARK: Services

  func declaredServices() -> Outcome {
    guard let done = try? interact(fuzz: false) else { return .skipped("see presentation.interaction") }
    return undeclared(done.undeclaredServices, unrequired: done.unrequiredServices)
  }

  /// ``declaredServices()``, and what the work a presented module starts
  /// uses, run until it settles (work sleeping on the clock has settled).
  func declaredServicesWithWork() async -> Outcome {
    guard let done = try? interact(fuzz: false) else { return .skipped("see presentation.interaction") }
    var used = done.undeclaredServices
    var called = done.unrequiredServices
    if let module = try? harness() {
      await module.present()
      module.tearDown()
      used += module.services.undeclared.filter { !used.contains($0) }
      called += module.services.unrequired.filter { !called.contains($0) }
    }
    return undeclared(used, unrequired: called)
  }

  private func undeclared(_ used: [Services.Name], unrequired called: [String]) -> Outcome {
    let problems =
      used.map { UndeclaredService.problem($0, module: contract.urn) }
      + called.map { Self.unrequiredProblem($0, caller: contract.urn, list: "its contract's requires") }
    guard problems.isEmpty else { return .failed(problems.joined(separator: "; ")) }
    return .passed("used only the services its contract lists")
  }

  /// What is wrong when `caller` calls the business service `service`
  /// without listing it in `list`, and what to do.
  static func unrequiredProblem(_ service: String, caller: String, list: String) -> String {
    "\(caller) calls the business service '\(service)' without requiring it (the host refuses each such call): add .required or .optional for '\(service)' to \(list)"
  }
}

extension String {
  /// This URN text with any `{name}` segment replaced by `probe`.
  fileprivate func replacingPlaceholders() -> String {
    split(separator: ":", omittingEmptySubsequences: false).map { $0.hasPrefix("{") ? "probe" : String($0) }
      .joined(separator: ":")
  }
}

extension Array where Element: Hashable {
  /// The elements in order, each only the first time it comes.
  func uniqued() -> [Element] {
    var seen: Set<Element> = []
    return filter { seen.insert($0).inserted }
  }
}
