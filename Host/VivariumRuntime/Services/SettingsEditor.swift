import Foundation
import ViperKit
import ViperKitHosting
import VivariumLoading
import VivariumSupport

/// The settings the person changes: those plugins declare with a type
/// (``ViperKit/SettingDeclaration/type``), listed, set and reset with each
/// value checked against its declaration. `vivarium settings` edits the
/// data directory's file with one of its own, beside a running app (two
/// instances of a store never overwrite each other's saves, and the app
/// takes the change within a second, ``SharedHost/keepHouse(every:)``);
/// the app's settings screen edits the app's own.
@MainActor
package struct SettingsEditor {
  private let store: FileSettingsStore
  /// Who declares each setting, from the catalog.
  package let ownership: SettingOwnership

  init(store: FileSettingsStore, ownership: SettingOwnership) {
    self.store = store
    self.ownership = ownership
  }

  /// An editor of the settings in `dataDirectory` (`settings.json`), for
  /// the settings `ownership` declares; a problem with the file (one moved
  /// aside) is told to `onProblem`.
  package init(
    dataDirectory: String, ownership: SettingOwnership, onProblem: @escaping @MainActor (String) -> Void
  ) {
    let path = dataDirectory + "/" + HostServices.settingsFile
    self.init(store: FileSettingsStore(PersistentDictionary(path: path, onProblem: onProblem)), ownership: ownership)
  }

  /// One setting as the person sees it.
  package struct Row: Encodable, Sendable {
    /// The declaring plugin's name.
    package let plugin: String
    /// Its key.
    package let key: String
    /// `bool`, `int`, `string` or `choice` (``ViperKitHosting/SettingType/kind``).
    package let kind: String
    /// The values it takes, for the person.
    package let values: String
    /// What the person picks from, for a flag or a choice.
    package let choices: [String]
    /// What it reads as until it is set.
    package let defaultValue: String
    /// What it reads as now.
    package let value: String
    /// Whether it is at its default, never set (or reset).
    package let isDefault: Bool
    /// What it changes.
    package let description: String

    enum CodingKeys: String, CodingKey {
      case plugin, key, kind, values, choices, defaultValue = "default", value, isDefault, description
    }
  }

  /// Every typed setting, in catalog order; with `plugin`, only its.
  package func rows(of plugin: String? = nil) -> [Row] {
    ownership.typed.filter { plugin == nil || $0.plugin == plugin }.map(row)
  }

  /// The setting `key` as the person sees it, or why there is none.
  package func row(_ key: String) throws(SettingFailure) -> Row {
    row(try typed(key))
  }

  private func row(_ typed: SettingOwnership.TypedSetting) -> Row {
    let type = typed.type
    let set = store.value(forKey: typed.declaration.key)
    return Row(
      plugin: typed.plugin, key: typed.declaration.key, kind: type.kind, values: type.values, choices: type.choices,
      defaultValue: type.defaultValue.description, value: (set ?? type.defaultValue).description, isDefault: set == nil,
      description: typed.declaration.description)
  }

  /// Sets `key` to `text` read as one of its values; the value set.
  @discardableResult
  package func set(_ key: String, to text: String) throws(SettingFailure) -> ArgumentValue {
    let typed = try typed(key)
    guard let value = typed.type.value(parsing: text) else {
      throw SettingFailure(
        .badValue, key,
        "'\(text)' is not a value of the setting '\(key)': \(typed.plugin) declares it as \(typed.type.values)")
    }
    try save(value, key)
    return value
  }

  /// Sets `key` back to its default: what was set is removed.
  package func reset(_ key: String) throws(SettingFailure) {
    _ = try typed(key)
    try save(nil, key)
  }

  private func save(_ value: ArgumentValue?, _ key: String) throws(SettingFailure) {
    do {
      try store.set(value, forKey: key)
    } catch {
      throw SettingFailure(.notSaved, key, "\(error)")
    }
  }

  private func typed(_ key: String) throws(SettingFailure) -> SettingOwnership.TypedSetting {
    if let typed = ownership.typed(key) { return typed }
    let known = ownership.typed.map(\.declaration.key)
    throw SettingFailure(
      .unknownKey, key,
      "no plugin declares a setting '\(key)' a person may change"
        + Suggestion.didYouMean(
          key, among: known,
          otherwise: known.isEmpty
            ? "; the plugins loaded declare none" : "; those declared are \(known.joined(separator: ", "))"))
  }
}

/// Why a setting could not be read or changed: a stable kind and a sentence.
package struct SettingFailure: Error, CustomStringConvertible {
  /// What went wrong, by a stable name.
  package enum Kind: String, Sendable {
    /// No plugin loaded declares the key with a type.
    case unknownKey = "unknown-setting"
    /// The value is not one the declaration takes.
    case badValue = "bad-value"
    /// The settings file refused the save.
    case notSaved = "not-saved"
  }

  package let kind: Kind
  /// The setting's key.
  package let key: String
  package let description: String

  init(_ kind: Kind, _ key: String, _ description: String) {
    self.kind = kind
    self.key = key
    self.description = description
  }
}
