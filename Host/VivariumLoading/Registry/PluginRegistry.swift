import Foundation
import Glibc
import ViperKit
import VivariumSupport

/// The registry cache: what scanning each plugin file found, kept in the
/// data directory so that a file that has not changed is not scanned again
/// (GStreamer keeps the same kind of registry).
///
/// An entry is used only for the very same file (``PluginFileKey``: path,
/// size, modification time, inode, device) and only by the host, SDK and
/// compiler that wrote it. It holds the plugin's contracts, or the reason it
/// was refused when that reason came from running its code: a plugin that
/// crashed or hung its probe is not probed again until its file changes.
///
/// The file is written atomically (its layout: `PluginRegistry+Coding`).
/// One that cannot be read, is not a registry, or is damaged is discarded
/// with a warning, never trusted; a registry written in another format or
/// by another host, SDK or compiler is ignored without one; either way it
/// is rewritten at the next save. Opening it reads each entry's key only:
/// what an entry holds is read when a scan asks for its file.
package struct PluginRegistry: Sendable {
  /// What the cache knows of one file.
  package struct Entry: Equatable, Sendable {
    /// The version of the file the entry is about.
    package var key: PluginFileKey
    /// What the plugin offers, or why it was refused.
    package var outcome: Result<PluginRecord, Rejection>

    /// What the plugin offers, when it was accepted.
    package var record: PluginRecord? { try? outcome.get() }
    /// Why it was refused, when it was.
    package var rejection: Rejection? {
      guard case .failure(let rejection) = outcome else { return nil }
      return rejection
    }
  }

  /// The registry's file name in the data directory.
  package static let fileName = "plugin-registry.cache"
  /// The version of the file's layout, its byte after ``magic``.
  static let formatVersion: UInt8 = 10

  /// The cache file; nil when there is no cache (`--no-cache`).
  package let path: String?
  /// Entries by path, as the file keeps them.
  private(set) var entries: [String: StoredEntry] = [:]
  /// Whether an entry was added or dropped since the file was read.
  private(set) var changed = false

  /// No cache: every file is scanned, and nothing is saved.
  package static let none = PluginRegistry(path: nil)

  private init(path: String?) { self.path = path }

  /// The registry kept in `dataDirectory`, and a warning when the file there
  /// was damaged or foreign and was discarded. With `rescan`, what it holds is
  /// forgotten, and replaced at the next save.
  package static func open(dataDirectory: String, rescan: Bool = false) -> (PluginRegistry, warning: String?) {
    var registry = PluginRegistry(path: dataDirectory + "/" + fileName)
    // Unless every entry is read back, the file is written anew at the next save.
    registry.changed = true
    guard !rescan, let path = registry.path else { return (registry, nil) }
    switch entries(at: path) {
    case .success(let entries?):
      registry.entries = entries
      registry.changed = false
      return (registry, nil)
    case .success(nil): return (registry, nil)
    case .failure(let problem):
      return (registry, "\(problem.description); \(discard(path, problem)), and every plugin is scanned again")
    }
  }

  /// What becomes of the unusable registry file at `path`: a file refused
  /// is set aside, not overwritten by the next save, so whoever put it
  /// there finds it; a damaged one is simply replaced.
  private static func discard(_ path: String, _ problem: RegistryError) -> String {
    guard problem.kind == .untrusted else { return "it was discarded" }
    switch FileContents.setAside(path, as: "refused") {
    case .success(let aside): return "it was moved to \(aside)"
    case .failure(let error):
      return "it could not be moved aside (\(error.description)) and is replaced at the next save"
    }
  }

  /// The entries of the registry file at `path`; nil when there is none, or
  /// one written by another host, SDK or compiler (a miss for every file,
  /// not damage); a failure saying why a file that is there is unusable.
  private static func entries(at path: String) -> Result<[String: StoredEntry]?, RegistryError> {
    switch FileContents.read(path, limit: FileContents.Limit.registry) {
    case .missing: return .success(nil)
    case .failed(let code):
      return .failure(
        RegistryError(
          .unreadable, description: "cannot read the plugin registry cache \(path): \(AtomicFile.errorText(code))"))
    case .refused(let reason):
      return .failure(
        RegistryError(.untrusted, description: "the plugin registry cache \(path) is not used: \(reason)"))
    case .data(let bytes):
      return decode(Array(bytes), path: path).map { entries in
        entries.map { Dictionary($0.map { ($0.key.path, $0) }) { _, last in last } }
      }
    }
  }

  /// What the cache knows of exactly this version of the file, if
  /// anything: read from the file's bytes now. An entry whose bytes do not
  /// read is none: the file is scanned again, and the entry replaced.
  package func entry(for key: PluginFileKey) -> Entry? {
    guard path != nil, let stored = entries[key.path], stored.key == key else { return nil }
    return stored.entry
  }

  /// Remembers what scanning the file `key` gave.
  mutating func remember(_ key: PluginFileKey, _ outcome: Result<PluginRecord, Rejection>) {
    guard path != nil else { return }
    let stored = StoredEntry(Entry(key: key, outcome: outcome))
    guard entries[key.path] != stored else { return }
    entries[key.path] = stored
    changed = true
  }

  /// Writes the registry if it changed, atomically, leaving out files that
  /// are gone. Throws a message saying what could not be written.
  package mutating func save() throws(RegistryError) {
    guard let path, changed else { return }
    for (file, _) in entries where !FileContents.exists(file) { entries[file] = nil }
    do throws(AtomicFile.WriteError) {
      try AtomicFile.write(Data(Self.file(entries.keys.sorted().compactMap { entries[$0] })), to: path)
    } catch {
      throw RegistryError(
        .notSaved, description: "the plugin registry cache was not saved (\(error)); the next start scans again")
    }
    changed = false
  }
}

/// Why the registry cache could not be read or saved.
package struct RegistryError: Error, CustomStringConvertible {
  /// Stable names of the problems, for tests.
  package enum Kind: String, Sendable {
    /// The file could not be read.
    case unreadable
    /// A file the host does not trust (``FileContents/refused(_:)``): it is set aside.
    case untrusted
    /// Not a registry cache at all.
    case notARegistry = "not-a-registry"
    /// A registry cache that is cut short, altered, or does not decode.
    case damaged
    /// It could not be written.
    case notSaved = "not-saved"
  }

  /// Which problem it is.
  package let kind: Kind
  /// What went wrong and what it means.
  package let description: String

  init(_ kind: Kind, description: String) {
    self.kind = kind
    self.description = description
  }
}

extension Rejection {
  /// Whether this refusal came from running the plugin's code (or trying
  /// to), so that it holds until the file changes and is worth remembering.
  /// Refusals about the file and its directories are checked every time,
  /// and a failed `dlopen` may be a missing library that appears later.
  var isRemembered: Bool {
    switch kind {
    case .crashed, .timedOut, .nullDescriptor, .badMagic, .incompatible, .foreignSDKCopy, .noModules,
      .invalidContract, .badManifest, .tooManyModules:
      true
    default: false
    }
  }
}
