import Foundation
import VivariumRuntime
import VivariumSupport
import VivariumWeb

/// One browser tab's session: a session of the shared host of its own, driven
/// by the lines the page sends (`tap ADDRESS`, `type ADDRESS TEXT`, `back`:
/// the session language of `vivarium run`, ``SessionCommand``), drawn on the
/// page as what it sends after every change (``PageUpdate``).
///
/// A page may send only what a person does on a screen: the commands in
/// ``allowed``; an event still reaches a module only if its view drew the
/// element it names (``HostRuntime/send(_:)`` checks it).
@MainActor
final class WebSession: WebSocketHandler {
  /// The commands a page may send.
  static let allowed: Set<SessionCommand.Name> = [.tap, .select, .type, .open, .back, .dismiss, .ok, .cancel, .screen]
  /// The longest line a page may send, in bytes.
  static let lineLimit = 64 << 10

  let runtime: HostRuntime
  private let session: Session
  private let connection: WebSocketConnection
  private let scheme: String?
  private var updateDue = false
  /// Whether the tab's first screen is opening.
  private var opening = false
  private var ended = false
  private let onEnd: () -> Void

  /// A session on `host` for `connection`, showing `link` (a deep link,
  /// empty for the app's first screen `start`).
  /// `onEnd` is called when the tab's connection has ended.
  init(
    host: SharedHost, connection: WebSocketConnection, link: String, start: String?, scheme: String?,
    onEnd: @escaping () -> Void
  ) {
    self.onEnd = onEnd
    runtime = host.openSession()
    session = Session(
      runtime: runtime, renderer: TextRenderer(width: 80), plugins: "", routes: "", scheme: scheme, settles: false)
    self.connection = connection
    self.scheme = scheme
    runtime.onScreenChanged = { [weak self] in self?.updateSoon() }
    runtime.asksForPermissionsInAlerts()
    let first = link.isEmpty ? start : link
    Task { @MainActor [weak self] in
      guard let self else { return }
      // As `vivarium run` opens its first screen: as the session's own line.
      var errors: [String] = []
      // Nothing is sent while the first screen opens: reading the session
      // for the page during a deep link's open made the open take seconds
      // (the dashboard's); what it shows is sent once it is open.
      self.opening = true
      if let first { errors = await self.session.execute("open \(first)").errors }
      self.opening = false
      self.send(PageUpdate(runtime: self.runtime, scheme: scheme, errors: errors))
    }
  }

  func received(_ text: String) {
    guard !ended else { return }
    guard text.utf8.count <= Self.lineLimit, !text.contains(where: \.isNewline) else {
      return send(PageUpdate(runtime: runtime, scheme: scheme, errors: ["a message must be one session line"]))
    }
    let command: SessionCommand?
    do {
      command = try SessionCommand.parse(text)
    } catch {
      return send(PageUpdate(runtime: runtime, scheme: scheme, errors: [error.message]))
    }
    guard let command else { return }
    guard Self.allowed.contains(command.name) else {
      return send(
        PageUpdate(
          runtime: runtime, scheme: scheme,
          errors: [
            "'\(command.name.rawValue)' is not for a page: it takes \(WebSession.allowed.map(\.rawValue).sorted().joined(separator: ", "))"
          ]))
    }
    Task { @MainActor [weak self] in
      guard let self else { return }
      let step = await self.session.execute(text)
      self.send(PageUpdate(runtime: self.runtime, scheme: self.scheme, errors: step.errors))
    }
  }

  func closed() {
    guard !ended else { return }
    ended = true
    runtime.onScreenChanged = {}
    runtime.shutdown()
    onEnd()
  }

  /// Sends the page what it shows now, once for a burst of changes.
  private func updateSoon() {
    guard !updateDue, !ended, !opening else { return }
    updateDue = true
    DispatchQueue.main.async { [weak self] in
      MainActor.assumeIsolated {
        guard let self else { return }
        self.updateDue = false
        self.send(PageUpdate(runtime: self.runtime, scheme: self.scheme, errors: []))
      }
    }
  }

  private func send(_ update: PageUpdate) {
    guard !ended, let json = try? PageUpdate.encoder.encode(update) else { return }
    connection.send(String(decoding: json, as: UTF8.self))
  }
}

/// What a page shows after a change: the screen, its deep link, the
/// notices and the alert, and the errors of the line it sent.
struct PageUpdate: Encodable {
  static let encoder: JSONEncoder = {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    return encoder
  }()

  let screen: ComposedScreen?
  let link: String?
  let notices: [HostNotifications.Notice]
  let alert: HostNotifications.Alert?
  let errors: [String]

  @MainActor
  init(runtime: HostRuntime, scheme: String?, errors: [String]) {
    screen = runtime.screen()
    link = runtime.link(scheme: nil)
    notices = runtime.notifications.takeNotices()
    alert = runtime.notifications.alerts.first
    self.errors = errors
  }

  func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    // An empty screen is sent as null, so that the page clears it.
    try container.encode(screen, forKey: .screen)
    try container.encodeIfPresent(link, forKey: .link)
    try container.encode(notices, forKey: .notices)
    try container.encodeIfPresent(alert, forKey: .alert)
    try container.encode(errors, forKey: .errors)
  }

  private enum CodingKeys: String, CodingKey { case screen, link, notices, alert, errors }
}
