import Foundation
import Testing
import ViperKit
import VivariumLoading

@testable import VivariumRuntime

/// The host's http service: only the hosts a plugin declares and the person
/// granted, at every redirect as at the first request, each hop logged; the
/// size limit held while reading and the time limit on the whole request; a
/// method or header that would put more on the wire refused; and responses
/// recorded and replayed byte for byte, only from regular files in the
/// folder, a request never recorded failing, all against servers on this
/// machine.
@Suite("The http service")
@MainActor
struct HTTPServiceTests {
  private let data: TemporaryDirectory

  init() throws { data = try TemporaryDirectory() }

  /// The limits of a test that does not test the time limit: the standard
  /// size, and time enough for a main actor other suites hold up for a while.
  private static let patient = HTTPLimits(size: HTTPLimits.standard.size, time: .seconds(600), redirects: 10)

  /// The http service of a plugin declaring `hosts`, each granted with
  /// `--allow` unless `granted` is false, or only those in `granting`.
  private func client(
    _ hosts: [String], _ mode: HTTPMode = .live, granted: Bool = true, granting: [String]? = nil,
    limits: HTTPLimits = patient
  ) -> PluginHTTP {
    let gate = PermissionGate(dataDirectory: data.path, saveRefusal: nil) { 0 }
    if let granting {
      gate.allowances = granting.map { PermissionAllowance(plugin: "WeatherPlugin", permission: .init(.http, $0)) }
    } else if granted {
      gate.allowances = [PermissionAllowance(plugin: "WeatherPlugin", permission: nil)]
    }
    return PluginHTTP(
      identity: PluginIdentity(name: "WeatherPlugin", path: data.path + "/libWeather.so", hosts: hosts), gate: gate,
      mode: mode, limits: limits
    ) { _, _ in }
  }

  /// The uses of permissions logged so far.
  private var uses: [PermissionUse] { PermissionLog(dataDirectory: data.path).uses().uses }

  /// What `body` gives, or nil when it has not given anything within
  /// `seconds` (it is then cancelled): a test of a limit that does not
  /// hold fails instead of hanging.
  private func within<T: Sendable>(seconds: Int, _ body: @escaping @MainActor () async -> T) async -> T? {
    await withTaskGroup(of: T?.self) { group in
      group.addTask { await body() }
      group.addTask {
        try? await Task.sleep(for: .seconds(seconds))
        return nil
      }
      let first = await group.next() ?? nil
      group.cancelAll()
      return first
    }
  }

  private func failure(_ send: () async throws -> HTTPResponse) async -> HTTPError? {
    do {
      _ = try await send()
      return nil
    } catch {
      return error as? HTTPError
    }
  }

  @Test func aRequestToAHostThePluginDoesNotDeclareIsRefusedNamingTheDeclaration() async throws {
    let http = client(["api.example.com", "*.tiles.example.com"])
    let refused = try #require(await failure { try await http.send(HTTPRequest("https://evil.example.org/steal")) })
    #expect(refused.kind == .undeclaredHost)
    #expect(refused.reason.contains("'evil.example.org'") && refused.reason.contains("hosts"))
    #expect(PluginHTTP.allows("a.tiles.example.com", in: ["*.tiles.example.com"]))
    #expect(!PluginHTTP.allows("tiles.example.com", in: ["*.tiles.example.com"]))
    #expect(!PluginHTTP.allows("badtiles.example.com", in: ["*.tiles.example.com"]))
    #expect(await failure { try await http.send(HTTPRequest("file:///etc/passwd")) }?.kind == .invalidURL)
  }

  @Test func aRequestToADeclaredHostNeverGrantedIsRefusedSayingHowToGrantIt() async throws {
    let http = client(["api.example.com"], granted: false)
    let refused = try #require(await failure { try await http.send(HTTPRequest("https://api.example.com/x")) })
    #expect(refused.kind == .notGranted)
    #expect(refused.reason.contains("vivarium permissions grant Weather http:api.example.com"))
    #expect(refused.reason.contains("--allow Weather:http:api.example.com"))
  }

  @Test func aResponseRecordedIsReplayedByteForByteAndOneNeverRecordedFails() async throws {
    let server = try LocalHTTPServer(
      response: "HTTP/1.1 200 OK\r\nContent-Length: 7\r\nX-Sky: clear\r\n\r\nsunny\u{0}\u{7}")
    let folder = try TemporaryDirectory()
    let request = HTTPRequest("http://127.0.0.1:\(server.port)/forecast?city=Oslo")
    let recorded = try await client(["127.0.0.1"], .record(folder.path)).send(request)
    #expect(recorded.status == 200 && recorded.body == Array("sunny\u{0}\u{7}".utf8))
    #expect(recorded.headers["x-sky"] == "clear")
    server.stop()
    let replayed = try await client(["127.0.0.1"], .replay(folder.path)).send(request)
    #expect(replayed == recorded)
    #expect(server.requests == 1)
    var other = request
    other.body = [1]
    let missing = try #require(await failure { try await client(["127.0.0.1"], .replay(folder.path)).send(other) })
    #expect(missing.kind == .notRecorded)
    #expect(missing.reason.contains("VIVARIUM_HTTP=record:"))
  }

  @Test func aRedirectToAnUndeclaredHostIsRefused() async throws {
    let server = try LocalHTTPServer(
      response: "HTTP/1.1 302 Found\r\nLocation: http://elsewhere.invalid/x\r\nContent-Length: 0\r\n\r\n")
    let request = HTTPRequest("http://127.0.0.1:\(server.port)/")
    let refused = try #require(await failure { try await client(["127.0.0.1"]).send(request) })
    #expect(refused.kind == .refusedRedirect)
    #expect(refused.reason.contains("elsewhere.invalid"))
    #expect(uses.map(\.permission) == ["http:127.0.0.1", "http:elsewhere.invalid"])
    #expect(uses.map(\.outcome) == [.allowed, .undeclared])
  }

  @Test(arguments: [301, 302, 307])
  func aRedirectToADeclaredHostNotGrantedIsRefusedAndLoggedAsAFirstRequestIs(status: Int) async throws {
    let other = try LocalHTTPServer(response: "HTTP/1.1 200 OK\r\nContent-Length: 6\r\n\r\nstolen")
    let server = try LocalHTTPServer(
      response: "HTTP/1.1 \(status) Moved\r\nLocation: http://localhost:\(other.port)/x\r\nContent-Length: 0\r\n\r\n")
    let http = client(["127.0.0.1", "localhost"], granting: ["127.0.0.1"])
    let refused = try #require(await failure { try await http.send(HTTPRequest("http://127.0.0.1:\(server.port)/")) })
    #expect(refused.kind == .notGranted)
    #expect(other.requests == 0)
    #expect(uses.map(\.permission) == ["http:127.0.0.1", "http:localhost"])
    #expect(uses.map(\.outcome) == [.allowed, .notGranted])
  }

  /// A server answering `GET /first` with `first`, and anything else with `then`.
  private func twoStep(_ first: String, then rest: String) throws -> LocalHTTPServer {
    try LocalHTTPServer { head, send in _ = send(Array((head.hasPrefix("GET /first ") ? first : rest).utf8)) }
  }

  @Test func everyHopOfARedirectChainIsCheckedAndLogged() async throws {
    let other = try LocalHTTPServer(response: "HTTP/1.1 200 OK\r\nContent-Length: 6\r\n\r\nstolen")
    let otherPort = other.port
    let server = try twoStep(
      "HTTP/1.1 302 Found\r\nLocation: /second\r\nContent-Length: 0\r\n\r\n",
      then: "HTTP/1.1 307 Temporary Redirect\r\nLocation: http://localhost:\(otherPort)/x\r\nContent-Length: 0\r\n\r\n")
    let http = client(["127.0.0.1", "localhost"], granting: ["127.0.0.1"])
    let request = HTTPRequest("http://127.0.0.1:\(server.port)/first")
    let refused = try #require(await failure { try await http.send(request) })
    #expect(refused.kind == .notGranted)
    #expect(server.requests == 2 && other.requests == 0)
    #expect(uses.map(\.permission) == ["http:127.0.0.1", "http:127.0.0.1", "http:localhost"])
    #expect(uses.map(\.outcome) == [.allowed, .allowed, .notGranted])
    #expect(
      uses.map(\.what) == [
        "GET \(request.url)", "GET http://127.0.0.1:\(server.port)/second", "GET http://localhost:\(otherPort)/x",
      ])
  }

  @Test func aRedirectWithinGrantedHostsIsFollowedEachHopLogged() async throws {
    let server = try twoStep(
      "HTTP/1.1 301 Moved Permanently\r\nLocation: /second\r\nContent-Length: 0\r\n\r\n",
      then: "HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\ndone")
    let response = try await client(["127.0.0.1"]).send(HTTPRequest("http://127.0.0.1:\(server.port)/first"))
    #expect(response.status == 200 && response.text == "done")
    #expect(uses.map(\.outcome) == [.allowed, .allowed])
  }

  @Test func aBodyOverTheLimitIsRefusedWhileItIsReadNotOnceItEnds() async throws {
    let limits = HTTPLimits(size: 256 << 10, time: .seconds(10), redirects: 10)
    // More than the limit, then a byte now and then until the client goes:
    // a client that waited for the end would run into the time limit.
    let server = try LocalHTTPServer { _, send in
      guard send(Array("HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\n\r\n".utf8)) else { return }
      guard send([UInt8](repeating: 0x61, count: 512 << 10)) else { return }
      while send([0x61]) { Thread.sleep(forTimeInterval: 0.05) }
    }
    let request = HTTPRequest("http://127.0.0.1:\(server.port)/big")
    let refused = await within(seconds: 300) {
      await self.failure { try await self.client(["127.0.0.1"], limits: limits).send(request) }
    }
    #expect(refused??.kind == .tooLarge)
    // A length declared over the limit is refused before any body is read.
    let declaring = try LocalHTTPServer { _, send in
      guard send(Array("HTTP/1.1 200 OK\r\nContent-Length: 1073741824\r\n\r\n".utf8)) else { return }
      while send([0x61]) { Thread.sleep(forTimeInterval: 0.05) }
    }
    let declared = HTTPRequest("http://127.0.0.1:\(declaring.port)/huge")
    let refusedEarly = await within(seconds: 300) {
      await self.failure { try await self.client(["127.0.0.1"], limits: limits).send(declared) }
    }
    #expect(refusedEarly??.kind == .tooLarge)
  }

  @Test func aBodyTrickledByteByByteIsCutOffByTheWholeRequestsTimeLimit() async throws {
    let server = try LocalHTTPServer { _, send in
      guard send(Array("HTTP/1.1 200 OK\r\nContent-Length: 1000000\r\n\r\n".utf8)) else { return }
      while send([0x61]) { Thread.sleep(forTimeInterval: 0.05) }
    }
    let limits = HTTPLimits(size: 8 << 20, time: .seconds(1), redirects: 10)
    let request = HTTPRequest("http://127.0.0.1:\(server.port)/slow")
    let outcome = await within(seconds: 300) {
      await self.failure { try await self.client(["127.0.0.1"], limits: limits).send(request) }
    }
    #expect(outcome??.kind == .timedOut)
  }

  @Test func aMethodOrHeaderThatWouldPutMoreOnTheWireIsRefusedNamingItAndNothingIsSent() async throws {
    let server = try LocalHTTPServer(response: "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
    let url = "http://127.0.0.1:\(server.port)/"
    let http = client(["127.0.0.1"])
    let refusedMethod = await failure {
      try await http.send(HTTPRequest(url, method: "GET / HTTP/1.1\r\nHost: evil.example\r\nX-A:"))
    }
    #expect(refusedMethod?.kind == .invalidRequest)
    #expect(await failure { try await http.send(HTTPRequest(url, method: "")) }?.kind == .invalidRequest)
    #expect(await failure { try await http.send(HTTPRequest(url, method: "CONNECT")) }?.kind == .invalidRequest)
    let headers: [(String, String)] = [
      ("X-A\r\nHost", "evil.example"), ("X-A", "a\r\nHost: evil.example"), ("X-A", "a\nb"), ("X-A", "a\u{0}b"),
      ("Host", "evil.example"), ("host", "evil.example"), ("Content-Length", "0"), ("Transfer-Encoding", "chunked"),
      ("Connection", "close"), ("X A", "b"),
    ]
    for (name, value) in headers {
      let refused = await failure { try await http.send(HTTPRequest(url, headers: [name: value])) }
      #expect(refused?.kind == .invalidRequest, "\(name.debugDescription): \(value.debugDescription)")
      #expect(refused?.reason.contains(name.debugDescription.dropFirst().dropLast()) == true)
    }
    #expect(server.requests == 0)
    let response = try await http.send(HTTPRequest(url, method: "PATCH", headers: ["X-City": "Oslo\tNorway"]))
    #expect(response.status == 200)
    #expect(server.heads.count == 1 && server.heads[0].hasPrefix("PATCH / HTTP/1.1\r\n"))
    #expect(server.heads[0].contains("\r\nX-City: Oslo\tNorway\r\n"))
  }

  @Test func aRecordingReplacedByASymbolicLinkIsNotReplayed() async throws {
    let server = try LocalHTTPServer(response: "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nsunny")
    let folder = try TemporaryDirectory()
    let outside = try TemporaryDirectory()
    let request = HTTPRequest("http://127.0.0.1:\(server.port)/forecast")
    _ = try await client(["127.0.0.1"], .record(folder.path)).send(request)
    let path = HTTPRecording.path(of: request, in: folder.path)
    #expect(try await client(["127.0.0.1"], .replay(folder.path)).send(request).text == "sunny")
    // The same recording, outside the folder, named by a link in its place.
    let target = outside.path + "/elsewhere.json"
    try FileManager.default.moveItem(atPath: path, toPath: target)
    #expect(symlink(target, path) == 0)
    let refused = await failure { try await client(["127.0.0.1"], .replay(folder.path)).send(request) }
    #expect(refused?.kind == .notRecorded)
  }

  @Test func theModeIsReadFromTheEnvironmentAndNonsenseIsRefused() {
    #expect(HTTPMode(environment: nil) == .live)
    #expect(HTTPMode(environment: "") == .live)
    #expect(HTTPMode(environment: "record:/tmp/r") == .record("/tmp/r"))
    #expect(HTTPMode(environment: "replay:fixtures") == .replay("fixtures"))
    #expect(HTTPMode(environment: "replay:") == nil)
    #expect(HTTPMode(environment: "offline") == nil)
  }
}
