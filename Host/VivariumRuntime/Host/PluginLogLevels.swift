import Foundation
import ViperKit
import VivariumLoading
import VivariumSupport

/// The level each plugin logs at, by the name each declares, kept in
/// `log-levels.json` in the data directory: the host drops a line a plugin
/// logs below its level (``HostServices/logLine(_:module:_:by:)``). A
/// plugin with no level set logs at every level.
///
/// As ``PluginSwitches``: the file is read again before every change, so
/// that `vivarium log --set-level` beside a running app loses no level set
/// before; a file that cannot be read is never overwritten (nothing a
/// person saved is lost): every plugin logs at every level, and changes
/// fail, naming it.
package struct PluginLogLevels: Sendable {
  private struct Contents: Codable {
    var format = 1
    var levels: [String: LogLevel] = [:]
  }

  /// The level of a plugin with none set: the lowest, so every line is kept.
  package static let unset = LogLevel.allCases[0]

  private var file: ChoicesFile<Contents>

  /// The levels kept in `dataDirectory`.
  package init(dataDirectory: String) {
    let names = LogLevel.allCases.map(\.rawValue).joined(separator: ", ")
    file = ChoicesFile(
      path: dataDirectory + "/log-levels.json", empty: Contents(), limit: FileContents.Limit.logLevels,
      what: "each plugin's log level (\(names))", meanwhile: "every plugin logs at every level")
  }

  /// The file: `log-levels.json` in the data directory.
  package var path: String { file.path }
  /// Each plugin's level, as last read: only those set.
  package var levels: [String: LogLevel] { file.contents.levels }
  /// Why the file could not be read, when it could not.
  package var damage: String? { file.damage }
  /// Whether the file changed since it was read (another process's
  /// `vivarium log --set-level`): a look at its signature, not a read.
  package var isStale: Bool { file.isStale }

  /// Reads the file again if it changed since it was read.
  package mutating func reload() { file.reload() }

  /// Keeps `levels` as each plugin's level, whatever the file says (a file
  /// that cannot be read changes nothing in a running app).
  package mutating func keep(_ levels: [String: LogLevel]) {
    file.keep(Contents(levels: levels))
  }

  /// The level the plugin named `name` logs at.
  package func level(of name: String) -> LogLevel { levels[name] ?? Self.unset }

  /// Whether a line at `level` by the plugin named `name` is kept.
  package func keeps(_ level: LogLevel, by name: String) -> Bool {
    levels[name].map { level >= $0 } ?? true
  }

  /// Sets the level of the plugin `name` (``unset``: forgets it, so that it
  /// logs at every level), after reading the file again, and saves it.
  /// Returns whether that changed anything.
  @discardableResult
  package mutating func set(_ level: LogLevel, for name: String) throws(ChoicesFileError) -> Bool {
    try file.change { contents in
      guard (contents.levels[name] ?? Self.unset) != level else { return false }
      contents.levels[name] = level == Self.unset ? nil : level
      return true
    }
  }
}
