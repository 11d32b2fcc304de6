import VivariumRuntime
import VivariumWeb

/// The app as a web server's handler: the page for any path (the path is a
/// deep link), its script and style sheet, and one session per WebSocket
/// (``WebSession``), all on one shared host.
///
/// Every request needs the server's token: in the URL once (`?token=…`,
/// as `vivarium serve` prints it), which sets it in an HttpOnly,
/// SameSite=Strict cookie and sends the page again without it in the
/// address bar; then the cookie. Tokens are compared in constant time.
@MainActor
package final class WebApp: WebHandler {
  /// The cookie that carries the token.
  static let cookie = "vivarium-token"
  /// The path of the WebSocket a page opens.
  static let socketPath = "/socket"

  /// How long a tab whose page disconnected is kept for it to connect
  /// again (a reload, a dropped network), in seconds: as long as Blazor
  /// keeps a circuit.
  static let keptFor: Double = 180
  /// The most tabs kept without a page: past it, the one disconnected
  /// longest ends first.
  static let keptLimit = 64

  private let host: SharedHost
  private let token: RandomToken
  private let start: String?
  private let scheme: String?
  private let directories: [String]
  private let status: String?
  /// The tabs, by id: each outlives its connections.
  private var tabs: [String: WebTab] = [:]

  /// The app over `host` and the plugins in `directories`, opening `start`
  /// (a URN or deep link) in a tab that asks for no screen, and admitting
  /// those that present `token`; `status` is what the page's status line
  /// says of the host (plugins not confined), if anything.
  package init(
    host: SharedHost, token: RandomToken, start: String?, scheme: String?, directories: [String], status: String? = nil
  ) {
    self.host = host
    self.token = token
    self.start = start
    self.scheme = scheme
    self.directories = directories
    self.status = status
  }

  /// The address to open: the server's, with the token.
  package func address(host: String, port: UInt16) -> String {
    let shown = host.contains(":") ? "[\(host)]" : host
    return "http://\(shown):\(port)/?token=\(token.text)"
  }

  /// How many tabs are open, with a page or kept for one.
  package var sessionCount: Int { tabs.count }

  package func respond(to request: HTTPRequestHead, body: [UInt8]) -> HTTPResponse {
    guard request.method == "GET" || request.method == "HEAD" else {
      return Self.response(.methodNotAllowed, text: "only GET and HEAD are served", headers: [("Allow", "GET, HEAD")])
    }
    if let presented = Self.queryToken(request) {
      guard token.matches(presented) else { return Self.unauthorized() }
      // The token goes into the cookie; the address bar loses it.
      return Self.response(
        HTTPStatus(code: 303, reason: "See Other"), text: "",
        headers: [
          // As sent, percent-encoded: never a control character.
          ("Location", String(request.target.raw.prefix { $0 != "?" })),
          ("Set-Cookie", "\(Self.cookie)=\(presented); Path=/; HttpOnly; SameSite=Strict"),
        ])
    }
    guard hasToken(request) else { return Self.unauthorized() }
    switch request.target.path {
    case "/app.js": return Self.asset(PageAssets.script, type: "text/javascript; charset=utf-8")
    case "/app.css": return Self.asset(PageAssets.css, type: "text/css; charset=utf-8")
    case "/favicon.ico", Self.socketPath: return Self.response(.notFound, text: "not found")
    default: return Self.asset(PageAssets.html, type: "text/html; charset=utf-8")
    }
  }

  package func upgrade(_ request: HTTPRequestHead, connection: WebSocketConnection) -> Result<
    any WebSocketHandler, WebUpgradeRefusal
  > {
    guard hasToken(request) else { return .failure(WebUpgradeRefusal(Self.unauthorized())) }
    guard request.target.path == Self.socketPath else {
      return .failure(WebUpgradeRefusal(Self.response(.notFound, text: "no WebSocket at this path")))
    }
    let query = (try? request.target.queryItems()) ?? []
    let link = query.first { $0.name == "link" }?.value ?? ""
    let asked = query.first { $0.name == "tab" }.map(\.value).flatMap { RandomToken.isText($0) ? $0 : nil }
    let tab: WebTab
    if let asked, let kept = tabs[asked], !kept.ended {
      tab = kept
    } else {
      // A tab the host does not have (new, ended, or from before a
      // restart, whose saved screens it gets back) under the id it asked for.
      let id = asked ?? RandomToken().text
      tab = WebTab(
        id: id, host: host,
        store: NavigationStore(dataDirectory: host.services.dataDirectory, directories: directories, tab: id),
        link: link, start: start, scheme: scheme, status: status)
      tabs[id] = tab
    }
    tab.attach(connection, link: link)
    return .success(TabConnection(tab: tab, connection: connection) { [weak self] in self?.disconnected(tab) })
  }

  /// `tab`'s page disconnected: it is kept for ``keptFor`` seconds, and
  /// the tabs kept longest end past ``keptLimit``.
  private func disconnected(_ tab: WebTab) {
    let kept = tabs.values.filter { $0.disconnectedAt != nil }.sorted { $0.disconnectedAt! < $1.disconnectedAt! }
    for old in kept.prefix(max(0, kept.count - Self.keptLimit)) { end(old) }
    Task { @MainActor [weak self, weak tab] in
      try? await Task.sleep(for: .seconds(Self.keptFor))
      guard let self, let tab, let since = tab.disconnectedAt, since.duration(to: .now) >= .seconds(Self.keptFor)
      else { return }
      end(tab)
    }
  }

  private func end(_ tab: WebTab) {
    tab.end()
    if tabs[tab.id] === tab { tabs[tab.id] = nil }
  }

  /// Ends every tab, keeping what each saved: the host is stopping, and
  /// the pages get their screens back when it serves again.
  package func stop() {
    for tab in tabs.values { tab.end(keepingSaved: true) }
    tabs.removeAll()
  }

  /// Whether `request` carries the token in its cookie.
  private func hasToken(_ request: HTTPRequestHead) -> Bool {
    for header in request.headers.values("Cookie") {
      for pair in header.split(separator: ";") {
        let parts = pair.split(separator: "=", maxSplits: 1)
        guard parts.count == 2, parts[0].trimmingSpaces == Self.cookie else { continue }
        if token.matches(String(parts[1].trimmingSpaces)) { return true }
      }
    }
    return false
  }

  private static func queryToken(_ request: HTTPRequestHead) -> String? {
    (try? request.target.queryItems())?.first { $0.name == "token" }?.value
  }

  private static func unauthorized() -> HTTPResponse {
    response(
      HTTPStatus(code: 401, reason: "Unauthorized"),
      text: "This server needs its token: open the address 'vivarium serve' printed, with ?token=…")
  }

  private static func asset(_ text: String, type: String) -> HTTPResponse {
    response(.ok, text: text, headers: [("Content-Type", type)])
  }

  private static func response(_ status: HTTPStatus, text: String, headers: [(String, String)] = []) -> HTTPResponse {
    do {
      var response = try HTTPResponse(status: status, text: text)
      for (name, value) in headers { try response.setHeader(name, value) }
      response.addSecurityHeaders(noStore: true)
      return response
    } catch {
      // Every name and value here is the app's own, each path tested.
      preconditionFailure("the app's own response was refused: \(error)")
    }
  }
}

extension Substring {
  fileprivate var trimmingSpaces: Substring {
    var text = self
    while text.first == " " { text.removeFirst() }
    while text.last == " " { text.removeLast() }
    return text
  }
}
