import Foundation
import Testing
import ViperKit
import VivariumLoading

@testable import VivariumRuntime

/// The host's http service: only the hosts a plugin declares, a redirect
/// elsewhere refused, and responses recorded and replayed byte for byte,
/// a request never recorded failing, all against a server on this machine.
@Suite("The http service")
@MainActor
struct HTTPServiceTests {
  private let data: TemporaryDirectory

  init() throws { data = try TemporaryDirectory() }

  /// The http service of a plugin declaring `hosts`, each granted with
  /// `--allow` unless `granted` is false.
  private func client(_ hosts: [String], _ mode: HTTPMode = .live, granted: Bool = true) -> PluginHTTP {
    let gate = PermissionGate(dataDirectory: data.path, saveRefusal: nil) { 0 }
    if granted { gate.allowances = [PermissionAllowance(plugin: "WeatherPlugin", permission: nil)] }
    return PluginHTTP(
      identity: PluginIdentity(name: "WeatherPlugin", path: data.path + "/libWeather.so", hosts: hosts), gate: gate,
      mode: mode
    ) { _, _ in }
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
