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

  /// The file: `plugins.json` in the data directory.
  package let path: String
  /// The names turned off, as last read.
  package private(set) var disabled: Set<String> = []
  /// Why the file could not be read, when it could not.
  package private(set) var damage: String?
  /// The file as it was when last read; nil when there was none.
  private var readAs: FileSignature?

  /// The choices kept in `dataDirectory`.
  package init(dataDirectory: String) {
    path = dataDirectory + "/plugins.json"
    read()
  }

  /// Whether the file changed since it was read (another process's
  /// `vivarium plugins disable`): a look at its signature, not a read.
  package var isStale: Bool { FileSignature(path) != readAs }

  /// Reads the file again if it changed since it was read.
  package mutating func reload() {
    if isStale || damage != nil { read() }
  }

  /// Reads the file as every file of the data directory is read
  /// (``FileContents/read(_:limit:holds:)``: no link, no FIFO, yours, small).
  private mutating func read() {
    readAs = FileSignature(path)
    disabled = []
    damage = nil
    let unusable: String
    switch FileContents.read(path, limit: FileContents.Limit.pluginSwitches) {
    case .missing: return
    case .failed(let code): unusable = AtomicFile.errorText(code)
    case .refused(let reason): unusable = reason
    case .data(let data):
      do {
        disabled = Set(try JSONDecoder().decode(Contents.self, from: data).disabled)
        return
      } catch {
        unusable = "it is not a list of plugins turned off: \(error)"
      }
    }
    damage = "\(path) cannot be used (\(unusable)); every plugin is on until it is fixed or removed"
  }

  /// Keeps `disabled` as the names turned off, whatever the file says (a
  /// file that cannot be read changes nothing in a running app).
  package mutating func keep(_ disabled: Set<String>) {
    self.disabled = disabled
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
  package mutating func set(_ name: String, enabled: Bool) throws(PluginSwitchesError) -> Bool {
    read()
    if let damage { throw PluginSwitchesError(description: damage) }
    let changed = enabled ? disabled.remove(name) != nil : disabled.insert(name).inserted
    guard changed else { return false }
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    do {
      let data = try encoder.encode(Contents(disabled: disabled.sorted()))
      try FileManager.default.createDirectory(
        atPath: PathName.parent(path), withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
      try AtomicFile.write(data + Data("\n".utf8), to: path)
    } catch {
      throw PluginSwitchesError(description: "\(path) could not be saved: \(error)")
    }
    readAs = FileSignature(path)
    return true
  }
}

/// The plugins turned off could not be read or saved.
package struct PluginSwitchesError: Error, CustomStringConvertible {
  /// What failed, naming the file.
  package let description: String
}
