/// Which `Host` and `Origin` a server on loopback answers to: its own
/// names at its own port, and nothing else.
///
/// A page on another site can point its own DNS name at 127.0.0.1 (DNS
/// rebinding): its requests then reach this server with that name as their
/// `Host`, so a `Host` that is not one of the server's is refused. A page
/// on another site can open a WebSocket to any address it likes
/// (cross-site WebSocket hijacking), and browsers send no preflight for
/// it, only its `Origin`: so a WebSocket is accepted only from the server's
/// own origin, `http://` and one of its hosts, and never without one.
///
/// The server's hosts are `127.0.0.1`, `localhost` and `[::1]` at its port,
/// and the address it was told to bind (`--host`), when given; at port 80
/// each also without the port, as browsers write it. Names compare without
/// regard to ASCII case. A wildcard address (`0.0.0.0`, `::`) is a host no
/// browser sends: a server bound to one answers its loopback names only.
package struct OriginCheck: Sendable, Equatable {
  /// The port the server is bound to.
  package let port: Int
  /// The hosts, with their port (and at port 80 also without), lowercased:
  /// what a `Host` must be.
  package let acceptedHosts: [String]

  /// The check for a server at `port`, bound to `host` when one was given
  /// (an IP address or a name; an IPv6 address with or without brackets).
  package init(port: Int, host: String? = nil) {
    precondition((1...65535).contains(port), "a server's port is from 1 to 65535")
    self.port = port
    var names = ["127.0.0.1", "localhost", "[::1]"]
    if let host, !host.isEmpty {
      let lowered = Self.lowercased(host)
      let bracketed = lowered.contains(":") && !lowered.hasPrefix("[") ? "[\(lowered)]" : lowered
      if !names.contains(bracketed) { names.append(bracketed) }
    }
    acceptedHosts = names.map { "\($0):\(port)" } + (port == 80 ? names : [])
  }

  /// The origins a WebSocket may come from: `http://` and each accepted host.
  package var acceptedOrigins: [String] { acceptedHosts.map { "http://" + $0 } }

  /// Throws ``OriginCheckError`` when `host`, a request's `Host`, is
  /// missing or not one of ``acceptedHosts``.
  package func checkHost(_ host: String?) throws(OriginCheckError) {
    guard let host, !host.isEmpty else { throw OriginCheckError(.missingHost, "the request has no Host") }
    guard acceptedHosts.contains(Self.lowercased(host)) else {
      throw OriginCheckError(.foreignHost, "the request's Host is not one this server answers to")
    }
  }

  /// Throws ``OriginCheckError`` when `origin`, a WebSocket handshake's
  /// `Origin`, is missing or not one of ``acceptedOrigins``: `null`, another
  /// scheme, host or port are all foreign.
  package func checkOrigin(_ origin: String?) throws(OriginCheckError) {
    guard let origin, !origin.isEmpty else {
      throw OriginCheckError(.missingOrigin, "the WebSocket handshake has no Origin")
    }
    guard acceptedOrigins.contains(Self.lowercased(origin)) else {
      throw OriginCheckError(.foreignOrigin, "the WebSocket handshake's Origin is not this server's")
    }
  }

  /// Whether `host` passes ``checkHost(_:)``.
  package func acceptsHost(_ host: String?) -> Bool {
    (try? checkHost(host)) != nil
  }

  /// Whether `origin` passes ``checkOrigin(_:)``.
  package func acceptsOrigin(_ origin: String?) -> Bool {
    (try? checkOrigin(origin)) != nil
  }

  /// `text` with A–Z made a–z, and nothing else changed.
  private static func lowercased(_ text: String) -> String {
    String(decoding: text.utf8.map(HTTPHeaders.lowercased), as: UTF8.self)
  }
}
