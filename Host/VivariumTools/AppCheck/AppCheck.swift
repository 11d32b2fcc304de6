import ViperKit
import ViperKitHosting
import VivariumLoading
import VivariumSupport

/// `vivarium check --app`: proves, from the contracts alone, that every link
/// of an app resolves. Every declared target resolves to exactly one module
/// and passes arguments its contract accepts; every output a module expects
/// back is one its target declares; the start opens; every module is
/// reachable from the start, or listed as reachable only by deep link.
package enum AppCheck {
  /// Every finding about `flow`, in the order of its modules, and what
  /// stops working without each plugin named in `without`.
  package static func findings(_ flow: AppFlow, without: Set<String> = []) -> [AppFinding] {
    var findings = startFindings(flow)
    for rejection in flow.refused {
      findings.append(
        AppFinding(
          name: "app.plugin-refused", severity: .failed, module: nil, files: [rejection.path],
          message:
            "\(PathName.lastComponent(rejection.path)) was refused (\(rejection.kind.rawValue)): \(rejection.reasons.first ?? "see vivarium plugins")",
          fix: "fix or remove the file; 'vivarium plugins --plugins DIR' says what is wrong with it"))
    }
    for edge in flow.edges {
      findings += self.findings(edge)
    }
    findings += flow.services.findings.map { finding in
      // A choice among providers is the manifest's to make: it is involved too.
      let manifest = [.twoProviders, .unknownChoice].contains(finding.id) ? flow.manifest.map(\.path) : nil
      return AppFinding(
        name: name(of: finding.id), severity: finding.isError ? .failed : .note, module: nil,
        files: finding.plugins.map { flow.pluginFiles[$0] ?? $0 } + [manifest].compactMap { $0 },
        message: finding.message, fix: fix(for: finding.id))
    }
    var noted: Set<String> = []
    for route in flow.undeclared where noted.insert(route.pluginPath).inserted {
      findings.append(
        AppFinding(
          name: "app.navigation-undeclared", severity: .note, module: nil, files: [route.pluginPath],
          message:
            "\(file(route)) was built against ViperKit \(route.sdkVersion), whose contracts cannot declare what they open; its modules' navigation is not checked",
          fix:
            "rebuild it against ViperKit \(declaringSDK) or later and declare Contract.opens"
        ))
    }
    findings += unpublished(flow, without: without)
    findings += commandConflicts(flow)
    findings += withoutPlugins(without, flow)
    guard flow.manifest != nil, flow.startProblem == nil else { return findings }
    for route in flow.unreachable {
      findings.append(unreached(route, flow))
    }
    return findings
  }

  /// For each plugin of `names`, what stops working when it is turned
  /// off (`vivarium plugins disable`): the start, if it opens one of its
  /// modules; the other plugins' modules that open or embed one of its
  /// modules; and those of the other plugins (modules and services) that
  /// require a business service it provides. Nothing, a note says so too.
  static func withoutPlugins(_ names: Set<String>, _ flow: AppFlow) -> [AppFinding] {
    var findings: [AppFinding] = []
    for (plugin, path) in flow.pluginFiles.sorted(by: { $0.key < $1.key }) where names.contains(plugin) {
      var lost: [String] = []
      var files: [String] = []
      if flow.start.contains(where: { $0.pluginPath == path }) { lost.append("the app's start") }
      for edge in flow.edges where edge.from.pluginPath != path && edge.to.contains(where: { $0.pluginPath == path }) {
        lost.append("\(edge.from.pattern.text) \(edge.kind.verb) \(edge.pattern)")
        files.append(edge.from.pluginPath)
      }
      for service in flow.services.services where service.provider == plugin {
        for consumer in service.consumers where !consumer.isOptional && consumer.plugin != plugin {
          lost.append("\(consumer.described) requires \(service.name)")
          files.append(flow.pluginFiles[consumer.plugin] ?? consumer.plugin)
        }
      }
      if lost.isEmpty { lost.append("nothing else stops working") }
      findings.append(
        AppFinding(
          name: "app.without-plugin", severity: .note, module: nil, files: [path] + Set(files).sorted(),
          message: "without \(plugin): " + lost.joined(separator: "; "),
          fix: "nothing, if the app may run without it; otherwise keep it on"))
    }
    return findings
  }

  /// Each topic a plugin subscribes to that no other plugin of the app
  /// publishes (none but those of `without`, which are off): its
  /// subscribers never get an event.
  static func unpublished(_ flow: AppFlow, without: Set<String>) -> [AppFinding] {
    let published = Set(flow.topics.filter { !without.contains($0.key) }.values.flatMap(\.publishes))
    var findings: [AppFinding] = []
    for (plugin, topics) in flow.topics.sorted(by: { $0.key < $1.key }) where !without.contains(plugin) {
      for topic in topics.subscribes where !published.contains(topic) {
        findings.append(
          AppFinding(
            name: "app.event-unpublished", severity: .note, module: nil, files: [flow.pluginFiles[plugin] ?? plugin],
            message: "\(plugin) subscribes to '\(topic)', which no plugin of the app publishes: it never gets an event",
            fix: "add the plugin that publishes it to the directory, or remove the subscription"))
      }
    }
    return findings
  }

  /// The app finding's name for a service finding: `app.service-missing`.
  static func name(of service: ServiceFinding.ID) -> String {
    "app." + service.rawValue.replacingOccurrences(of: "service.", with: "service-")
  }

  private static func fix(for service: ServiceFinding.ID) -> String {
    switch service {
    case .missing: "add the plugin that provides the service to the directory, or make the requirement optional"
    case .outOfRange: "use a version of the provider in the range, or change the range the consumer accepts"
    case .cycle: "break the cycle: one of the services must not require the others"
    case .twoProviders, .unknownChoice:
      "name the provider to use under \"providers\" in vivarium-app.json: {\"providers\": {\"SERVICE\": \"PLUGIN\"}}"
    case .optionalAbsent: "nothing, if the consumer is meant to run without it"
    }
  }

  /// What is said of `route`, which nothing declared from the start reaches.
  private static func unreached(_ route: Route, _ flow: AppFlow) -> AppFinding {
    let name = "\(route.pattern.text) (\(file(route)))"
    let declare = "declare it in the Contract.opens or a slot of a module that is reached"
    let reach = flow.reach(of: route) ?? .unreachable
    func finding(_ severity: AppFinding.Severity, message: String, fix: String) -> AppFinding {
      AppFinding(
        name: "app." + reach.rawValue, severity: severity, module: route.pattern.text, files: [route.pluginPath],
        message: message, fix: fix)
    }
    switch reach {
    case .unproven:
      let opener = flow.undeclared[0]
      return finding(
        .note,
        message:
          "nothing declared from the start leads to \(name), but \(opener.pattern.text) (\(file(opener))) declares nothing it opens and may",
        fix:
          "rebuild \(file(opener)) against ViperKit \(declaringSDK) or later and declare what it opens, or \(declare)")
    case .deepLinkOnly:
      return finding(
        .note, message: "\(name) is reached only by a deep link: nothing the start leads to opens or embeds it",
        fix: "nothing, if a link is the way in; otherwise \(declare)")
    case .unreachable:
      return finding(
        .failed,
        message:
          "\(name) cannot be reached: nothing the start leads to opens or embeds it, and the app has no scheme for deep links",
        fix: "\(declare), give the manifest a \"scheme\", or remove the module")
    }
  }

  private static func startFindings(_ flow: AppFlow) -> [AppFinding] {
    if let problem = flow.manifestProblem {
      return [
        AppFinding(
          name: "app.manifest", severity: .failed, module: nil, files: [problem.path],
          message: "\(PathName.lastComponent(problem.path)) \(problem.reason)",
          fix: "write it as {\"name\": \"My app\", \"start\": \"URN\", \"scheme\": \"my-app\"} (scheme optional)")
      ]
    }
    guard let manifest = flow.manifest else {
      return [
        AppFinding(
          name: "app.manifest", severity: .failed, module: nil, files: [],
          message: "the directory has no \(AppManifest.fileName), so the app has no start",
          fix: "write \(AppManifest.fileName) beside the plugins: {\"name\": \"My app\", \"start\": \"URN\"}")
      ]
    }
    guard let problem = flow.startProblem else { return [] }
    return [
      AppFinding(
        name: "app.start", severity: .failed, module: nil, files: [manifest.path],
        message: "the start '\(manifest.start)' does not open: \(problem)",
        fix: "set \"start\" in \(manifest.path) to a URN or deep link of the modules in the directory")
    ]
  }

  private static func findings(_ edge: AppFlow.Edge) -> [AppFinding] {
    let from = edge.from
    let declaration =
      edge.slot.map { "slot '\($0)' accepting \"\(edge.pattern)\"" }
      ?? ".\(edge.kind.rawValue)(\"\(edge.pattern)\") in Contract.opens"
    let opener = "\(from.pattern.text) (\(file(from)))"
    func finding(_ name: String, _ message: String, _ fix: String, _ others: [Route]) -> AppFinding {
      AppFinding(
        name: name, severity: .failed, module: from.pattern.text,
        files: [from.pluginPath] + others.map(\.pluginPath).filter { $0 != from.pluginPath }, message: message,
        fix: fix)
    }
    guard edge.to.count == 1, let target = edge.to.first else {
      if edge.to.isEmpty {
        return [
          finding(
            "app.target-unresolved", "\(opener) declares \(declaration), which no module in the directory answers",
            "correct the pattern, or add the plugin that answers it to the directory", [])
        ]
      }
      let modules = edge.to.map { "\($0.pattern.text) (\(file($0)))" }.joined(separator: ", ")
      return [
        finding(
          "app.target-ambiguous", "\(opener) declares \(declaration), which matches \(modules)",
          "declare a pattern only one module answers (a literal segment where theirs differ)", edge.to)
      ]
    }
    var found = argumentProblems(edge, target).map {
      finding(
        "app.target-arguments", "\(opener) \($0)",
        "make the two agree: the target's arguments in Contract.opens of \(from.pattern.text), or the arguments of \(target.pattern.text)",
        [target])
    }
    for expected in edge.target?.expects ?? [] {
      let problem = expectProblem(expected, target)
      if let problem {
        found.append(
          finding(
            "app.expects",
            "\(opener) expects '\(expected.name)' back from \(target.pattern.text) (\(file(target))), \(problem)",
            "make the two agree: the expects of \(declaration), or the outputs of \(target.pattern.text)", [target]))
      }
    }
    return found
  }

  /// What is wrong with the arguments `edge` passes to `target`: each
  /// placeholder of the target binds from the declared pattern's segment in
  /// its place (a literal must be a value it accepts, a placeholder typed in
  /// the declaration must have its type), each other declared argument must
  /// be one it takes, with its type, and every required one must be given.
  static func argumentProblems(_ edge: AppFlow.Edge, _ target: Route) -> [String] {
    guard let declared = try? URNPattern(parsing: edge.pattern) else { return [] }
    let types = edge.target?.arguments ?? [:]
    let contract = target.contract
    let module = "\(target.pattern.text) (\(file(target)))"
    let passes = edge.kind.verb
    var problems: [String] = []
    var given: Set<String> = []
    for (theirs, ours) in zip(target.pattern.segments, declared.segments) {
      guard case .placeholder(let name) = theirs, let spec = contract.argument(named: name) else { continue }
      given.insert(name)
      switch ours {
      case .literal(let value):
        if case .failure(let refused) = ArgumentCheck.value(value, for: spec) {
          problems.append(
            "\(passes) \(edge.pattern), whose '\(value)' is the argument '\(name)' of \(module), which \(refused.requirement)"
          )
        }
      case .placeholder(let placeholder):
        if let type = types[placeholder], type != spec.type {
          problems.append(
            "\(passes) \(edge.pattern) passing {\(placeholder)} as \(ArgumentCheck.article(type)), but \(module) takes it as '\(name)', \(ArgumentCheck.article(spec.type))"
          )
        }
      }
    }
    for (name, type) in types.sorted(by: { $0.key < $1.key }) where !declared.placeholders.contains(name) {
      given.insert(name)
      guard let spec = contract.argument(named: name) else {
        problems.append(
          "\(passes) \(edge.pattern) passing '\(name)', which \(module) does not take; it takes \(ArgumentCheck.describe(contract.arguments))"
        )
        continue
      }
      if spec.type != type {
        problems.append(
          "\(passes) \(edge.pattern) passing '\(name)' as \(ArgumentCheck.article(type)), but \(module) takes it as \(ArgumentCheck.article(spec.type))"
        )
      }
    }
    for spec in contract.arguments where spec.required && !given.contains(spec.name) {
      problems.append(
        "\(passes) \(edge.pattern) without '\(spec.name)', which \(module) requires (\(spec.type))")
    }
    return problems
  }

  /// Why `target` does not declare the output `expected`, or nil if it does.
  private static func expectProblem(_ expected: MessageSpec, _ target: Route) -> String? {
    guard let output = target.contract.outputs.first(where: { $0.name == expected.name }) else {
      let outputs = target.contract.outputs.map(\.name)
      return
        "which declares no such output (its outputs: \(outputs.isEmpty ? "none" : outputs.joined(separator: ", ")))"
    }
    guard output.fields != expected.fields else { return nil }
    return "whose fields are \(fields(output)), not \(fields(expected))"
  }

  private static func fields(_ message: MessageSpec) -> String {
    message.fields.isEmpty ? "none" : ArgumentCheck.describe(message.fields)
  }

  private static func file(_ route: Route) -> String { PathName.lastComponent(route.pluginPath) }

  /// `2.4`: the first ViperKit whose contracts declare navigation.
  private static var declaringSDK: String {
    "\(NavigationCheck.declaredSince.major).\(NavigationCheck.declaredSince.minor)"
  }
}
