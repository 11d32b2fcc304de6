import Foundation
import Glibc
import Testing
import VivariumWeb

/// `vivarium serve` as a browser tab meets it, over real sockets: the
/// token, the page, and a tab's session on the demo's plugins driven by the
/// lines the page sends.
@Suite(.serialized)
@MainActor
struct ServeCommandTests {
  @Test func aTabSignsInWithTheTokenAndASecondTabHasASessionOfItsOwn() async throws {
    let plugins = try BuildProducts.demoPluginDirectory()
    let data = try TemporaryDirectory()
    let server = try ServeProcess(plugins: plugins.path, data: data.path)
    defer { server.stop() }

    // Without the token: refused.
    let refused = try ServeClient(port: server.port)
    refused.write("GET / HTTP/1.1\r\nHost: 127.0.0.1:\(server.port)\r\n\r\n")
    #expect(await refused.readText { $0.contains("\r\n\r\n") }.hasPrefix("HTTP/1.1 401"))

    // A tab: its session opens the app's first screen, the sign-in form.
    let tab = try ServeClient(port: server.port)
    try await tab.openSocket(token: server.token, link: "")
    #expect(await tab.update { $0.urn == "login:form" } != nil, "\(tab.updates.suffix(2))")
    tab.send("type user ada")
    tab.send("type password lovelace")
    tab.send("tap signIn")
    #expect(await tab.update { $0.urn?.hasPrefix("dashboard:home") == true } != nil, "\(tab.updates.suffix(2))")
    // A line a page may not send is refused by name; the session goes on.
    tab.send("routes")
    #expect(await tab.update { ($0.errors ?? []).contains { $0.hasPrefix("'routes' ") } } != nil)

    // A second tab, on a deep link behind the sign-in: the person signed
    // in, it opens there, in a session of its own.
    let second = try ServeClient(port: server.port)
    try await second.openSocket(token: server.token, link: "products%3Asearch")
    #expect(await second.update { $0.urn == "products:search" } != nil, "\(second.updates.suffix(2))")
    let third = try ServeClient(port: server.port)
    try await third.openSocket(token: server.token, link: "dashboard%3Ahome%3Fuser%3Dada")
    #expect(await third.update { $0.urn == "dashboard:home?user=ada" } != nil, "\(third.updates.suffix(2))")
    tab.send("screen")
    #expect(await tab.update { $0.urn?.hasPrefix("dashboard:home") == true } != nil, "the first tab stays where it was")
  }

  /// A tab whose connection drops connects again under its id and goes on
  /// where it was (the page it replaces is told); after the server
  /// restarts, on the token it kept, the tab gets its screens back.
  @Test func aTabGoesOnAfterItReconnectsAndAfterTheServerRestarts() async throws {
    let plugins = try BuildProducts.demoPluginDirectory()
    let data = try TemporaryDirectory()
    var server = try ServeProcess(plugins: plugins.path, data: data.path)
    defer { server.stop() }
    let page = try ServeClient(port: server.port)
    try await page.openSocket(token: server.token, link: "")
    let first = await page.update { $0.tab != nil }
    let id = try #require(first?.tab)
    #expect(first?.link == "login:form", "\(page.updates.suffix(2))")
    page.send("type user ada")
    page.send("type password lovelace")
    page.send("tap signIn")
    // On the dashboard, the weather asks for its permission: allowed.
    let asked = await page.update { $0.alert != nil }
    #expect(asked?.urn?.hasPrefix("dashboard:home") == true, "\(page.updates.suffix(2))")
    page.send("ok")
    // Pushed as a page's command line does: not waiting for the dashboard
    // to draw its button.
    page.send("open profile:ada")
    let shown = try #require(await page.update { $0.link?.hasSuffix("/profile:ada") == true }?.link)
    let address = try #require(shown.addingPercentEncoding(withAllowedCharacters: .alphanumerics))

    // Reloaded, its address bar unchanged: its session is kept.
    let reloaded = try ServeClient(port: server.port)
    try await reloaded.openSocket(token: server.token, link: address, tab: id)
    #expect(await reloaded.update { $0.link == shown } != nil, "\(reloaded.updates)")
    #expect(await page.update { $0.takenOver == true } != nil, "the page it replaced is told")

    // Restarted: the same token, and the tab's screens back.
    let token = server.token
    server.stop()
    server = try ServeProcess(plugins: plugins.path, data: data.path)
    #expect(server.token == token, "the token is kept in the data directory")
    let restarted = try ServeClient(port: server.port)
    try await restarted.openSocket(token: server.token, link: address, tab: id)
    #expect(await restarted.update { $0.link == shown } != nil, "\(restarted.updates)")

    // Another link typed in its address bar: opened in the tab's session.
    let typed = try ServeClient(port: server.port)
    try await typed.openSocket(token: server.token, link: "products%3Asearch", tab: id)
    #expect(await typed.update { $0.link?.hasSuffix("products:search") == true } != nil, "\(typed.updates)")
  }

  /// `serve --watch`: a plugin file replaced in the plugin directory (a
  /// new build, told apart by its heading) is reloaded in every tab that
  /// shows it, each where it was, and each tab is told.
  @Test func aRebuiltPluginIsReloadedInEveryTabAndEachIsTold() async throws {
    let server = try ServeProcess.serving(["ProductSearch"], arguments: ["--watch"])
    defer { server.stop() }
    let first = try ServeClient(port: server.port)
    try await first.openSocket(token: server.token, link: "products%3Asearch")
    let second = try ServeClient(port: server.port)
    try await second.openSocket(token: server.token, link: "products%3Asearch")
    #expect(await first.update { $0.urn == "products:search" } != nil, "\(first.updates.suffix(2))")
    let opened = await second.update { $0.urn == "products:search" }
    let id = try #require(opened?.tab)
    // The second tab on the second page: its own state, kept through the reload.
    let previous = #""data-address":"previous""#
    second.send("tap next")
    #expect(await second.message { $0.contains(previous) } != nil, "\(second.updates.suffix(2))")

    // The new build, moved in as a linker's output is (the link to the
    // built file replaced by a file of its own).
    let path = server.plugins + "/libProductSearch.so"
    var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
    let heading = try #require(bytes.range(of: Data("Products".utf8)))
    bytes.replaceSubrange(heading, with: Data("Produkte".utf8))
    try bytes.write(to: URL(fileURLWithPath: path), options: .atomic)

    for tab in [first, second] {
      let told = await tab.update { update in
        (update.notices ?? []).contains { $0.tone == "positive" && $0.text.contains("libProductSearch.so") }
      }
      #expect(told?.urn == "products:search", "told, on the same screen: \(tab.updates.suffix(3))")
      #expect(tab.updates.contains { $0.contains("Produkte") }, "the new build is shown: \(tab.updates.suffix(3))")
    }
    // The second tab's page, whole, as a reload of the page gets it: the
    // new build, on the second page (it can go back to the first).
    let reloaded = try ServeClient(port: server.port)
    try await reloaded.openSocket(token: server.token, link: "products%3Asearch", tab: id)
    let page = await reloaded.message { $0.contains(#""page":"#) } ?? ""
    #expect(page.contains("Produkte") && page.contains(previous), "\(reloaded.updates)")
  }
}

/// What a page receives after a change, as far as these tests read it:
/// the deep link shown and the errors.
struct ServeUpdate: Decodable {
  /// An alert or question, by its title.
  struct Alert: Decodable { let title: String }
  let tab: String?
  let alert: Alert?
  let link: String?
  let errors: [String]?
  let takenOver: Bool?
  /// The notices new since the last update.
  let notices: [Notice]?
  /// A notice: its tone (`positive`, `negative`, …) and text.
  struct Notice: Decodable {
    let tone: String
    let text: String
  }
  /// The first module of the link.
  var urn: String? { link?.split(separator: "/").first.map(String.init) }
}

/// A browser tab's end of the connection, by hand, over a raw socket
/// (``WebRawClient``): HTTP, then a WebSocket whose frames it masks, as a
/// browser does (``WebFrames``). Every read is bounded.
@MainActor
final class ServeClient {
  private let raw: WebRawClient
  private let port: UInt16
  /// The messages read, in order.
  private(set) var updates: [String] = []

  init(port: UInt16) throws {
    self.port = port
    raw = try WebRawClient(port: port)
  }

  func write(_ text: String) { raw.write(text) }

  /// Reads until `done` holds of all that came (or the bound), and returns it as text.
  func readText(until done: (String) -> Bool) async -> String {
    _ = await raw.read { done(String(decoding: $0, as: UTF8.self)) }
    return String(decoding: raw.received, as: UTF8.self)
  }

  /// Upgrades to the tab's WebSocket, with the token's cookie and the server's own origin.
  func openSocket(token: String, link: String, tab: String? = nil) async throws {
    let key = Base64.encode((0..<16).map { _ in UInt8.random(in: 0...255) })
    write(
      "GET /socket?link=\(link)\(tab.map { "&tab=" + $0 } ?? "") HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        + "Sec-WebSocket-Key: \(key)\r\nSec-WebSocket-Version: 13\r\nOrigin: http://127.0.0.1:\(port)\r\n"
        + "Cookie: vivarium-token=\(token)\r\n\r\n")
    let head = await readText { $0.contains("\r\n\r\n") }
    guard head.hasPrefix("HTTP/1.1 101") else { throw ServeTestError(description: "not upgraded: \(head)") }
  }

  /// Sends `line` as one masked text message.
  func send(_ line: String) {
    raw.write(WebFrames.masked(0x1, Array(line.utf8), mask: (0..<4).map { _ in UInt8.random(in: 0...255) }))
  }

  /// The first update from now on (or already read and not yet looked at)
  /// that `wanted` takes, within the bound; nil if none came.
  func update(_ wanted: (ServeUpdate) -> Bool) async -> ServeUpdate? {
    let decode = { (text: String) in try? JSONDecoder().decode(ServeUpdate.self, from: Data(text.utf8)) }
    return await message { decode($0).map(wanted) ?? false }.flatMap(decode)
  }

  /// The first message from now on (or already read and not yet looked at)
  /// whose text `wanted` takes, within the bound; nil if none came.
  func message(_ wanted: (String) -> Bool) async -> String? {
    var found: String?
    _ = await raw.read { received in
      // Each frame is read once: those taken are dropped from what was received.
      let (frames, length) = WebFrames.serverFrames(received)
      for frame in frames {
        let message = String(decoding: frame.payload, as: UTF8.self)
        updates.append(message)
        if found == nil, wanted(message) { found = message }
      }
      raw.drop(first: length)
      return found != nil
    }
    return found
  }
}
