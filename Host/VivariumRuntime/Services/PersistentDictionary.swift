import Foundation
import Glibc
import ViperKit
import VivariumLoading
import VivariumSupport

/// A save refused before anything was written, and why.
struct SaveRefused: Error, CustomStringConvertible {
  let description: String
}

/// A dictionary saved as a JSON file, rewritten atomically on every change.
///
/// Only a missing file starts empty. A file that cannot be read or decoded is
/// moved aside (`NAME.unreadable-N`) rather than overwritten, and the problem
/// is reported through `onProblem`; if it cannot be moved aside, saves are
/// refused so that it is never overwritten. Nothing a person saved is
/// destroyed by the host.
@MainActor
final class PersistentDictionary<Value: Codable & Equatable> {
  let path: String
  private(set) var values: [String: Value] = [:]
  /// Why saves are refused, when they are.
  private(set) var refusal: String?
  /// Who is told of each change, while they live (``observe(by:_:)``).
  private var observers: [(owner: Weak, changed: @MainActor (String, Value?) -> Void)] = []

  /// Loads `path` (``FileContents/read(_:limit:)``). With `refusal` (a
  /// read-only session), the file is only read: a bad one is left where it
  /// is, and every save throws `refusal`. `read` reads a whole file; tests
  /// pass failures of their own.
  init(
    path: String, refusal: String? = nil,
    read: (String) -> FileContents = { FileContents.read($0, limit: FileContents.Limit.store) },
    onProblem: @MainActor (String) -> Void
  ) {
    self.path = path
    self.refusal = refusal
    switch read(path) {
    case .missing:
      return
    case .failed(let code):
      keepAside(reason: AtomicFile.errorText(code), onProblem: onProblem)
    case .refused(let reason):
      keepAside(reason: reason, as: "refused", onProblem: onProblem)
    case .data(let data):
      do {
        values = try JSONDecoder().decode([String: Value].self, from: data)
      } catch {
        keepAside(reason: "it is not a JSON object of saved values", onProblem: onProblem)
      }
    }
  }

  /// Moves the file at `path` to the first free `path.LABEL-N`, or, when
  /// that fails or this session may not write, leaves it and refuses saves.
  private func keepAside(reason: String, as label: String = "unreadable", onProblem: @MainActor (String) -> Void) {
    guard refusal == nil else {
      onProblem("\(path) could not be used (\(reason)); this read-only session leaves it as it is and starts empty")
      return
    }
    switch FileContents.setAside(path, as: label) {
    case .failure(let error):
      let problem =
        "\(path) could not be used (\(reason)) nor moved aside (\(error.description)); saves to it are refused so that it is not overwritten: repair or move it, then start again"
      refusal = problem
      onProblem(problem)
    case .success(let aside):
      onProblem("\(path) could not be used (\(reason)); it was kept as \(aside) and a new one started")
    }
  }

  /// Sets or removes `key`, then saves; on failure nothing changes.
  func set(_ value: Value?, forKey key: String) throws {
    var updated = values
    updated[key] = value
    guard updated != values else { return }
    if let refusal { throw SaveRefused(description: refusal) }
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
    let data = try encoder.encode(updated)
    // What could not be read back at the next start is not written.
    guard data.count <= FileContents.Limit.store else {
      throw SaveRefused(
        description:
          "not saved: \(path) would take \(data.count) bytes, over the \(FileContents.Limit.store >> 20) MiB the host reads back; keep less in it"
      )
    }
    try AtomicFile.write(data, to: path)
    values = updated
    observers.removeAll { $0.owner.object == nil }
    for observer in observers { observer.changed(key, value) }
  }

  /// Has `changed` called with each key saved and its new value (nil:
  /// removed) after the save, for as long as `owner` lives; replaces what
  /// `owner` observed before.
  func observe(by owner: AnyObject, _ changed: @escaping @MainActor (String, Value?) -> Void) {
    observers.removeAll { $0.owner.object == nil || $0.owner.object === owner }
    observers.append((Weak(owner), changed))
  }
}

/// A reference that does not keep its object alive.
struct Weak {
  weak var object: AnyObject?
  init(_ object: AnyObject) { self.object = object }
}

/// Storage for a plugin that may have none (see ``PluginIdentity``): empty,
/// and every save throws the reason.
final class RefusedKeyValueStore: KeyValueStore {
  let reason: String

  init(reason: String) { self.reason = reason }

  func value(forKey key: String) -> String? { nil }
  func set(_ value: String?, forKey key: String) throws { throw SaveRefused(description: reason) }
  func keys() -> [String] { [] }
}

extension RefusedKeyValueStore: CopiedStore {
  var entries: [String: ArgumentValue] { [:] }
  /// It never changes.
  func observe(by owner: AnyObject, _ changed: @escaping @MainActor (String, ArgumentValue?) -> Void) {}
}

/// A store kept in a ``PersistentDictionary``: a plugin's private storage
/// (``FileKeyValueStore``) or the app-wide settings (``FileSettingsStore``).
@MainActor
final class FileStore<Value: StoredValue> {
  let dictionary: PersistentDictionary<Value>

  init(_ dictionary: PersistentDictionary<Value>) {
    self.dictionary = dictionary
  }

  func value(forKey key: String) -> Value? { dictionary.values[key] }
  func set(_ value: Value?, forKey key: String) throws { try dictionary.set(value, forKey: key) }
}

/// A plugin's private storage: one JSON file per plugin in the data directory.
typealias FileKeyValueStore = FileStore<String>

/// App-wide settings: one JSON file in the data directory.
typealias FileSettingsStore = FileStore<ArgumentValue>

extension FileStore: KeyValueStore where Value == String {
  func keys() -> [String] { dictionary.values.keys.sorted() }
}

extension FileStore: SettingsStore where Value == ArgumentValue {}

extension FileStore: CopiedStore {
  var entries: [String: ArgumentValue] { dictionary.values.mapValues(\.argumentValue) }
  func observe(by owner: AnyObject, _ changed: @escaping @MainActor (String, ArgumentValue?) -> Void) {
    dictionary.observe(by: owner) { changed($0, $1?.argumentValue) }
  }
}

/// What a ``FileStore`` holds: a value saved as JSON that a plugin
/// process's copy of the store (``CopiedStore``) holds as an argument value.
protocol StoredValue: Codable, Equatable {
  /// The value as a plugin process's copy holds it.
  var argumentValue: ArgumentValue { get }
}

extension String: StoredValue {
  /// A ``ViperKit/ArgumentValue/string(_:)``.
  var argumentValue: ArgumentValue { .string(self) }
}

extension ArgumentValue: StoredValue {
  /// Itself.
  var argumentValue: ArgumentValue { self }
}
