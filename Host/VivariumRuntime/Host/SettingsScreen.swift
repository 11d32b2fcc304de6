import ViperKit
import VivariumLoading
import VivariumSupport

/// The app's settings screen, `vivarium:settings`: a screen of the host's
/// own listing the settings plugins declare for the person
/// (``SettingsEditor``), each changed with the keyboard as a form: a flag
/// or a choice by its buttons, a number or a text in a field, and reset to
/// its default (VS Code's settings editor). What it sets is checked against
/// the declaration, and the modules showing the setting redraw, in every
/// session. Open it with `open vivarium:settings` (`:open` in the app).
package enum SettingsScreen {
  /// Its URN.
  package static let urn = "vivarium:settings"
  /// Its list of settings, a row per setting by key.
  static let listID = "settings"
  /// The field a number or a text is typed in.
  static let valueID = "value"
  /// Saves what the field holds.
  static let saveID = "save"
  /// Sets the setting selected back to its default.
  static let resetID = "reset"
  /// The start of a choice's button id: `choose.fahrenheit` sets `fahrenheit`.
  static let choosePrefix = "choose."

  /// Its contract: it takes no argument and opens nothing.
  static let contract = Contract(
    urn: urn,
    summary: "The settings each plugin declares for the person; select one to change it or set it back to its default."
  )

  /// What the host resolves `vivarium:settings` to, for `host`.
  @MainActor
  static func route(for host: SharedHost) -> Route? { HostScreenFactory<Presenter>.route(for: host) }

  /// Keeps the setting selected and what is typed, and draws the screen.
  @MainActor
  final class Presenter: HostScreenPresenter {
    nonisolated static var contract: Contract { SettingsScreen.contract }
    weak var host: SharedHost?
    weak var view: HostScreenView?
    var selected: String?
    /// What the person typed for the setting selected, not saved yet.
    var typed: String?
    /// What the last change did, or why it was refused.
    var said: (Tone, String)?

    init(host: SharedHost) { self.host = host }

    func lifecycle(_ event: LifecycleEvent) {
      guard event == .attach, let host else { return }
      // A change made anywhere, in any session or by `vivarium settings`.
      host.services.observeSettings(by: self) { [weak self] _, _ in self?.refresh() }
      refresh()
    }

    func handle(_ event: ViewEvent) {
      guard let editor = host?.services.settingsEditor else { return }
      switch event {
      case .select(listID, let row):
        if row != selected { (typed, said) = (nil, nil) }
        selected = row
      case .type(valueID, let text): typed = text
      case .tap(saveID):
        if let selected, let typed {
          change(selected) { () throws(SettingFailure) in try editor.set(selected, to: typed) }
        }
      case .tap(resetID):
        if let selected { change(selected) { () throws(SettingFailure) in try editor.reset(selected) } }
      case .tap(let button) where button.hasPrefix(choosePrefix):
        let choice = String(button.dropFirst(choosePrefix.count))
        if let selected { change(selected) { () throws(SettingFailure) in try editor.set(selected, to: choice) } }
      default: break
      }
      refresh()
    }

    /// Carries out `change` of `key`, and says what it did or why not.
    private func change(_ key: String, _ change: () throws(SettingFailure) -> Void) {
      do {
        try change()
        typed = nil
        let row = try host?.services.settingsEditor.row(key)
        said = (.positive, "\(key) is now \(row.map { $0.isDefault ? "its default, \($0.value)" : $0.value } ?? "set")")
      } catch {
        said = (.negative, error.description)
      }
    }

    /// Draws the screen from the settings as they are now.
    func refresh() {
      guard let host else { return }
      view?.canvas.draw(
        SettingsScreen.tree(host.services.settingsEditor.rows(), selected: selected, typed: typed, said: said))
    }
  }

  /// The screen for `rows`, with `selected`'s form: `typed` in its field,
  /// and what the last change `said`.
  static func tree(_ rows: [SettingsEditor.Row], selected: String?, typed: String?, said: (Tone, String)?) -> ViewNode {
    var lines: [ViewNode] = [.heading("Settings")]
    guard !rows.isEmpty else {
      lines.append(.text("No plugin of the app declares a setting a person may change.", tone: .muted))
      return .stack(.vertical, lines)
    }
    lines.append(.text("Each plugin's settings. Select one to change it.", tone: .muted))
    lines.append(
      .list(
        id: listID,
        rows: rows.map { row in
          ListRow(
            id: row.key, title: row.key, detail: "\(row.plugin) · \(row.value)",
            marker: row.isDefault ? nil : Marker(.info, "changed"))
        }))
    if let row = rows.first(where: { $0.key == selected }) {
      lines.append(.heading(row.key))
      lines.append(.text(row.description))
      lines.append(.text("\(row.plugin) · takes \(row.values) · default \(row.defaultValue)", tone: .muted))
      var actions: [ViewNode] = []
      if row.choices.isEmpty {
        lines.append(.field(id: valueID, label: "Value", value: typed ?? row.value, placeholder: row.values))
        actions.append(.button(id: saveID, title: "Save"))
      } else {
        actions += row.choices.map { .button(id: choosePrefix + $0, title: $0 == row.value ? "\($0) ✓" : $0) }
      }
      if !row.isDefault { actions.append(.button(id: resetID, title: "Reset to default")) }
      lines.append(.stack(.horizontal, actions))
    }
    if let (tone, text) = said { lines.append(.notice(tone, text)) }
    return .stack(.vertical, lines)
  }
}
