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

  /// The file: `log-levels.json` in the data directory.
  package let path: String
  /// Each plugin's level, as last read: only those set.
  package private(set) var levels: [String: LogLevel] = [:]
  /// Why the file could not be read, when it could not.
  package private(set) var damage: String?
  /// The file as it was when last read; nil when there was none.
  private var readAs: FileSignature?

  /// The levels kept in `dataDirectory`.
  package init(dataDirectory: String) {
    path = dataDirectory + "/log-levels.json"
    read()
  }

  /// Whether the file changed since it was read (another process's
  /// `vivarium log --set-level`): a look at its signature, not a read.
  package var isStale: Bool { FileSignature(path) != readAs }

  /// Reads the file again if it changed since it was read.
  package mutating func reload() {
    if isStale || damage != nil { read() }
  }

  /// Reads the file as every file of the data directory is read
  /// (``FileContents/read(_:limit:holds:)``: no link, no FIFO, yours, small).
  private mutating func read() {
    readAs = FileSignature(path)
    levels = [:]
    damage = nil
    let unusable: String
    switch FileContents.read(path, limit: FileContents.Limit.logLevels) {
    case .missing: return
    case .failed(let code): unusable = AtomicFile.errorText(code)
    case .refused(let reason): unusable = reason
    case .data(let data):
      do {
        levels = try JSONDecoder().decode(Contents.self, from: data).levels
        return
      } catch {
        let names = LogLevel.allCases.map(\.rawValue).joined(separator: ", ")
        unusable = "it is not each plugin's log level (\(names)): \(error)"
      }
    }
    damage = "\(path) cannot be used (\(unusable)); every plugin logs at every level until it is fixed or removed"
  }

  /// Keeps `levels` as each plugin's level, whatever the file says (a file
  /// that cannot be read changes nothing in a running app).
  package mutating func keep(_ levels: [String: LogLevel]) {
    self.levels = levels
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
  package mutating func set(_ level: LogLevel, for name: String) throws(PluginLogLevelsError) -> Bool {
    read()
    if let damage { throw PluginLogLevelsError(description: damage) }
    guard self.level(of: name) != level else { return false }
    levels[name] = level == Self.unset ? nil : level
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    do {
      let data = try encoder.encode(Contents(levels: levels))
      try FileManager.default.createDirectory(
        atPath: PathName.parent(path), withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
      try AtomicFile.write(data + Data("\n".utf8), to: path)
    } catch {
      throw PluginLogLevelsError(description: "\(path) could not be saved: \(error)")
    }
    readAs = FileSignature(path)
    return true
  }
}

/// The log levels could not be read or saved.
package struct PluginLogLevelsError: Error, CustomStringConvertible {
  /// What failed, naming the file.
  package let description: String
}
