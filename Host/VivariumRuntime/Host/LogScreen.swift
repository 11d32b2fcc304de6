import ViperKit
import VivariumLoading
import VivariumSupport

/// The app's log screen, `vivarium:log`: a screen of the host's own showing
/// the latest lines of this run's log (``HostServices/recentEntries``),
/// newest last, filtered by plugin and by level with the keyboard, and
/// redrawn each second while lines come (as `:log PLUGIN LEVEL` prints them
/// in the terminal). Open it with `open vivarium:log`, or the page's Log button.
package enum LogScreen {
  /// Its URN.
  package static let urn = "vivarium:log"
  /// The start of a level button's id: `level.warning` shows warnings and errors.
  static let levelPrefix = "level."
  /// The start of a plugin button's id: `plugin.WalletPlugin` shows its lines.
  static let pluginPrefix = "plugin."
  /// Shows every plugin's lines again, and the host's.
  static let allPluginsID = "plugin.all"
  /// The most lines shown.
  static let shown = 50

  /// Its contract: it takes no argument and opens nothing.
  static let contract = Contract(
    urn: urn,
    summary: "The latest lines of the app's log, by plugin and level; select a plugin or a level to filter them.")

  /// What the host resolves `vivarium:log` to, for `host`.
  @MainActor
  static func route(for host: SharedHost) -> Route? { HostScreenFactory<Presenter>.route(for: host) }

  /// Keeps the filter, and draws the lines it lets through.
  @MainActor
  final class Presenter: HostScreenPresenter {
    nonisolated static var contract: Contract { LogScreen.contract }
    weak var host: SharedHost?
    weak var view: HostScreenView?
    var plugin: String?
    var level = LogLevel.allCases[0]
    /// The entries last drawn: a redraw with none new draws nothing.
    private var drawn: [HostServices.LogEntry] = []

    init(host: SharedHost) { self.host = host }

    func lifecycle(_ event: LifecycleEvent) {
      switch event {
      case .attach:
        host?.logScreens.add(self)
        refresh(always: true)
      case .detach: host?.logScreens.remove(self)
      default: break
      }
    }

    func handle(_ event: ViewEvent) {
      switch event {
      case .tap(allPluginsID): plugin = nil
      case .tap(let button) where button.hasPrefix(pluginPrefix): plugin = String(button.dropFirst(pluginPrefix.count))
      case .tap(let button) where button.hasPrefix(levelPrefix):
        level = LogLevel(rawValue: String(button.dropFirst(levelPrefix.count))) ?? level
      default: return
      }
      refresh(always: true)
    }

    /// Draws the lines as they are now; unless `always`, only when new ones came.
    func refresh(always: Bool = false) {
      guard let host else { return }
      let entries = host.services.recentEntries
      guard always || entries != drawn else { return }
      drawn = entries
      let plugins = host.catalog.loaded.map(\.name)
      view?.canvas.draw(LogScreen.tree(entries, plugins: plugins, plugin: plugin, level: level))
    }
  }

  /// The screen for `entries`, those of `plugin` (every one's when nil) at
  /// `level` and above, with a button per plugin of `plugins` and per level.
  static func tree(_ entries: [HostServices.LogEntry], plugins: [String], plugin: String?, level: LogLevel)
    -> ViewNode
  {
    let kept = entries.filter { $0.level >= level && (plugin == nil || $0.plugin == plugin) }.suffix(shown)
    let levels = LogLevel.allCases.map { candidate in
      ViewNode.button(
        id: levelPrefix + candidate.rawValue, title: candidate == level ? "\(candidate.rawValue) ✓" : candidate.rawValue
      )
    }
    let pluginButtons =
      [ViewNode.button(id: allPluginsID, title: plugin == nil ? "all ✓" : "all")]
      + plugins.map { name in
        ViewNode.button(id: pluginPrefix + name, title: name == plugin ? "\(name) ✓" : name)
      }
    var lines: [ViewNode] = [
      .heading("Log"),
      .text("This run's latest lines, newest last. Choose a level and a plugin to see fewer.", tone: .muted),
      .stack(.horizontal, [.text("Level", tone: .muted)] + levels),
      .stack(.horizontal, [.text("Plugin", tone: .muted)] + pluginButtons),
    ]
    if kept.isEmpty {
      lines.append(.text("No line yet at this level" + (plugin.map { " from \($0)" } ?? "") + ".", tone: .muted))
    }
    for entry in kept {
      let tone: Tone =
        switch entry.level {
        case .error: .negative
        case .warning: .warning
        case .debug: .muted
        default: .normal
        }
      lines.append(.text(entry.text, tone: tone))
    }
    return .stack(.vertical, lines)
  }
}
