import Foundation
import ViperKit

/// A dictionary saved as a JSON file, rewritten atomically on every change.
///
/// A file that cannot be read is moved aside (`NAME.unreadable-N`) rather
/// than overwritten, and the problem is reported through `onProblem`, so that
/// nothing a person saved is destroyed by the host.
final class PersistentDictionary<Value: Codable & Equatable> {
  let path: String
  private(set) var values: [String: Value]

  init(path: String, onProblem: (String) -> Void) {
    self.path = path
    guard let data = FileManager.default.contents(atPath: path) else {
      values = [:]
      return
    }
    do {
      values = try JSONDecoder().decode([String: Value].self, from: data)
    } catch {
      values = [:]
      var aside = "\(path).unreadable-1"
      var index = 1
      while FileManager.default.fileExists(atPath: aside) {
        index += 1
        aside = "\(path).unreadable-\(index)"
      }
      try? FileManager.default.moveItem(atPath: path, toPath: aside)
      onProblem(
        "\(path) could not be read (\(error.localizedDescription)); it was kept as \(aside) and a new one started")
    }
  }

  /// Sets or removes `key`, then saves; on failure nothing changes.
  func set(_ value: Value?, forKey key: String) throws {
    var updated = values
    updated[key] = value
    guard updated != values else { return }
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
    try AtomicFile.write(try encoder.encode(updated), to: path)
    values = updated
  }
}

/// A plugin's private storage: one JSON file per plugin in the data directory.
final class FileKeyValueStore: KeyValueStore {
  let dictionary: PersistentDictionary<String>

  init(path: String, onProblem: (String) -> Void) {
    dictionary = PersistentDictionary(path: path, onProblem: onProblem)
  }

  func value(forKey key: String) -> String? { dictionary.values[key] }
  func set(_ value: String?, forKey key: String) throws { try dictionary.set(value, forKey: key) }
  func keys() -> [String] { dictionary.values.keys.sorted() }
}

/// App-wide settings: one JSON file in the data directory.
final class FileSettingsStore: SettingsStore {
  let dictionary: PersistentDictionary<ArgumentValue>

  init(path: String, onProblem: (String) -> Void) {
    dictionary = PersistentDictionary(path: path, onProblem: onProblem)
  }

  func value(forKey key: String) -> ArgumentValue? { dictionary.values[key] }
  func set(_ value: ArgumentValue?, forKey key: String) throws { try dictionary.set(value, forKey: key) }
}
