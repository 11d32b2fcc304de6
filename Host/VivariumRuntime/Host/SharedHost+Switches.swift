import Foundation
import Glibc
import ViperKit
import VivariumLoading
import VivariumSupport

/// Turning a plugin off and on while the app runs (OSGi's stop and start
/// of a bundle), in every session: from a module's "Turn on" button, from
/// the app, or from `vivarium plugins disable` beside it
/// (``followSwitches(every:)``).
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
    package let problem: String?

    /// One sentence for a notice.
    package var summary: String {
      if let problem { return "\(plugin) could not be turned \(on ? "on" : "off"): \(problem)" }
      let found = files.isEmpty ? " (no plugin file found declares it)" : ""
      return "\(plugin) is turned \(on ? "on" : "off")\(found)."
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
    do {
      try switches.set(name, enabled: false)
    } catch {
      return Turned(plugin: name, on: false, files: [], problem: error.description)
    }
    return await takeOut(name)
  }

  /// Turns the plugin `name` on, keeps the choice, and loads it again: its
  /// routes, services and commands come back, and its modules still shown
  /// are rebuilt in place, in every session.
  package func turnOn(_ name: String) async -> Turned {
    do {
      try switches.set(name, enabled: true)
    } catch {
      return Turned(plugin: name, on: true, files: [], problem: error.description)
    }
    return await bringBack(name)
  }

  /// Every `interval`, follows the choices saved in the data directory by
  /// another process (`vivarium plugins disable`: one look at the file's
  /// signature; a change is carried out and told in every session), and
  /// publishes what each plugin is doing for `vivarium plugins --live`
  /// (``PluginActivityFile``). Ends with the host.
  package func keepHouse(every interval: Duration = .seconds(1)) {
    Task { [weak self] in
      while !Task.isCancelled {
        try? await Task.sleep(for: interval)
        guard let self else { return }
        await self.takeSwitchesSavedElsewhere()
        self.refreshPluginsScreens()
        guard services.saveRefusal == nil else { continue }
        let snapshot = PluginActivityFile(host: getpid(), time: Date().timeIntervalSince1970, plugins: activity())
        try? snapshot.write(in: services.dataDirectory)
      }
    }
  }

  /// Carries out the choices saved since they were last read.
  package func takeSwitchesSavedElsewhere() async {
    guard switches.isStale else { return }
    let before = switches.disabled
    switches.reload()
    for name in switches.disabled.subtracting(before).sorted() { tell(await takeOut(name)) }
    for name in before.subtracting(switches.disabled).sorted() { tell(await bringBack(name)) }
  }

  /// Redraws each plugins screen open, in every session, with what each plugin is doing now.
  func refreshPluginsScreens() {
    for session in sessions {
      for node in session.nodes {
        if let view = node.module?.view as? PluginsScreen.View {
          view.presenter.refresh()
        }
      }
    }
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
      for session in sessions {
        await session.inTurn { session.closeScreens(ofPlugin: plugin.path) }
        session.onScreenChanged()
      }
      if let process = plugin.runningProcess {
        process.turnOff(enableCommand: services.invocation.with(.commandLine).command(["plugins", "enable", name]))
      } else {
        keptRunning += sessions.reduce(0) { $0 + $1.nodes.count { $0.pluginPath == plugin.path } }
      }
    }
    let problem =
      keptRunning == 0
      ? nil
      : "\(Plural.count(keptRunning, "module")) of it runs in this process (--in-process) and stays until the app starts again"
    return Turned(plugin: name, on: false, files: plugins.map(\.path), problem: problem)
  }

  private func bringBack(_ name: String) async -> Turned {
    let paths = catalog.rejected.filter { $0.kind == .disabled && $0.plugin == name }.map(\.path)
    guard !paths.isEmpty else { return Turned(plugin: name, on: true, files: [], problem: nil) }
    guard let reloader else {
      return Turned(
        plugin: name, on: true, files: paths, problem: "this host loads no plugin while it runs; start it again")
    }
    var problems: [String] = []
    for path in paths {
      let reload = await reload(await reloader.load(path))
      problems += reload.problems
    }
    // Modules that could not show one of its modules while it was off try again.
    for session in sessions {
      await session.inTurn { await session.rebuildModulesMissingATurnedOffPlugin() }
      session.onScreenChanged()
    }
    return Turned(
      plugin: name, on: true, files: paths, problem: problems.isEmpty ? nil : problems.joined(separator: "; "))
  }
}

extension HostRuntime {
  /// Rebuilds in place each module that could not embed a module of a
  /// plugin turned off (``ModuleNode/missedAPluginTurnedOff``), so that it
  /// embeds it again.
  func rebuildModulesMissingATurnedOffPlugin() async {
    let wanting = nodes.filter(\.missedAPluginTurnedOff)
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
