import Foundation
import VivariumLoading
import VivariumSupport

/// A small JSON file of the person's choices in the data directory
/// (``PluginSwitches``' `plugins.json`, ``PluginLogLevels``' `log-levels.json`).
///
/// It is read as every file of the data directory is read
/// (``FileContents/read(_:limit:holds:)``: no link, no FIFO, yours, small),
/// and read again before every change, so that a command beside a running
/// app loses no choice the other saved. A file that cannot be read is
/// never overwritten (nothing a person saved is lost): ``contents`` are
/// the empty ones, ``damage`` says why, and changes fail, naming it.
package struct ChoicesFile<Contents: Codable & Sendable>: Sendable {
  /// The file.
  package let path: String
  /// What it holds, as last read (or kept, ``keep(_:)``).
  package private(set) var contents: Contents
  /// Why the file could not be read, when it could not.
  package private(set) var damage: String?
  /// The file as it was when last read; nil when there was none.
  private var readAs: FileSignature?
  private let empty: Contents
  private let limit: Int
  /// What the contents are, for the person: `a list of plugins turned off`.
  private let what: String
  /// What holds while the file cannot be read: `every plugin is on`.
  private let meanwhile: String

  /// The file at `path`, holding at most `limit` bytes of `what`, `empty`
  /// when missing; `meanwhile` says what holds while it cannot be read.
  package init(path: String, empty: Contents, limit: Int, what: String, meanwhile: String) {
    self.path = path
    self.empty = empty
    self.limit = limit
    self.what = what
    self.meanwhile = meanwhile
    contents = empty
    read()
  }

  /// Whether the file changed since it was read (another process's
  /// command): a look at its signature, not a read.
  package var isStale: Bool { FileSignature(path) != readAs }

  /// Reads the file again if it changed since it was read, or could not be.
  package mutating func reload() {
    if isStale || damage != nil { read() }
  }

  private mutating func read() {
    readAs = FileSignature(path)
    contents = empty
    damage = nil
    let unusable: String
    switch FileContents.read(path, limit: limit) {
    case .missing: return
    case .failed(let code): unusable = AtomicFile.errorText(code)
    case .refused(let reason): unusable = reason
    case .data(let data):
      do {
        contents = try JSONDecoder().decode(Contents.self, from: data)
        return
      } catch {
        unusable = "it is not \(what): \(error)"
      }
    }
    damage = "\(path) cannot be used (\(unusable)); \(meanwhile) until it is fixed or removed"
  }

  /// Keeps `contents`, whatever the file says (a file that cannot be read
  /// changes nothing in a running app).
  package mutating func keep(_ contents: Contents) {
    self.contents = contents
  }

  /// Reads the file again, lets `change` change what it holds, and saves it
  /// when `change` says it changed anything; returns whether it did.
  package mutating func change(_ change: (inout Contents) -> Bool) throws(ChoicesFileError) -> Bool {
    read()
    if let damage { throw ChoicesFileError(description: damage) }
    guard change(&contents) else { return false }
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    do {
      let data = try encoder.encode(contents)
      try FileManager.default.createDirectory(
        atPath: PathName.parent(path), withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
      try AtomicFile.write(data + Data("\n".utf8), to: path)
    } catch {
      throw ChoicesFileError(description: "\(path) could not be saved: \(error)")
    }
    readAs = FileSignature(path)
    return true
  }
}

/// A file of the person's choices could not be read or saved.
package struct ChoicesFileError: Error, CustomStringConvertible {
  /// What failed, naming the file.
  package let description: String
}
