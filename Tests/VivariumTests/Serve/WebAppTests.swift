import Testing
import ViperKit
import VivariumLoading
import VivariumRuntime
import VivariumServe
import VivariumWeb

/// The app's answers to a browser's requests, without sockets: the token
/// first, then the page, its script and style sheet, all with the security
/// headers.
@MainActor
@Suite struct WebAppTests {
  let token = RandomToken()
  let app: WebApp

  init() throws {
    let runtime = HostRuntime(catalog: PluginCatalog(outcomes: []), services: try TestServices.make())
    app = WebApp(host: runtime.host, token: token, start: nil, scheme: nil, directories: [])
  }

  private func request(_ target: String, method: String = "GET", cookie: String? = nil) throws -> HTTPRequestHead {
    var parser = HTTPRequestParser()
    let head =
      "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n" + (cookie.map { "Cookie: \($0)\r\n" } ?? "") + "\r\n"
    guard case .request(let parsed, _) = try parser.feed(Array(head.utf8)) else {
      throw WebAppTestError.incomplete
    }
    return parsed
  }

  private var cookie: String { "other=1; vivarium-token=\(token.text)" }

  @Test func withoutTheTokenNothingIsServed() throws {
    for target in ["/", "/app.js", "/app.css", "/dashboard:home", "/?token=wrong"] {
      #expect(app.respond(to: try request(target), body: []).status.code == 401, "\(target)")
    }
    #expect(app.respond(to: try request("/", cookie: "vivarium-token=\(token.text)x"), body: []).status.code == 401)
  }

  @Test func theTokenInTheAddressGoesIntoAStrictHttpOnlyCookieAndLeavesTheAddress() throws {
    let response = app.respond(to: try request("/dashboard:home?token=\(token.text)"), body: [])
    #expect(response.status.code == 303)
    #expect(response["Location"] == "/dashboard:home")
    let setCookie = try #require(response["Set-Cookie"])
    #expect(setCookie.hasPrefix("vivarium-token=\(token.text);"))
    #expect(setCookie.contains("HttpOnly") && setCookie.contains("SameSite=Strict"))
  }

  @Test func withTheCookieThePageAndItsFilesAreServedWithTheSecurityHeaders() throws {
    for (target, type) in [
      ("/", "text/html"), ("/products:search", "text/html"), ("/app.js", "text/javascript"), ("/app.css", "text/css"),
    ] {
      let response = app.respond(to: try request(target, cookie: cookie), body: [])
      #expect(response.status.code == 200, "\(target)")
      #expect(response["Content-Type"]?.hasPrefix(type) == true, "\(target)")
      #expect(response["Content-Security-Policy"] == HTTPResponse.contentSecurityPolicy, "\(target)")
      #expect(response["X-Content-Type-Options"] == "nosniff")
    }
    #expect(app.respond(to: try request("/", method: "POST", cookie: cookie), body: []).status.code == 405)
  }

  /// The page runs no inline script and no handler attribute: the policy
  /// allows only the script file, and plugin text is set as text.
  @Test func thePageHasNoInlineScript() throws {
    let page = String(decoding: app.respond(to: try request("/", cookie: cookie), body: []).body, as: UTF8.self)
    let scripts = page.split(separator: "<script").dropFirst()
    #expect(scripts.count == 1)
    #expect(scripts.allSatisfy { $0.hasPrefix(" src=\"/app.js\"") && $0.contains("></script>") })
    #expect(page.firstMatch(of: /\son[a-z]+=/) == nil, "no on… handler attributes")
    let script = String(decoding: app.respond(to: try request("/app.js", cookie: cookie), body: []).body, as: UTF8.self)
    #expect(!script.contains("innerHTML") && !script.contains("insertAdjacentHTML") && !script.contains("eval("))
  }
}

enum WebAppTestError: Error { case incomplete }
