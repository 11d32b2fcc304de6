import ViperKit
import VivariumSupport

/// A command a module on the current screen offers (``ViperKit/Contract/commands``),
/// as the command line and the keys help list it.
package struct ScreenCommand: Equatable, Sendable {
  /// What takes the command's key or id instead of it.
  package enum Conflict: Equatable, Sendable {
    /// The app takes the key for itself (``HostKeys``): what it does with it.
    case hostKey(does: String)
    /// A command listed before it on the screen has the same key: its id
    /// and its plugin.
    case sameKey(id: String, plugin: String)
    /// A command listed before it on the screen has the same id: its plugin.
    case sameID(plugin: String)
  }

  /// What the person types, and the module receives.
  package let id: String
  /// What it does.
  package let title: String
  /// The key as written (`r`, `Ctrl-R`), if it has one.
  package let key: String?
  /// The URN of the module offering it.
  package let urn: String
  /// The declared name of the module's plugin.
  package let plugin: String
  /// Why its key or its id does not run it, if one does not.
  package let conflict: Conflict?
  /// The module offering it.
  let nodeID: Int

  /// Whether typing its id runs it.
  package var runsByID: Bool {
    if case .sameID = conflict { return false }
    return true
  }

  /// The key that runs it: nil when it has none, or another takes it.
  package var runningKey: String? { conflict == nil ? key : nil }

  /// What the conflict is, for the person: `q is the app's quit`.
  package var conflictText: String? {
    switch conflict {
    case nil: nil
    case .hostKey(let does): "\(key ?? "") is the app's \(does)"
    case .sameKey(let id, let plugin): "\(key ?? "") runs \(id) of \(plugin)"
    case .sameID(let plugin): "\(id) runs the command of \(plugin)"
    }
  }
}

extension ScreenCommand {
  /// The commands one module on a screen offers.
  package struct Offer: Sendable {
    /// The module's URN (or pattern, where none is built).
    package let urn: String
    /// The declared name of its plugin.
    package let plugin: String
    /// What its contract declares.
    package let commands: [CommandSpec]
    /// The module, when one is built.
    package let nodeID: Int

    /// What the module `urn` of `plugin` offers.
    package init(urn: String, plugin: String, commands: [CommandSpec], nodeID: Int = 0) {
      self.urn = urn
      self.plugin = plugin
      self.commands = commands
      self.nodeID = nodeID
    }
  }

  /// The commands `offers` make on one screen, in order: the first declared
  /// wins. A command whose id an earlier one has, whose key the app takes
  /// (``HostKeys``), or whose key an earlier one has, has that conflict.
  package static func listed(_ offers: [Offer]) -> [ScreenCommand] {
    var commands: [ScreenCommand] = []
    var keys: [String: ScreenCommand] = [:]
    var ids: [String: ScreenCommand] = [:]
    for offer in offers {
      for spec in offer.commands {
        let key = spec.key?.name
        var conflict: Conflict?
        if let earlier = ids[spec.id] {
          conflict = .sameID(plugin: earlier.plugin)
        } else if let key, let does = HostKeys.use(of: key) {
          conflict = .hostKey(does: does)
        } else if let key, let earlier = keys[key] {
          conflict = .sameKey(id: earlier.id, plugin: earlier.plugin)
        }
        let command = ScreenCommand(
          id: spec.id, title: spec.title, key: key, urn: offer.urn, plugin: offer.plugin, conflict: conflict,
          nodeID: offer.nodeID)
        commands.append(command)
        if ids[spec.id] == nil { ids[spec.id] = command }
        if let key, conflict == nil { keys[key] = command }
      }
    }
    return commands
  }
}

extension HostRuntime {
  /// The commands the modules shown on the current screen offer: the top
  /// screen and the modules shown in its slots (not hidden tabs), in
  /// drawing order, each module's in the order its contract declares them.
  /// The first declared wins: a command whose key the app takes, or an
  /// earlier command on the screen takes, or whose id an earlier one has,
  /// is listed with that ``ScreenCommand/conflict``, and a notice says so
  /// once a session. A module shown twice offers its commands once.
  package func screenCommands() -> [ScreenCommand] {
    var routes: Set<ObjectIdentifier> = []
    let commands = ScreenCommand.listed(
      shownModules().filter { routes.insert(ObjectIdentifier($0.resolved.route)).inserted }.map { node in
        ScreenCommand.Offer(urn: node.urn, plugin: node.pluginName, commands: node.contract.commands, nodeID: node.id)
      })
    for command in commands {
      guard let text = command.conflictText,
        saidCommandConflicts.insert("\(command.plugin) \(command.id) \(text)").inserted
      else { continue }
      notifications.notice(
        TerminalText.visible(
          "The command \(command.id) of \(command.plugin) "
            + (command.runsByID ? "runs only from the command line here" : "does not run here") + ": \(text)."),
        tone: .warning)
    }
    return commands
  }

  /// The ids the command line runs on the current screen.
  package var commandIDs: [String] {
    screenCommands().filter(\.runsByID).map(\.id)
  }

  /// Runs the command `id` of the current screen, as its key or the
  /// command line does: its module receives ``ViperKit/ViewEvent/command(id:)``.
  package func run(command id: String) throws(ViewEventError) {
    let commands = screenCommands()
    guard let command = commands.first(where: { $0.id == id && $0.runsByID }),
      let node = shownModules().first(where: { $0.id == command.nodeID })
    else {
      let ids = commands.filter(\.runsByID).map(\.id)
      throw ViewEventError(
        "no module on this screen offers the command '\(Self.clipped(id))'; commands here: \(ids.isEmpty ? "none" : ids.joined(separator: ", "))"
      )
    }
    guard let view = node.module?.view else { throw ViewEventError("\(node.urn) has been detached") }
    touch(node)
    hostCall { view.handle(.command(id: id)) }
    drain()
  }

  /// The command the key `key` (`r`, `Ctrl-R`) runs on the current screen, if any.
  package func command(forKey key: String) -> ScreenCommand? {
    screenCommands().first { $0.runningKey == key }
  }

  /// The top screen and the modules shown in its slots, depth first, in
  /// the order the slots are declared.
  private func shownModules() -> [ModuleNode] {
    guard let top else { return [] }
    var shown: [ModuleNode] = []
    var pending = [top]
    while let node = pending.popLast() {
      shown.append(node)
      pending += node.slots.flatMap(\.visibleChildren).reversed()
    }
    return shown
  }
}
