import ViperKit
import VivariumLoading

/// One plugin's view of the app-wide settings (ViperKit 3.0): the keys it
/// may read (``SettingOwnership/mayRead(_:pluginAt:)``), and changes only
/// to keys it owns or no plugin declares; a refused change throws, naming
/// the owner, and is logged. A key it may not read reads as unset, and is
/// left out of its process's copy.
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
    ownership().mayRead(key, pluginAt: plugin.path) ? base.value(forKey: key) : nil
  }

  func set(_ value: ArgumentValue?, forKey key: String) throws {
    if let refusal = ownership().writeRefusal(key, plugin: plugin.name, pluginAt: plugin.path) {
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
}

extension PluginSettings: CopiedStore {
  var entries: [String: ArgumentValue] {
    let hidden = ownership().unreadable(byPluginAt: plugin.path)
    return base.entries.filter { !hidden.contains($0.key) }
  }

  func observe(by owner: AnyObject, _ changed: @escaping @MainActor (String, ArgumentValue?) -> Void) {
    base.observe(by: owner) { [ownership, plugin] key, value in
      if ownership().mayRead(key, pluginAt: plugin.path) { changed(key, value) }
    }
  }
}
