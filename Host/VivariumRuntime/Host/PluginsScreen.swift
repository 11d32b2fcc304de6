import ViperKit
import VivariumLoading
import VivariumSupport

/// The app's plugins screen, `vivarium:plugins`: a screen of the host's own
/// (no plugin provides it) listing what each plugin is doing and what it
/// costs (``PluginActivity``), redrawn each second, sortable by each
/// column; a plugin selected can be turned off or on, and its process
/// ended or restarted (Chrome's task manager, VS Code's Running
/// Extensions). Open it with `open vivarium:plugins` (`:open` in the app).
package enum PluginsScreen {
  /// Its URN.
  package static let urn = "vivarium:plugins"
  /// Its list of plugins, a row per plugin by name.
  static let listID = "plugins"
  /// The start of a sort button's id: `sort.cpu` sorts by ``PluginActivity/SortKey/cpu``.
  static let sortPrefix = "sort."
  /// Turns the plugin selected off.
  static let turnOffID = "turnOff"
  /// Turns the plugin selected on.
  static let turnOnID = "turnOn"
  /// Ends the process of the plugin selected.
  static let endID = "endProcess"
  /// Starts the ended process of the plugin selected again.
  static let restartID = "restartProcess"

  /// Its contract: it takes no argument and opens nothing.
  static let contract = Contract(
    urn: urn,
    summary:
      "What each plugin is doing and what it costs, each second; turn a plugin off or on, end or restart its process.")

  /// What the host resolves `vivarium:plugins` to, for `host`.
  @MainActor
  static func route(for host: SharedHost) -> Route? { HostScreenFactory<Presenter>.route(for: host) }

  /// Keeps the order and the plugin selected, and draws the screen.
  @MainActor
  final class Presenter: HostScreenPresenter {
    nonisolated static var contract: Contract { PluginsScreen.contract }
    weak var host: SharedHost?
    weak var view: HostScreenView?
    var order = PluginActivity.SortKey.cpu
    var selected: String?
    /// What the last action did, said under the list.
    var said: String?

    init(host: SharedHost) { self.host = host }

    func lifecycle(_ event: LifecycleEvent) {
      switch event {
      case .attach:
        host?.pluginsScreens.add(self)
        refresh()
        // Figures now, not at the next second's look.
        host?.showActivity()
      case .detach: host?.pluginsScreens.remove(self)
      default: break
      }
    }

    func handle(_ event: ViewEvent) {
      switch event {
      case .select(listID, let row): selected = row
      case .tap(let button) where button.hasPrefix(sortPrefix):
        if let key = PluginActivity.SortKey(rawValue: String(button.dropFirst(sortPrefix.count))) { order = key }
      case .tap(turnOffID): act { host, name in host.tell(await host.turnOff(name)) }
      case .tap(turnOnID): act { host, name in host.tell(await host.turnOn(name)) }
      case .tap(endID): act { host, name in host.endProcess(of: name) }
      case .tap(restartID): act { host, name in await host.restartProcess(of: name) }
      default: break
      }
      refresh()
    }

    private func act(_ action: @escaping @MainActor (SharedHost, String) async -> Void) {
      guard let host, let selected else { return }
      // The row names a file; what is done is done to the plugin its file declares.
      let plugins = host.activity()
      let ids = PluginsScreen.rowIDs(plugins)
      guard let plugin = plugins.first(where: { ids[$0.file] == selected }) else { return }
      Task.immediate { [weak self] in
        await action(host, plugin.plugin)
        self?.refresh()
      }
    }

    /// Draws the screen from what each plugin is doing now.
    func refresh() {
      guard let host else { return }
      show(host.activity())
    }

    /// Draws the screen from `plugins`, what each is doing.
    func show(_ plugins: [PluginActivity]) {
      view?.canvas.draw(PluginsScreen.tree(plugins, order: order, selected: selected))
    }
  }

  /// The screen for `plugins`, sorted by `order`, with `selected`'s actions.
  static func tree(_ plugins: [PluginActivity], order: PluginActivity.SortKey, selected: String?) -> ViewNode {
    let ids = rowIDs(plugins)
    let sorted = plugins.sorted { order.orders($0, before: $1) }
    let sorts = PluginActivity.SortKey.allCases.map { key in
      ViewNode.button(id: sortPrefix + key.rawValue, title: key == order ? "\(key.rawValue) ▾" : key.rawValue)
    }
    var lines: [ViewNode] = [
      .heading("Plugins"),
      .text(
        "Each plugin's CPU, memory, modules and calls in the last minute, each second. Select one to act on it.",
        tone: .muted),
      .stack(.horizontal, [.text("Sort by", tone: .muted)] + sorts),
      .list(id: listID, rows: sorted.map { row($0, id: ids[$0.file] ?? $0.plugin) }),
    ]
    if let plugin = sorted.first(where: { ids[$0.file] == selected }) {
      lines.append(.heading(plugin.plugin))
      lines.append(.text(plugin.file, tone: .muted))
      var actions: [ViewNode] = []
      switch plugin.state {
      case .disabled: actions.append(.button(id: turnOnID, title: "Turn on"))
      case .crashed: actions += [.button(id: restartID, title: "Restart"), .button(id: turnOffID, title: "Turn off")]
      case .running, .idle, .notResponding:
        actions += [.button(id: endID, title: "End process"), .button(id: turnOffID, title: "Turn off")]
      case .notStarted, .inProcess: actions.append(.button(id: turnOffID, title: "Turn off"))
      }
      lines.append(.stack(.horizontal, actions))
    }
    return .stack(.vertical, lines)
  }

  /// Each plugin file's row id, in catalog order: the plugin's name, or,
  /// for a later file declaring a name an earlier one declares (both
  /// turned off: only then are both listed), the name and the file.
  static func rowIDs(_ plugins: [PluginActivity]) -> [String: String] {
    var seen: Set<String> = []
    return Dictionary(
      plugins.map { ($0.file, seen.insert($0.plugin).inserted ? $0.plugin : "\($0.plugin) \($0.file)") },
      uniquingKeysWith: { first, _ in first })
  }

  /// A plugin's row, `id`: its name, what it costs, its state.
  static func row(_ plugin: PluginActivity, id: String) -> ListRow {
    var costs: [String] = []
    if let pid = plugin.pid { costs.append("pid \(pid)") }
    if let cpu = plugin.cpuPercent { costs.append(String(format: "%.1f%%", cpu)) }
    if let memory = plugin.proportionalKiB { costs.append(String(format: "%.1f MiB", Double(memory) / 1024)) }
    costs.append(Plural.count(plugin.modules, "module"))
    costs.append(Plural.count(plugin.calls, "call"))
    if plugin.restarts > 0 { costs.append(Plural.count(plugin.restarts, "restart")) }
    let tone: Tone =
      switch plugin.state {
      case .running: .positive
      case .crashed, .notResponding: .negative
      case .idle, .notStarted, .disabled, .inProcess: .muted
      }
    return ListRow(
      id: id, title: plugin.plugin, detail: costs.joined(separator: " · "),
      marker: Marker(tone, plugin.state.rawValue))
  }
}
