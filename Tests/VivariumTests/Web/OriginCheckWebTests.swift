import Testing

@testable import VivariumWeb

/// A server on loopback answers only to its own names at its own port,
/// and takes WebSockets only from its own origin.
@Suite("Web: Host and Origin checks")
struct OriginCheckWebTests {
  /// The kind `check` refuses `host` for, or nil.
  static func hostRefusal(_ check: OriginCheck, _ host: String?) -> OriginCheckError.Kind? {
    do {
      try check.checkHost(host)
      return nil
    } catch {
      return error.kind
    }
  }

  /// The kind `check` refuses `origin` for, or nil.
  static func originRefusal(_ check: OriginCheck, _ origin: String?) -> OriginCheckError.Kind? {
    do {
      try check.checkOrigin(origin)
      return nil
    } catch {
      return error.kind
    }
  }

  @Test func theLoopbackNamesAtThePort() {
    let check = OriginCheck(port: 8080)
    for host in ["127.0.0.1:8080", "localhost:8080", "[::1]:8080", "LOCALHOST:8080", "LocalHost:8080"] {
      #expect(Self.hostRefusal(check, host) == nil, "\(host)")
      #expect(check.acceptsHost(host), "\(host)")
    }
    #expect(check.acceptedHosts == ["127.0.0.1:8080", "localhost:8080", "[::1]:8080"])
  }

  /// DNS rebinding: another name, even one resolving to 127.0.0.1, is
  /// refused; so is the right name at another port, or without one.
  @Test func everyOtherHostIsRefused() {
    let check = OriginCheck(port: 8080)
    for host in [
      "evil.example:8080", "evil.example", "127.0.0.1", "localhost", "[::1]", "127.0.0.1:80", "127.0.0.1:8081",
      "localhost:80800", "127.0.0.2:8080", "127.1:8080", "2130706433:8080", "0.0.0.0:8080", "[::]:8080",
      "::1:8080", "localhost.:8080", "localhost:8080.", " localhost:8080", "localhost:8080 ", "localhost:08080",
      "user@localhost:8080", "localhost:8080/", "localhost.evil.example:8080", "127.0.0.1.nip.io:8080",
      "[::ffff:127.0.0.1]:8080", "[0:0:0:0:0:0:0:1]:8080", "localhost:8080:8080", "\u{130}ocalhost:8080",
    ] {
      #expect(Self.hostRefusal(check, host) == .foreignHost, "\(host)")
      #expect(!check.acceptsHost(host), "\(host)")
    }
    #expect(Self.hostRefusal(check, nil) == .missingHost)
    #expect(Self.hostRefusal(check, "") == .missingHost)
    #expect(OriginCheckError(.missingHost, "").status.code == 400)
    #expect(OriginCheckError(.foreignHost, "").status.code == 421)
  }

  @Test func theAddressGiven() {
    let address = OriginCheck(port: 9000, host: "192.168.1.5")
    #expect(address.acceptsHost("192.168.1.5:9000"))
    #expect(address.acceptsHost("localhost:9000"))
    #expect(!address.acceptsHost("192.168.1.6:9000"))
    #expect(address.acceptsOrigin("http://192.168.1.5:9000"))
    let v6 = OriginCheck(port: 9000, host: "FE80::1")
    #expect(v6.acceptsHost("[fe80::1]:9000"))
    #expect(!v6.acceptsHost("fe80::1:9000"))
    #expect(OriginCheck(port: 9000, host: "[fe80::1]").acceptedHosts == v6.acceptedHosts)
    let name = OriginCheck(port: 9000, host: "Workstation.Local")
    #expect(name.acceptsHost("workstation.local:9000"))
    #expect(name.acceptsOrigin("http://workstation.local:9000"))
    // The loopback names are there once, given or not.
    #expect(OriginCheck(port: 9000, host: "::1").acceptedHosts == OriginCheck(port: 9000).acceptedHosts)
    #expect(OriginCheck(port: 9000, host: "127.0.0.1").acceptedHosts == OriginCheck(port: 9000).acceptedHosts)
    #expect(OriginCheck(port: 9000, host: "").acceptedHosts == OriginCheck(port: 9000).acceptedHosts)
  }

  /// At port 80 browsers leave the port out.
  @Test func port80() {
    let check = OriginCheck(port: 80)
    for host in ["localhost", "localhost:80", "127.0.0.1", "[::1]:80"] { #expect(check.acceptsHost(host), "\(host)") }
    #expect(check.acceptsOrigin("http://localhost"))
    #expect(check.acceptsOrigin("http://127.0.0.1:80"))
    #expect(!OriginCheck(port: 8080).acceptsHost("localhost"))
  }

  @Test func theServersOwnOrigin() {
    let check = OriginCheck(port: 8080)
    for origin in ["http://127.0.0.1:8080", "http://localhost:8080", "http://[::1]:8080", "HTTP://LOCALHOST:8080"] {
      #expect(Self.originRefusal(check, origin) == nil, "\(origin)")
    }
    #expect(check.acceptedOrigins == ["http://127.0.0.1:8080", "http://localhost:8080", "http://[::1]:8080"])
  }

  /// Cross-site WebSocket hijacking: any other origin is refused, and so
  /// is none.
  @Test func everyOtherOriginIsRefused() {
    let check = OriginCheck(port: 8080)
    for origin in [
      "null", "http://evil.example", "http://evil.example:8080", "https://localhost:8080", "ws://localhost:8080",
      "http://localhost", "http://localhost:8081", "http://localhost:8080/", "http://localhost:8080/path",
      "localhost:8080", "//localhost:8080", "http://localhost.:8080", "http://user@localhost:8080",
      "http://localhost:8080.evil.example", "file://", "http://127.0.0.1:8080 ", "chrome-extension://abcdef",
    ] {
      #expect(Self.originRefusal(check, origin) == .foreignOrigin, "\(origin)")
      #expect(!check.acceptsOrigin(origin), "\(origin)")
    }
    #expect(Self.originRefusal(check, nil) == .missingOrigin)
    #expect(Self.originRefusal(check, "") == .missingOrigin)
    #expect(OriginCheckError(.missingOrigin, "").status.code == 403)
    #expect(OriginCheckError(.foreignOrigin, "").status.code == 403)
  }

  /// From a request as the parser reads it.
  @Test func fromARequest() throws {
    let text = "GET /socket HTTP/1.1\r\nHost: localhost:8080\r\nOrigin: http://evil.example\r\n\r\n"
    var parser = HTTPRequestParser()
    guard case .request(let head, _) = try parser.feed(Array(text.utf8)) else {
      Issue.record("the head is not complete")
      return
    }
    let check = OriginCheck(port: 8080)
    #expect(throws: Never.self) { try check.checkHost(head.host) }
    let error = #expect(throws: OriginCheckError.self) { try check.checkOrigin(head.headers["Origin"]) }
    #expect(error?.kind == .foreignOrigin)
  }
}
