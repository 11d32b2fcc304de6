import Testing

@testable import VivariumWeb

/// Responses are written byte for byte as HTTP/1.1 says, with their body's
/// length, and nothing that could split one is accepted.
@Suite("Web: HTTP responses")
struct HTTPResponseWebTests {
  /// `bytes` as text.
  static func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

  @Test func aResponseWithABody() throws {
    let response = try HTTPResponse(
      status: .ok, headers: [("Content-Type", "text/html; charset=utf-8"), ("X-A", "1")], body: Array("<p>hi</p>".utf8))
    #expect(
      Self.text(response.serialized())
        == "HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nX-A: 1\r\nContent-Length: 9\r\n\r\n<p>hi</p>")
    #expect(Self.text(response.head()) == Self.text(response.serialized()).replacing("<p>hi</p>", with: ""))
    #expect(response["content-type"] == "text/html; charset=utf-8")
  }

  @Test func anEmptyBodyHasLengthZero() throws {
    #expect(
      Self.text(try HTTPResponse(status: .notFound).serialized())
        == "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n")
  }

  @Test func aTextBody() throws {
    let response = try HTTPResponse(status: .ok, text: "caf\u{E9}")
    #expect(response["Content-Type"] == "text/plain; charset=utf-8")
    #expect(Self.text(response.serialized()).hasSuffix("Content-Length: 5\r\n\r\ncaf\u{E9}"))
  }

  /// 1xx, 204 and 304 carry no content and no Content-Length.
  @Test func statusesWithoutContent() throws {
    for status in [HTTPStatus.switchingProtocols, .noContent, .notModified, HTTPStatus(code: 100, reason: "Continue")] {
      let response = try HTTPResponse(status: status, headers: [("X", "1")])
      #expect(Self.text(response.serialized()) == "HTTP/1.1 \(status.code) \(status.reason)\r\nX: 1\r\n\r\n")
      let error = #expect(throws: HTTPResponseError.self) { try HTTPResponse(status: status, body: [1]) }
      #expect(error?.kind == .contentNotAllowed)
    }
  }

  @Test func headersThatCouldSplitAResponseAreRefused() throws {
    for value in ["a\r\nSet-Cookie: x=1", "a\rb", "a\nb", "a\u{0}b", "a\u{7F}b", "\u{1B}[31m", "\r\n"] {
      let error = #expect(throws: HTTPResponseError.self) { try HTTPResponse(status: .ok, headers: [("X", value)]) }
      #expect(error?.kind == .badHeaderValue, "\(value.debugDescription)")
      var response = try HTTPResponse(status: .ok)
      #expect(throws: HTTPResponseError.self) { try response.addHeader("X", value) }
      #expect(throws: HTTPResponseError.self) { try response.setHeader("X", value) }
      #expect(response.headers.isEmpty)
    }
    for name in ["", "X Y", "X:", "X\r\nY", "X\n", "caf\u{E9}", "(x)"] {
      let error = #expect(throws: HTTPResponseError.self) { try HTTPResponse(status: .ok, headers: [(name, "1")]) }
      #expect(error?.kind == .badHeaderName, "\(name.debugDescription)")
    }
    // A tab, obs-text and UTF-8 are no controls.
    #expect(throws: Never.self) { try HTTPResponse(status: .ok, headers: [("X", "a\tb caf\u{E9} \u{1F44D}")]) }
  }

  @Test func framingIsTheResponsesOwn() throws {
    for name in ["Content-Length", "content-length", "Transfer-Encoding", "TRANSFER-ENCODING"] {
      let error = #expect(throws: HTTPResponseError.self) { try HTTPResponse(status: .ok, headers: [(name, "5")]) }
      #expect(error?.kind == .framingHeader, "\(name)")
    }
  }

  @Test func badStatuses() {
    for status in [
      HTTPStatus(code: 99, reason: "Low"), HTTPStatus(code: 600, reason: "High"), HTTPStatus(code: 2000, reason: "OK"),
      HTTPStatus(code: 200, reason: "OK\r\nX: 1"), HTTPStatus(code: 200, reason: "O\u{0}K"),
    ] {
      let error = #expect(throws: HTTPResponseError.self) { try HTTPResponse(status: status) }
      #expect(error?.kind == .badStatus, "\(status)")
    }
  }

  @Test func setReplacesEveryFieldOfTheName() throws {
    var response = try HTTPResponse(status: .ok, headers: [("X-A", "1"), ("Y", "2"), ("x-a", "3")])
    try response.setHeader("X-A", "4")
    #expect(response.headers == [.init(name: "Y", value: "2"), .init(name: "X-A", value: "4")])
    try response.addHeader("X-A", "5")
    #expect(response.headers.count == 3)
  }

  @Test func securityHeaders() throws {
    var response = try HTTPResponse(status: .ok, headers: [("Cache-Control", "max-age=60")])
    response.addSecurityHeaders(noStore: false)
    #expect(
      response["Content-Security-Policy"]
        == "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
    )
    #expect(response["X-Content-Type-Options"] == "nosniff")
    #expect(response["Referrer-Policy"] == "no-referrer")
    #expect(response["Cache-Control"] == "max-age=60")
    response.addSecurityHeaders(noStore: true)
    #expect(response["Cache-Control"] == "no-store")
    // Set twice, each is there once.
    #expect(response.headers.count == 4)
  }

  /// A refused request's response says its status and nothing of the request.
  @Test func refusals() throws {
    for kind in HTTPRequestError.Kind.allCases {
      let error = HTTPRequestError(kind, "the request <script>alert(1)</script> is bad")
      let response = HTTPResponse.refusing(error)
      #expect(response.status == error.status)
      #expect(response["Connection"] == "close")
      #expect(response["Cache-Control"] == "no-store")
      #expect(response["X-Content-Type-Options"] == "nosniff")
      #expect(Self.text(response.body) == "\(error.status.code) \(error.status.reason)\n")
      #expect(!Self.text(response.serialized()).contains("alert"))
    }
    let tooLarge = HTTPResponse.refusing(HTTPRequestError(.headerBlockTooLarge, ""))
    #expect(Self.text(tooLarge.serialized()).hasPrefix("HTTP/1.1 431 Request Header Fields Too Large\r\n"))
    let busy = HTTPResponse.refusing(status: .serviceUnavailable)
    #expect(Self.text(busy.serialized()).hasPrefix("HTTP/1.1 503 Service Unavailable\r\n"))
    #expect(busy["Connection"] == "close")
    #expect(busy["Content-Security-Policy"] == HTTPResponse.contentSecurityPolicy)
  }

  /// What the response writes, the request parser reads back as a head.
  @Test func aResponsesHeadIsWellFormed() throws {
    var response = try HTTPResponse(status: .ok, headers: [("Host", "a")], body: Array("abc".utf8))
    response.addSecurityHeaders(noStore: true)
    // Turn the status line into a request line and parse the rest.
    let bytes = response.serialized()
    let lines = Self.text(bytes).split(separator: "\r\n", omittingEmptySubsequences: false)
    let request = (["GET / HTTP/1.1"] + lines.dropFirst()).joined(separator: "\r\n")
    var parser = HTTPRequestParser()
    guard case .request(let head, let bodyStart) = try parser.feed(Array(request.utf8)) else {
      Issue.record("the head is not complete")
      return
    }
    #expect(head.contentLength == 3)
    #expect(head.headers.count == response.headers.count + 1)
    #expect(Array(request.utf8)[bodyStart...].elementsEqual("abc".utf8))
  }
}
