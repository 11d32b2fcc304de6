import ViperKit
import ViperKitHosting
import VivariumLoading

/// One plugin's view of the app-wide settings (ViperKit 3.0): the keys it
/// may read (``SettingOwnership/mayRead(_:pluginAt:)``), and changes only
/// to keys it owns or no plugin declares; a refused change throws, naming
/// the owner, and is logged. A key it may not read reads as unset, and is
/// left out of its process's copy. A typed setting (3.1) not set reads as
/// its default, and a value not of its type is refused, naming the
/// declaration.
///
/// What it saves counts against its own quota (``quota``), each key as the
/// last plugin to change it: one plugin filling the settings fails only its
/// own saves, not another's (the sign-in's `session.user`).
@MainActor
final class PluginSettings: SettingsStore {
  /// The most the keys a plugin last changed may take in the settings:
  /// thirty plugins' worth fit in the 16 MiB the host reads back.
  static let quota = 512 << 10

  private let base: FileSettingsStore
  private let plugin: PluginIdentity
  private let ownership: () -> SettingOwnership
  private let refused: (String) -> Void
  /// Its modules observing keys (``observe(_:by:_:)``).
  private var observers: [(owner: Weak, key: String, changed: @MainActor (ArgumentValue?) -> Void)] = []

  init(
    _ base: FileSettingsStore, for plugin: PluginIdentity, ownership: @escaping () -> SettingOwnership,
    refused: @escaping (String) -> Void
  ) {
    self.base = base
    self.plugin = plugin
    self.ownership = ownership
    self.refused = refused
  }

  func value(forKey key: String) -> ArgumentValue? {
    let ownership = ownership()
    guard ownership.mayRead(key, pluginAt: plugin.path) else { return nil }
    return base.value(forKey: key) ?? ownership.defaultValue(key)
  }

  func set(_ value: ArgumentValue?, forKey key: String) throws {
    let ownership = ownership()
    let typed = ownership.typed(key)
    if let refusal = ownership.writeRefusal(key, plugin: plugin.name, pluginAt: plugin.path)
      ?? typed.flatMap({ typed in
        value.flatMap { SettingCheck.refusal($0, for: typed.declaration, by: typed.plugin) }
      })
    {
      refused(refusal)
      throw SaveRefused(description: refusal)
    }
    do {
      try base.dictionary.set(value, forKey: key, by: plugin.name, within: Self.quota)
    } catch let refusal as SaveRefused {
      refused(refusal.description)
      throw refusal
    }
  }

  func observe(_ key: String, by owner: AnyObject, _ changed: @escaping @MainActor (ArgumentValue?) -> Void) {
    if observers.isEmpty {
      base.observe(by: self) { [weak self] key, _ in self?.tell(key) }
    }
    observers.removeAll { $0.owner.object == nil || ($0.owner.object === owner && $0.key == key) }
    observers.append((Weak(owner), key, changed))
  }

  /// Tells the modules observing `key` its value now, if they may read it.
  private func tell(_ key: String) {
    observers.removeAll { $0.owner.object == nil }
    let watching = observers.filter { $0.key == key }
    guard !watching.isEmpty, ownership().mayRead(key, pluginAt: plugin.path) else { return }
    let value = value(forKey: key)
    for observer in watching { observer.changed(value) }
  }
}

extension PluginSettings: CopiedStore {
  /// What it may read, typed settings not set at their defaults.
  var entries: [String: ArgumentValue] {
    let ownership = ownership()
    var entries: [String: ArgumentValue] = [:]
    for typed in ownership.typed where ownership.mayRead(typed.declaration.key, pluginAt: plugin.path) {
      entries[typed.declaration.key] = typed.type.defaultValue
    }
    let hidden = ownership.unreadable(byPluginAt: plugin.path)
    for (key, value) in base.entries where !hidden.contains(key) { entries[key] = value }
    return entries
  }

  func observe(by owner: AnyObject, _ changed: @escaping @MainActor (String, ArgumentValue?) -> Void) {
    base.observe(by: owner) { [ownership, plugin] key, value in
      let ownership = ownership()
      if ownership.mayRead(key, pluginAt: plugin.path) { changed(key, value ?? ownership.defaultValue(key)) }
    }
  }
}
