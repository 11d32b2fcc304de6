import Foundation
import Glibc
import ViperKit
import VivariumLoading
import VivariumSupport

/// Turning a plugin off and on while the app runs (OSGi's stop and start
/// of a bundle), in every session: from a module's "Turn on" button, from
/// the app, or from `vivarium plugins disable` beside it
/// (``keepHouse(every:)``). One change is carried out at a time, in the
/// order asked: a plugin turned off while it was being turned on ends off.
extension SharedHost {
  /// What turning a plugin off or on did, for the person.
  package struct Turned: Sendable, Equatable {
    /// The plugin's declared name.
    package let plugin: String
    /// Whether it was turned on.
    package let on: Bool
    /// The plugin files it concerned: none when no file found declares the name.
    package let files: [String]
    /// What went wrong: the choice could not be saved, or the plugin could
    /// not be loaded again.
    package var problem: String?

    /// Whether the choice took effect only in part (``problem`` says how).
    package var isPartial = false

    /// One sentence for a notice.
    package var summary: String {
      let state = on ? "on" : "off"
      if let problem {
        return isPartial
          ? "\(plugin) is turned \(state), but \(problem)" : "\(plugin) could not be turned \(state): \(problem)"
      }
      return "\(plugin) is turned \(state)."
    }
  }

  /// Turns the plugin `name` off, keeps the choice, and takes it out of
  /// the app: its routes, services and commands leave the catalog (a
  /// consumer's call gets ``ServiceCallError/Kind/unavailable``); in each
  /// session, a screen it shows is closed back to the one below, as
  /// after a crash that cannot be restarted; its process ends, and each
  /// of its modules still shown (embedded, or the first screen) says it
  /// is off and offers to turn it on.
  package func turnOff(_ name: String) async -> Turned {
    await inSwitchTurn {
      // Choices saved elsewhere since the last look are carried out first.
      await self.takeSwitchesSavedElsewhereInTurn()
      do throws(ChoicesFileError) {
        try self.switches.set(name, enabled: false)
      } catch {
        return Turned(plugin: name, on: false, files: [], problem: error.description)
      }
      return await self.takeOut(name)
    }
  }

  /// Turns the plugin `name` on, keeps the choice, and loads it again: its
  /// routes, services and commands come back, and its modules still shown
  /// are rebuilt in place, in every session.
  package func turnOn(_ name: String) async -> Turned {
    await inSwitchTurn {
      await self.takeSwitchesSavedElsewhereInTurn()
      do throws(ChoicesFileError) {
        try self.switches.set(name, enabled: true)
      } catch {
        return Turned(plugin: name, on: true, files: [], problem: error.description)
      }
      return await self.bringBack(name)
    }
  }

  /// Runs `change` after every change asked before it has been carried out.
  private func inSwitchTurn<T: Sendable>(_ change: @escaping @MainActor () async -> T) async -> T {
    let before = switchTurn
    let turn = Task { @MainActor in
      await before?.value
      return await change()
    }
    switchTurn = Task { _ = await turn.value }
    return await turn.value
  }

  /// Every `interval`, follows the choices saved in the data directory by
  /// another process (`vivarium plugins disable`: one look at the file's
  /// signature; a change is carried out and told in every session), the
  /// settings saved by another (`vivarium settings`: one look at the
  /// journal's name and size; the modules observing a setting changed are
  /// told) and the plugins' log levels (`vivarium log --set-level`: one
  /// more look), and, while someone looks, says what each plugin is doing:
  /// to each plugins screen open, and in the data directory for `vivarium
  /// plugins --live` when it asked (``PluginActivityFile``). An app nobody
  /// looks at pays four file looks a second. Ends with the host.
  package func keepHouse(every interval: Duration = .seconds(1)) {
    Task { [weak self] in
      while !Task.isCancelled {
        try? await Task.sleep(for: interval)
        guard let self else { return }
        await self.takeSwitchesSavedElsewhere()
        self.services.takeSettingsSavedElsewhere()
        self.services.followLogLevels()
        for screen in self.logScreens.objects { screen.refresh() }
        self.showActivity()
      }
    }
  }

  /// Shows what each plugin is doing to whoever looks: each plugins screen
  /// open, and `vivarium plugins --live` if it asked. The processes are
  /// sampled first, off the main actor, while the host goes on; a look
  /// asked while one is under way (a slow `/proc`) is not taken.
  func showActivity() {
    guard !lookUnderWay, !pluginsScreens.objects.isEmpty || isActivityAsked else { return }
    lookUnderWay = true
    Task { [weak self] in
      await self?.sampleProcesses()
      self?.lookUnderWay = false
      self?.publishActivity()
    }
  }

  /// Whether `vivarium plugins --live` asked this host what each plugin is doing.
  private var isActivityAsked: Bool {
    services.saveRefusal == nil && PluginActivityFile.isAsked(in: services.dataDirectory)
  }

  /// Shows the last sample to each plugins screen open now, and publishes
  /// it if asked.
  private func publishActivity() {
    let plugins = activity()
    for screen in pluginsScreens.objects { screen.show(plugins) }
    guard isActivityAsked else { return }
    let snapshot = PluginActivityFile(host: getpid(), time: Date().timeIntervalSince1970, plugins: plugins)
    do {
      try snapshot.write(in: services.dataDirectory)
    } catch {
      services.logLine(.warning, module: "host", "cannot publish what each plugin is doing: \(error)")
    }
  }

  /// Carries out the choices saved since they were last read, in turn.
  package func takeSwitchesSavedElsewhere() async {
    guard switches.isStale else { return }
    await inSwitchTurn { await self.takeSwitchesSavedElsewhereInTurn() }
  }

  private func takeSwitchesSavedElsewhereInTurn() async {
    guard switches.isStale else { return }
    let before = switches.disabled
    switches.reload()
    // A file that cannot be read changes nothing: the plugins stay as they are.
    if let damage = switches.damage {
      services.logLine(.warning, module: "host", damage)
      switches.keep(before)
      return
    }
    for name in switches.disabled.subtracting(before).sorted() { tell(await takeOut(name)) }
    for name in before.subtracting(switches.disabled).sorted() { tell(await bringBack(name)) }
  }

  /// Ends the process of the plugin `name`, as the person asked from the
  /// plugins screen: its modules show it ended, with a Restart button.
  package func endProcess(of name: String) {
    for plugin in catalog.loaded where plugin.name == name {
      plugin.runningProcess?.end()
    }
  }

  /// Starts the ended process of the plugin `name` again, and rebuilds its
  /// modules in their places in every session; a failure is told.
  package func restartProcess(of name: String) async {
    for plugin in catalog.loaded where plugin.name == name {
      guard let process = plugin.runningProcess, case .ended = process.state else { continue }
      if let rejection = await process.restart() {
        let text = "\(name) could not be restarted: \(rejection.reasons.joined(separator: "; "))"
        services.logLine(.warning, module: "host", text)
        for session in sessions { session.notifications.notice(text, tone: .negative) }
        continue
      }
      for session in sessions {
        await session.inTurn { await session.rebuildFailedModules(of: process) }
        session.onScreenChanged()
      }
    }
  }

  /// Says `turned` in the log and in every session.
  package func tell(_ turned: Turned) {
    services.logLine(turned.problem == nil ? .info : .warning, module: "host", turned.summary)
    for session in sessions {
      session.notifications.notice(turned.summary, tone: turned.problem == nil ? .info : .negative)
      session.onScreenChanged()
    }
  }

  private func takeOut(_ name: String) async -> Turned {
    let plugins = catalog.loaded.filter { $0.name == name }
    var outcome = catalog
    for plugin in plugins {
      outcome = outcome.replacing(
        .rejected(
          .disabled(
            plugin.path, name: name, offers: plugin.contracts.map(\.urn),
            invocation: services.invocation.with(.commandLine))))
    }
    if !plugins.isEmpty { catalog = outcome }
    var keptRunning = 0
    for plugin in plugins {
      // Ended first, so that no session's turn waits on it.
      if let process = plugin.runningProcess {
        process.turnOff(enableCommand: services.invocation.with(.commandLine).enabling(name))
      } else if !plugin.runsApart {
        // In the host's process it cannot be unloaded: it is kept to be taken back as it is.
        parkedPlugins[plugin.path] = plugin
        keptRunning += sessions.reduce(0) { $0 + $1.nodes.count { $0.pluginPath == plugin.path } }
      }
      for session in sessions {
        await session.inTurn { session.closeScreens(ofPlugin: plugin.path) }
        session.onScreenChanged()
      }
    }
    var turned = Turned(plugin: name, on: false, files: plugins.map(\.path), problem: nil)
    if keptRunning > 0 {
      turned.problem =
        "its \(Plural.count(keptRunning, "module")) already shown run in this process (--in-process) until the app starts again"
      turned.isPartial = true
    }
    return turned
  }

  private func bringBack(_ name: String) async -> Turned {
    let paths = catalog.rejected.filter { $0.kind == .disabled && $0.plugin == name }.map(\.path)
    guard !paths.isEmpty else { return Turned(plugin: name, on: true, files: [], problem: nil) }
    var problems: [String] = []
    var taken = false
    for path in paths {
      let outcome: PluginOutcome
      if let parked = parkedPlugins.removeValue(forKey: path) {
        outcome = .loaded(parked)
      } else if let reloader {
        outcome = await reloader.load(path)
      } else {
        var turned = Turned(
          plugin: name, on: true, files: paths, problem: "this host loads no plugin while it runs; start it again")
        turned.isPartial = true
        return turned
      }
      // Turned off again while it loaded: it stays off.
      guard !switches.isDisabled(name) else {
        if case .loaded(let plugin) = outcome { plugin.process?.terminate() }
        continue
      }
      let reload = await reload(outcome)
      problems += reload.problems
      taken = taken || reload.accepted
      // Refused: the catalog says why, not that it is off.
      if let refusal = reload.refusal { catalog = catalog.replacing(.rejected(refusal)) }
    }
    // Modules that could not show one of its modules while it was off try again.
    for session in sessions {
      await session.inTurn { await session.rebuildModules(missing: name) }
      session.onScreenChanged()
    }
    var turned = Turned(
      plugin: name, on: true, files: paths, problem: problems.isEmpty ? nil : problems.joined(separator: "; "))
    // Taken, with problems rebuilding some module: on, and said so.
    turned.isPartial = taken && turned.problem != nil
    return turned
  }
}

extension HostRuntime {
  /// Rebuilds in place each module that could not embed a module of the
  /// plugin `name` while it was off (``ModuleNode/missedPluginsTurnedOff``),
  /// so that it embeds it now.
  func rebuildModules(missing name: String) async {
    let wanting = nodes.filter { $0.missedPluginsTurnedOff.contains(name) }
    let outermost = wanting.filter { node in !wanting.contains { $0 !== node && node.isInside($0) } }
    for node in outermost { await rebuild(node) }
  }

  /// Closes each screen of the plugin file `path` back to the one below it
  /// (the plugin is off: it is not asked whether its screens may close),
  /// with the screens and modals opened over it. A first screen of the
  /// app stays, saying the plugin is off.
  func closeScreens(ofPlugin path: String) {
    for index in layers.indices.reversed() where index < layers.count {
      guard let lowest = layers[index].firstIndex(where: { $0.pluginPath == path }) else { continue }
      if lowest == 0 {
        if index > 0 { closeLayers(from: index) }
        continue
      }
      if index < layers.count - 1 { closeLayers(from: index + 1) }
      while layers[index].count > lowest { removeTop(ofLayer: index) }
    }
  }
}
