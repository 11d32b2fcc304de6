import Foundation
import VivariumRuntime

/// What a tab's page is sent after a change, as one JSON object:
///
/// - `tab`: the tab's id, in the first update on a connection;
/// - `page`: the whole page (``PageNode``), in the first update, or when
///   it is shorter than the changes; else `changes` (``PageChange``), in
///   order;
/// - `link`: the deep link shown (the address bar's path), and `depth`, how
///   many screens are stacked (browser history follows it);
/// - `notices`, new since the last update; `alert`, the alert or question
///   shown, null for none; `errors` of the line the page sent;
/// - `status`: what the host says of itself (plugins not confined), in the
///   first update;
/// - `commands`: the commands the modules on screen offer
///   (``HostRuntime/screenCommands()``), each with its `id`, `title`,
///   `plugin`, and its `key` that runs it, or the `conflict` that keeps
///   its key from running it;
/// - `takenOver`: true alone, when another page connected as this tab.
struct PageUpdate: Encodable {
  /// Sent to a page whose tab another page took over.
  static let takenOver = String(decoding: (try? encoder.encode(TakenOver())) ?? Data(), as: UTF8.self)

  private struct TakenOver: Encodable { let takenOver = true }

  static let encoder: JSONEncoder = {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    return encoder
  }()

  /// Changes this long or shorter are sent as changes without comparing
  /// them with the page, in bytes.
  static let shortChanges = 4096

  let tab: String?
  let page: PageNode?
  let changes: [PageChange]?
  let link: String?
  let depth: Int
  let notices: [HostNotifications.Notice]
  let alert: HostNotifications.Alert?
  let errors: [String]
  let status: String?
  let commands: [Command]

  /// A command a module on screen offers, as the page lists it and runs it.
  struct Command: Encodable, Equatable {
    let id: String
    let title: String
    let plugin: String
    /// The key that runs it, when it has one no other takes.
    let key: String?
    /// Why its key does not run it, for the person.
    let conflict: String?
  }

  /// The update for a page that was last sent `since` (nil: nothing yet)
  /// and now shows `page`.
  @MainActor
  init(tab: String?, page: PageNode, since: PageNode?, runtime: HostRuntime, status: String?, errors: [String]) {
    self.tab = tab
    let changes = since.map { PageDiff.changes(from: $0, to: page) }
    // Changes larger than the page (everything replaced) are sent as the
    // page; the page is encoded to compare only when the changes are long.
    if let changes, let bytes = try? Self.encoder.encode(changes).count,
      bytes <= Self.shortChanges || bytes <= ((try? Self.encoder.encode(page).count) ?? 0)
    {
      (self.page, self.changes) = (nil, changes)
    } else {
      (self.page, self.changes) = (page, nil)
    }
    link = runtime.link(scheme: nil)
    depth = runtime.layers.reduce(0) { $0 + $1.count }
    notices = runtime.notifications.takeNotices()
    alert = runtime.notifications.alerts.first
    self.errors = errors
    self.status = status
    commands = runtime.screenCommands().map { command in
      Command(
        id: command.id, title: command.title, plugin: command.plugin, key: command.runningKey,
        conflict: command.conflictText)
    }
  }

  /// Whether the page learns nothing from this update, sent after `last`:
  /// no change, notice or error, and the same link, depth and alert.
  func saysNothingNew(after last: PageUpdate) -> Bool {
    page == nil && changes?.isEmpty != false && notices.isEmpty && errors.isEmpty && tab == nil && status == nil
      && link == last.link && depth == last.depth && alert == last.alert && commands == last.commands
  }

  /// The update as the text of one WebSocket message.
  var json: String {
    // Every value here encodes: strings, numbers and the app's own types.
    String(decoding: (try? Self.encoder.encode(self)) ?? Data("{}".utf8), as: UTF8.self)
  }

  func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encodeIfPresent(tab, forKey: .tab)
    try container.encodeIfPresent(page, forKey: .page)
    try container.encodeIfPresent(changes, forKey: .changes)
    try container.encodeIfPresent(link, forKey: .link)
    try container.encode(depth, forKey: .depth)
    try container.encode(notices, forKey: .notices)
    // Null when none, so that the page closes the one it shows.
    try container.encode(alert, forKey: .alert)
    try container.encode(errors, forKey: .errors)
    try container.encodeIfPresent(status, forKey: .status)
    try container.encode(commands, forKey: .commands)
  }

  private enum CodingKeys: String, CodingKey {
    case tab, page, changes, link, depth, notices, alert, errors, status, commands
  }
}
