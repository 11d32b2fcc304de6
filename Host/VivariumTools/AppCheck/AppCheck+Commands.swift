import ViperKit
import VivariumLoading
import VivariumRuntime
import VivariumSupport

extension AppCheck {
  /// The command conflicts of modules that can be on one screen: a module
  /// and those its slots may embed, theirs in turn, in the order their
  /// contracts declare them (``ScreenCommand/listed(_:)``, as the app lists
  /// them). Each conflict once, however many screens show it:
  /// `app.command-key-conflict` for a key the app takes or an earlier
  /// command has, `app.command-id-conflict` for an id an earlier one has.
  static func commandConflicts(_ flow: AppFlow) -> [AppFinding] {
    let embeds = Dictionary(grouping: flow.edges.filter { $0.kind == .embed }) { ObjectIdentifier($0.from) }
    var findings: [AppFinding] = []
    var said: Set<String> = []
    for root in flow.routes {
      // The modules that can be on a screen whose top is `root`, depth first.
      var shown: [Route] = []
      var seen: Set<ObjectIdentifier> = []
      var pending = [root]
      while let route = pending.popLast() {
        guard seen.insert(ObjectIdentifier(route)).inserted else { continue }
        shown.append(route)
        pending += (embeds[ObjectIdentifier(route)] ?? []).flatMap(\.to).reversed()
      }
      guard shown.contains(where: { !$0.contract.commands.isEmpty }) else { continue }
      let files = Dictionary(shown.map { ($0.pattern.text, $0.pluginPath) }, uniquingKeysWith: { first, _ in first })
      let listed = ScreenCommand.listed(
        shown.map {
          ScreenCommand.Offer(urn: $0.pattern.text, plugin: $0.identity.name, commands: $0.contract.commands)
        })
      for command in listed {
        guard let conflict = command.conflict else { continue }
        let module = command.urn
        let key = command.key ?? ""
        switch conflict {
        case .hostKey(let does):
          guard said.insert("\(module) \(command.id) host").inserted else { continue }
          findings.append(
            AppFinding(
              name: "app.command-key-conflict", severity: .failed, module: module, files: [files[module] ?? ""],
              message:
                "the command \(command.id) of \(module) (\(command.plugin)) has the key \(key), which the app takes for \(does)",
              fix: "give the command another key, or none: it still runs from the command line"))
        case .sameKey(let id, let plugin):
          let earlier = listed.first { $0.id == id && $0.plugin == plugin && $0.conflict == nil }
          let other = earlier?.urn ?? ""
          guard said.insert([module, other].sorted().joined(separator: " ") + " key \(key)").inserted else { continue }
          findings.append(
            AppFinding(
              name: "app.command-key-conflict", severity: .failed, module: module,
              files: [files[module] ?? "", files[other] ?? ""],
              message:
                "the commands \(id) of \(other) (\(plugin)) and \(command.id) of \(module) (\(command.plugin)) both have the key \(key), and can be on one screen (\(root.pattern.text)): only the first declared runs by it",
              fix: "give one of them another key"))
        case .sameID(let plugin):
          let other = listed.first { $0.id == command.id && $0.plugin == plugin }?.urn ?? ""
          guard said.insert([module, other].sorted().joined(separator: " ") + " id \(command.id)").inserted else {
            continue
          }
          findings.append(
            AppFinding(
              name: "app.command-id-conflict", severity: .failed, module: module,
              files: [files[module] ?? "", files[other] ?? ""],
              message:
                "\(other) (\(plugin)) and \(module) (\(command.plugin)) both offer the command \(command.id), and can be on one screen (\(root.pattern.text)): only the first declared runs",
              fix: "rename one of the commands"))
        }
      }
    }
    return findings
  }
}
