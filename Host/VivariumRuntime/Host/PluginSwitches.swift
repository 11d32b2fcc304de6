import Foundation
import VivariumLoading
import VivariumSupport

/// The plugins the person turned off, by the name each declares, kept in
/// `plugins.json` in the data directory (VS Code's disabled extensions):
/// a plugin turned off is found and checked as any other, then kept out
/// of the catalog (``Rejection/Kind/disabled``), so that none of its
/// modules, routes, services or commands is offered until it is turned on.
///
/// A name turns off every file that declares it: turning off grants
/// nothing, so a name claimed by another file loses nothing to it. The
/// file is read again before every change, so that `vivarium plugins
/// disable` beside a running app loses neither's choices; a file that
/// cannot be read is never overwritten (nothing a person saved is lost):
/// every plugin counts as on, and changes fail, naming it.
package struct PluginSwitches: Sendable {
  private struct Contents: Codable {
    var format = 1
    var disabled: [String] = []
  }

  private var file: ChoicesFile<Contents>

  /// The choices kept in `dataDirectory`.
  package init(dataDirectory: String) {
    file = ChoicesFile(
      path: dataDirectory + "/plugins.json", empty: Contents(), limit: FileContents.Limit.pluginSwitches,
      what: "a list of plugins turned off", meanwhile: "every plugin is on")
  }

  /// The file: `plugins.json` in the data directory.
  package var path: String { file.path }
  /// The names turned off, as last read.
  package var disabled: Set<String> { Set(file.contents.disabled) }
  /// Why the file could not be read, when it could not.
  package var damage: String? { file.damage }
  /// Whether the file changed since it was read (another process's
  /// `vivarium plugins disable`): a look at its signature, not a read.
  package var isStale: Bool { file.isStale }

  /// Reads the file again if it changed since it was read.
  package mutating func reload() { file.reload() }

  /// Keeps `disabled` as the names turned off, whatever the file says (a
  /// file that cannot be read changes nothing in a running app).
  package mutating func keep(_ disabled: Set<String>) {
    file.keep(Contents(disabled: disabled.sorted()))
  }

  /// Whether the plugin named `name` is turned off.
  package func isDisabled(_ name: String) -> Bool { disabled.contains(name) }

  /// `outcomes` with each loaded plugin turned off kept off
  /// (``Rejection/disabled(_:name:invocation:)``), the command that turns
  /// it on written as `invocation` names it; a process already started
  /// for one ends.
  @MainActor
  package func keepingOffDisabled(_ outcomes: [PluginOutcome], invocation: Invocation = .plain) -> [PluginOutcome] {
    guard !disabled.isEmpty else { return outcomes }
    return outcomes.map { outcome in
      guard case .loaded(let plugin) = outcome, isDisabled(plugin.name) else { return outcome }
      plugin.process?.terminate()
      return .rejected(
        .disabled(plugin.path, name: plugin.name, offers: plugin.contracts.map(\.urn), invocation: invocation))
    }
  }

  /// Turns the plugin `name` off (`enabled` false) or on, after reading the
  /// file again, and saves it. Returns whether that changed anything.
  @discardableResult
  package mutating func set(_ name: String, enabled: Bool) throws(ChoicesFileError) -> Bool {
    try file.change { contents in
      var disabled = Set(contents.disabled)
      let changed = enabled ? disabled.remove(name) != nil : disabled.insert(name).inserted
      contents.disabled = disabled.sorted()
      return changed
    }
  }
}
