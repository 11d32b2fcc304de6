import Foundation
import VivariumRuntime
import VivariumSupport
import VivariumWeb

/// One browser tab's session: a session of the shared host of its own,
/// driven by the lines the page sends (`tap ADDRESS`, `type ADDRESS TEXT`,
/// `back`: the session language of `vivarium run`, ``SessionCommand``),
/// and drawn on the page as the changes since what it last sent
/// (``PageUpdate``).
///
/// A tab outlives its connection: a page that reconnects (a dropped
/// network, a reload) continues it, and one that does not within
/// ``WebApp/keptFor`` ends it. What it shows is saved as it changes, in a
/// store of its own, so that after the host restarts the tab gets its
/// screens back.
///
/// A page may send only what a person does on a screen: the commands in
/// ``allowed``; an event still reaches a module only if its view drew the
/// element it names (``HostRuntime/send(_:)`` checks it).
@MainActor
final class WebTab {
  /// The commands a page may send.
  nonisolated static let allowed: Set<SessionCommand.Name> = [
    .tap, .select, .type, .open, .back, .dismiss, .ok, .cancel, .run, .screen,
  ]
  /// The longest line a page may send, in bytes.
  nonisolated static let lineLimit = 64 << 10

  /// The tab's id: the page keeps it for the tab (sessionStorage) and
  /// names it when it connects again.
  let id: String
  let runtime: HostRuntime
  private let session: Session
  private let scheme: String?
  private let store: NavigationStore
  /// The page's connection, while it has one.
  private var connection: WebSocketConnection?
  /// The page as last sent on ``connection``: the next update is what changed.
  private var sent: PageNode?
  /// The last update sent, to send none that says nothing new.
  private var lastSent: PageUpdate?
  /// What the status line says of the host (plugins not confined).
  private let status: String?
  private var updateDue = false
  /// Whether the tab's first screen is opening: nothing is sent meanwhile,
  /// and the lines the page sends wait in ``waiting``.
  private var opening = false
  private var waiting: [(String, WebSocketConnection)] = []
  private var dropped = 0
  private(set) var ended = false
  /// When the page's connection ended, while it has none.
  private(set) var disconnectedAt: ContinuousClock.Instant?

  /// A tab `id` on `host`, showing `link` (a deep link; the app's `start`
  /// when empty), or the screens `store` saved for it if any.
  init(
    id: String, host: SharedHost, store: NavigationStore, link: String, start: String?, scheme: String?, status: String?
  ) {
    self.id = id
    self.store = store
    self.scheme = scheme
    self.status = status
    runtime = host.openSession()
    session = Session(
      runtime: runtime, renderer: TextRenderer(width: 80), plugins: "", routes: "", scheme: scheme, settles: false)
    runtime.onScreenChanged = { [weak self] in self?.updateSoon() }
    let first = link.isEmpty ? start : link
    opening = true
    Task { @MainActor [weak self] in
      guard let self else { return }
      var errors: [String] = []
      // A tab the host saved (it restarted) gets its screens back; else it
      // opens its link as `vivarium run` opens its first screen, as a line.
      _ = await runtime.restore(from: store)
      if runtime.top == nil || (!link.isEmpty && link != runtime.link(scheme: nil)), let first {
        errors = await session.execute("open \(first)").errors
      }
      runtime.keepSaving(to: store)
      opening = false
      if dropped > 0 { errors.append("\(dropped) lines sent while the first screen opened were dropped") }
      send(errors: errors)
      // Lines the page sent meanwhile, in order.
      for (line, connection) in waiting { received(line, on: connection) }
      waiting = []
    }
  }

  /// The page's connection is `connection` from now on: it gets the whole
  /// page first, then changes. A connection before it is told it was taken
  /// over, and closed. A page whose address bar holds another link than
  /// the tab shows (the person typed one) has it opened.
  func attach(_ connection: WebSocketConnection, link: String) {
    if let previous = self.connection {
      previous.send(PageUpdate.takenOver)
      previous.close(.normalClosure, reason: "the tab connected again")
    }
    self.connection = connection
    disconnectedAt = nil
    sent = nil
    lastSent = nil
    // Only a tab a person has open is asked for permissions.
    if runtime.permissionAsker.ask == nil { runtime.asksForPermissionsInAlerts() }
    guard !opening else { return }
    send(errors: [])
    if !link.isEmpty, link != runtime.link(scheme: nil) { received("open \(link)", on: connection) }
  }

  /// `connection` ended: the tab waits for the page to connect again.
  func detach(_ connection: WebSocketConnection) {
    guard self.connection?.id == connection.id else { return }
    self.connection = nil
    sent = nil
    disconnectedAt = .now
    runtime.permissionAsker.ask = nil
  }

  /// Ends the session: its modules are let go, and what it saved removed
  /// unless `keepingSaved` (the host is stopping: the page gets its
  /// screens back when it serves again).
  func end(keepingSaved: Bool = false) {
    guard !ended else { return }
    ended = true
    connection?.close(.goingAway, reason: "the session ended")
    connection = nil
    runtime.onScreenChanged = {}
    runtime.onNavigationChanged = nil
    runtime.shutdown()
    if !keepingSaved { store.remove() }
  }

  /// A line from the page on `connection`.
  func received(_ text: String, on connection: WebSocketConnection) {
    guard !ended, self.connection?.id == connection.id else { return }
    guard !opening else {
      // A page sends none before its first screen: past 64, they are
      // dropped, and the page told once it is open.
      if waiting.count < 64 { waiting.append((text, connection)) } else { dropped += 1 }
      return
    }
    guard text.utf8.count <= Self.lineLimit, !text.contains(where: \.isNewline) else {
      return send(errors: ["a message must be one session line"])
    }
    let command: SessionCommand?
    do {
      command = try SessionCommand.parse(text, commands: runtime.commandIDs)
    } catch {
      return send(errors: [error.message])
    }
    guard let command else { return }
    guard Self.allowed.contains(command.name) else {
      return send(errors: [
        "'\(command.name.rawValue)' is not for a page: it takes \(Self.allowed.map(\.rawValue).sorted().joined(separator: ", "))"
      ])
    }
    Task { @MainActor [weak self] in
      guard let self else { return }
      let step = await session.execute(text)
      // A line is always answered, if only to say it was carried out.
      send(errors: step.errors, answering: true)
    }
  }

  /// Sends the page what changed, once for a burst of changes.
  private func updateSoon() {
    guard !updateDue, !ended, !opening, connection != nil else { return }
    updateDue = true
    DispatchQueue.main.async { [weak self] in
      MainActor.assumeIsolated {
        guard let self else { return }
        self.updateDue = false
        self.send(errors: [])
      }
    }
  }

  /// Sends the page what changed since it was last sent, with `errors`;
  /// nothing when nothing did, unless `answering` a line of the page's.
  private func send(errors: [String], answering: Bool = false) {
    guard !ended, let connection else { return }
    let page = PageRenderer.page(runtime.layers.compactMap { $0.last.map(ComposedScreen.init) })
    let update = PageUpdate(
      tab: sent == nil ? id : nil, page: page, since: sent, runtime: runtime, status: sent == nil ? status : nil,
      errors: errors)
    sent = page
    // Nothing new (a burst's second signal): nothing sent.
    if !answering, let lastSent, update.saysNothingNew(after: lastSent) { return }
    lastSent = update
    connection.send(update.json)
  }
}

/// The connection of a tab's page: what it receives goes to its tab, and
/// its end detaches it.
@MainActor
final class TabConnection: WebSocketHandler {
  private let tab: WebTab
  private let connection: WebSocketConnection
  private let onClosed: () -> Void

  /// `connection` of `tab`'s page; `onClosed` is called after it detached.
  init(tab: WebTab, connection: WebSocketConnection, onClosed: @escaping () -> Void) {
    self.tab = tab
    self.connection = connection
    self.onClosed = onClosed
  }

  func received(_ text: String) { tab.received(text, on: connection) }

  func closed() {
    tab.detach(connection)
    onClosed()
  }
}
