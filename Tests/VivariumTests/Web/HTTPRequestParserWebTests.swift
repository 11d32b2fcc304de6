import Testing

@testable import VivariumWeb

/// The request head parser reads what browsers send however it is split,
/// refuses what a careful server would not read with the status to
/// answer, and holds to its limits to the byte.
@Suite("Web: HTTP request heads")
struct HTTPRequestParserWebTests {
  /// The bytes of `text`, whose lines end in `\n`, with CRLFs.
  static func crlf(_ text: String) -> [UInt8] {
    Array(text.replacing("\n", with: "\r\n").utf8)
  }

  /// A browser's request for a page.
  static let browserRequest = crlf(
    """
    GET /app/index.html?tab=2 HTTP/1.1
    Host: 127.0.0.1:8080
    User-Agent: Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0
    Accept: text/html,application/xhtml+xml;q=0.9,*/*;q=0.8
    Accept-Language: en-US,en;q=0.5
    Accept-Encoding: gzip, deflate, br
    Connection: keep-alive
    Cookie: a=1; b=2
    Upgrade-Insecure-Requests: 1


    """)

  /// The head of `bytes` fed at once, and where its body starts.
  static func parse(_ bytes: [UInt8], _ parser: HTTPRequestParser = HTTPRequestParser()) throws -> (
    HTTPRequestHead, Int
  ) {
    var parser = parser
    let result = try parser.feed(bytes)
    guard case .request(let head, let bodyStart) = result else {
      struct Incomplete: Error {}
      throw Incomplete()
    }
    return (head, bodyStart)
  }

  /// The kind of error feeding `bytes` at once throws, or nil.
  static func refusal(_ bytes: [UInt8], _ parser: HTTPRequestParser = HTTPRequestParser()) -> HTTPRequestError.Kind? {
    var parser = parser
    do {
      _ = try parser.feed(bytes)
      return nil
    } catch {
      return error.kind
    }
  }

  @Test func aBrowsersRequest() throws {
    let (head, bodyStart) = try Self.parse(Self.browserRequest)
    #expect(bodyStart == Self.browserRequest.count)
    #expect(head.method == "GET")
    #expect(head.target.path == "/app/index.html")
    #expect(head.target.query == "tab=2")
    #expect(head.version == .http1_1)
    #expect(head.host == "127.0.0.1:8080")
    #expect(head.headers.count == 8)
    #expect(head.headers["user-agent"] == "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0")
    #expect(head.headers["ACCEPT-ENCODING"] == "gzip, deflate, br")
    #expect(head.headers.fields.first?.name == "Host")
    #expect(head.headers["Missing"] == nil)
    #expect(head.contentLength == 0)
    #expect(head.keepsAlive)
  }

  @Test func oneByteAtATime() throws {
    let (whole, _) = try Self.parse(Self.browserRequest)
    var parser = HTTPRequestParser()
    for (index, byte) in Self.browserRequest.enumerated() {
      let result = try parser.feed([byte])
      if index < Self.browserRequest.count - 1 {
        #expect(result == .needMore, "byte \(index)")
      } else {
        #expect(result == .request(whole, bodyStart: 1))
      }
    }
  }

  @Test func splitAnywhere() throws {
    let bytes = Self.browserRequest + Array("next".utf8)
    let (whole, _) = try Self.parse(bytes)
    for cut in 0...Self.browserRequest.count - 1 {
      var parser = HTTPRequestParser()
      #expect(try parser.feed(bytes[..<cut]) == .needMore, "cut at \(cut)")
      let rest = bytes[cut...]
      #expect(try parser.feed(rest) == .request(whole, bodyStart: Self.browserRequest.count - cut), "cut at \(cut)")
    }
  }

  @Test func theBodyStartsAfterTheHead() throws {
    let head = Self.crlf("POST /save HTTP/1.1\nHost: localhost:1\nContent-Length: 5\n\n")
    let (parsed, bodyStart) = try Self.parse(head + Array("hello".utf8))
    #expect(parsed.contentLength == 5)
    #expect(bodyStart == head.count)
  }

  /// After a head, the parser reads the next request's.
  @Test func requestsOneAfterAnother() throws {
    let first = Self.crlf("GET /one HTTP/1.1\nHost: a\n\n")
    let second = Self.crlf("GET /two HTTP/1.1\nHost: b\n\n")
    var parser = HTTPRequestParser()
    let both = first + second
    guard case .request(let one, let bodyStart) = try parser.feed(both) else {
      Issue.record("the first head is not complete")
      return
    }
    #expect(one.target.path == "/one")
    #expect(bodyStart == first.count)
    guard case .request(let two, let end) = try parser.feed(both[bodyStart...]) else {
      Issue.record("the second head is not complete")
      return
    }
    #expect(two.target.path == "/two")
    #expect(two.host == "b")
    #expect(two.headers.count == 1)
    #expect(end == second.count)
  }

  @Test func emptyLinesBeforeTheRequestLineAreIgnored() throws {
    let (head, _) = try Self.parse(Self.crlf("\n\nGET / HTTP/1.1\nHost: a\n\n"))
    #expect(head.target.path == "/")
  }

  @Test func fieldsKeepTheirOrderAndValuesLoseTheirEdges() throws {
    let (head, _) = try Self.parse(
      Array("GET / HTTP/1.1\r\nHost: a\r\nX-A: \t one \t\r\nx-a:two\r\nX-Empty:\r\nX-Tab: a\tb\r\n\r\n".utf8))
    #expect(head.headers.values("X-A") == ["one", "two"])
    #expect(head.headers["x-empty"] == "")
    #expect(head.headers["X-Tab"] == "a\tb")
    #expect(head.headers.map(\.name) == ["Host", "X-A", "x-a", "X-Empty", "X-Tab"])
  }

  @Test func listsInFields() throws {
    let (head, _) = try Self.parse(
      Self.crlf("GET / HTTP/1.1\nHost: a\nConnection: keep-alive, Upgrade\nConnection: ,close ,\n\n"))
    #expect(head.headers.containsToken("upgrade", in: "connection"))
    #expect(head.headers.containsToken("CLOSE", in: "Connection"))
    #expect(!head.headers.containsToken("keep", in: "Connection"))
    #expect(head.headers.listElements("Connection") == ["keep-alive", "Upgrade", "close"])
    #expect(!head.keepsAlive)
  }

  /// Bytes past ASCII in a value (obs-text) are kept; as UTF-8 they are text.
  @Test func valuesMayHoldUTF8() throws {
    let (head, _) = try Self.parse(Array("GET / HTTP/1.1\r\nHost: a\r\nX-Name: caf\u{E9}\r\n\r\n".utf8))
    #expect(head.headers["X-Name"] == "caf\u{E9}")
  }

  @Test func http10() throws {
    let (head, _) = try Self.parse(Self.crlf("GET / HTTP/1.0\n\n"))
    #expect(head.version == .http1_0)
    #expect(head.host == nil)
    #expect(!head.keepsAlive)
    let (kept, _) = try Self.parse(Self.crlf("GET / HTTP/1.0\nConnection: Keep-Alive\n\n"))
    #expect(kept.keepsAlive)
  }

  @Test func methodsAreTokensAsSent() throws {
    for method in ["GET", "HEAD", "POST", "OPTIONS", "DELETE", "X-CUSTOM!#$%&'*+-.^_`|~1"] {
      let (head, _) = try Self.parse(Self.crlf("\(method) / HTTP/1.1\nHost: a\n\n"))
      #expect(head.method == method)
    }
  }

  @Test func contentLengths() throws {
    for (fields, length) in [
      ("Content-Length: 0", 0), ("Content-Length: 42", 42), ("Content-Length:  42 ", 42),
      ("Content-Length: 42, 42", 42), ("Content-Length: 42\nContent-Length: 42", 42),
      ("content-length: 007", 7), ("Content-Length: 1048576", 1 << 20),
    ] {
      let (head, _) = try Self.parse(Self.crlf("POST / HTTP/1.1\nHost: a\n\(fields)\n\n"))
      #expect(head.contentLength == length, "\(fields)")
    }
  }

  /// Every refusal, the kind it is and the status it answers.
  static let refusals: [(String, HTTPRequestError.Kind, Int)] = [
    ("GET / HTTP/1.1\nHost: a\nHost: b\n\n", .duplicateHost, 400),
    ("GET / HTTP/1.1\nHost: a\nhost: a\n\n", .duplicateHost, 400),
    ("GET / HTTP/1.0\nHost: a\nHost: a\n\n", .duplicateHost, 400),
    ("GET / HTTP/1.1\n\n", .missingHost, 400),
    ("GET / HTTP/1.1\nHost: a\nX: 1\n folded\n\n", .obsFold, 400),
    ("GET / HTTP/1.1\nHost: a\nX: 1\n\tfolded\n\n", .obsFold, 400),
    ("GET / HTTP/1.1\n Host: a\n\n", .obsFold, 400),
    ("GET / HTTP/1.1\nHost: a\nNo colon\n\n", .badHeaderLine, 400),
    ("GET / HTTP/1.1\nHost: a\nX Y: 1\n\n", .badHeaderName, 400),
    ("GET / HTTP/1.1\nHost : a\n\n", .badHeaderName, 400),
    ("GET / HTTP/1.1\nHost\t: a\n\n", .badHeaderName, 400),
    ("GET / HTTP/1.1\nHost: a\n: empty\n\n", .badHeaderName, 400),
    ("GET / HTTP/1.1\nHost: a\nX(1): 1\n\n", .badHeaderName, 400),
    ("GET / HTTP/1.1\nHost: a\nX\u{E9}: 1\n\n", .badHeaderName, 400),
    ("GET / HTTP/1.1\nHost: a\nX: a\u{0}b\n\n", .badHeaderValue, 400),
    ("GET / HTTP/1.1\nHost: a\nX: a\u{7F}b\n\n", .badHeaderValue, 400),
    ("GET / HTTP/1.1\nHost: a\nX: a\u{1B}b\n\n", .badHeaderValue, 400),
    (
      "POST / HTTP/1.1\nHost: a\nContent-Length: 5\nTransfer-Encoding: chunked\n\n", .contentLengthWithTransferEncoding,
      400
    ),
    (
      "POST / HTTP/1.1\nHost: a\nTransfer-Encoding: chunked\nContent-Length: 5\n\n", .contentLengthWithTransferEncoding,
      400
    ),
    ("POST / HTTP/1.1\nHost: a\nTransfer-Encoding: chunked\n\n", .unsupportedTransferEncoding, 501),
    ("POST / HTTP/1.1\nHost: a\nContent-Length: -1\n\n", .badContentLength, 400),
    ("POST / HTTP/1.1\nHost: a\nContent-Length: +1\n\n", .badContentLength, 400),
    ("POST / HTTP/1.1\nHost: a\nContent-Length: 1.0\n\n", .badContentLength, 400),
    ("POST / HTTP/1.1\nHost: a\nContent-Length: 0x10\n\n", .badContentLength, 400),
    ("POST / HTTP/1.1\nHost: a\nContent-Length: five\n\n", .badContentLength, 400),
    ("POST / HTTP/1.1\nHost: a\nContent-Length:\n\n", .badContentLength, 400),
    ("POST / HTTP/1.1\nHost: a\nContent-Length: 4,\n\n", .badContentLength, 400),
    ("POST / HTTP/1.1\nHost: a\nContent-Length: 4 4\n\n", .badContentLength, 400),
    ("POST / HTTP/1.1\nHost: a\nContent-Length: 4\nContent-Length: 5\n\n", .conflictingContentLength, 400),
    ("POST / HTTP/1.1\nHost: a\nContent-Length: 4, 5\n\n", .conflictingContentLength, 400),
    ("POST / HTTP/1.1\nHost: a\nContent-Length: 1048577\n\n", .bodyTooLarge, 413),
    ("POST / HTTP/1.1\nHost: a\nContent-Length: 99999999999999999999999999\n\n", .bodyTooLarge, 413),
    ("OPTIONS * HTTP/1.1\nHost: a\n\n", .badTarget, 400),
    ("GET http://a/ HTTP/1.1\nHost: a\n\n", .badTarget, 400),
    ("CONNECT a:443 HTTP/1.1\nHost: a\n\n", .badTarget, 400),
    ("GET /a#b HTTP/1.1\nHost: a\n\n", .badTarget, 400),
    ("GET /caf\u{E9} HTTP/1.1\nHost: a\n\n", .badTarget, 400),
    ("GET /a\u{1}b HTTP/1.1\nHost: a\n\n", .badTarget, 400),
    ("GET /%00 HTTP/1.1\nHost: a\n\n", .encodedNUL, 400),
    ("GET /%zz HTTP/1.1\nHost: a\n\n", .badPercentEncoding, 400),
    ("GET /a/../b HTTP/1.1\nHost: a\n\n", .dotSegment, 400),
    ("GET /%2e%2E/etc/passwd HTTP/1.1\nHost: a\n\n", .dotSegment, 400),
    ("GET /a%2Fb HTTP/1.1\nHost: a\n\n", .encodedSlash, 400),
    ("GET / HTTP/2.0\nHost: a\n\n", .unsupportedVersion, 505),
    ("GET / HTTP/1.2\nHost: a\n\n", .unsupportedVersion, 505),
    ("GET / HTTP/0.9\nHost: a\n\n", .unsupportedVersion, 505),
    ("GET / http/1.1\nHost: a\n\n", .badRequestLine, 400),
    ("GET / HTTP/1.1.1\nHost: a\n\n", .badRequestLine, 400),
    ("GET / HTTP/11\nHost: a\n\n", .badRequestLine, 400),
    ("GET /\nHost: a\n\n", .badRequestLine, 400),
    ("GET\nHost: a\n\n", .badRequestLine, 400),
    ("GET  / HTTP/1.1\nHost: a\n\n", .badRequestLine, 400),
    ("GET / HTTP/1.1 \nHost: a\n\n", .badRequestLine, 400),
    (" GET / HTTP/1.1\nHost: a\n\n", .badRequestLine, 400),
    ("GET\t/ HTTP/1.1\nHost: a\n\n", .badRequestLine, 400),
    ("GE(T / HTTP/1.1\nHost: a\n\n", .badMethod, 400),
    ("G\u{E9}T / HTTP/1.1\nHost: a\n\n", .badMethod, 400),
  ]

  @Test(arguments: refusals.indices)
  func eachRefusal(index: Int) {
    let (text, kind, status) = Self.refusals[index]
    let bytes = Self.crlf(text)
    var parser = HTTPRequestParser()
    do {
      _ = try parser.feed(bytes)
      Issue.record("\(text.debugDescription) was read")
    } catch {
      #expect(error.kind == kind, "\(text.debugDescription): \(error)")
      #expect(error.status.code == status, "\(text.debugDescription)")
      // The parser stays refused.
      #expect(throws: error) { try parser.feed(Self.crlf("GET / HTTP/1.1\nHost: a\n\n")) }
    }
    // Fed one byte at a time, the refusal is the same.
    var bytewise = HTTPRequestParser()
    #expect(throws: HTTPRequestError.self) {
      for byte in bytes { _ = try bytewise.feed(CollectionOfOne(byte)) }
    }
  }

  @Test func linesEndInCRLFOnly() {
    #expect(Self.refusal(Array("GET / HTTP/1.1\nHost: a\r\n\r\n".utf8)) == .bareLF)
    #expect(Self.refusal(Array("GET / HTTP/1.1\r\nHost: a\n\r\n".utf8)) == .bareLF)
    #expect(Self.refusal(Array("GET / HTTP/1.1\r\nHost: a\r\n\n".utf8)) == .bareLF)
    #expect(Self.refusal(Array("GET / HTTP/1.1\r\nHost: a\rb\r\n\r\n".utf8)) == .bareCR)
    #expect(Self.refusal(Array("GET / HTTP/1.1\rHost: a\r\n\r\n".utf8)) == .bareCR)
    #expect(Self.refusal(Array("GET / HTTP/1.1\r\nHost: a\r\n\r\r\n".utf8)) == .bareCR)
    #expect(Self.refusal(Array("\nGET / HTTP/1.1\r\nHost: a\r\n\r\n".utf8)) == .bareLF)
    #expect(HTTPRequestError(.bareCR, "").status == .badRequest)
  }

  /// A request line of the limit is read; one byte more is refused, before
  /// its end arrives.
  @Test func theRequestLineLimit() throws {
    let parser = HTTPRequestParser(requestLineLimit: 64)
    let fill = 64 - "GET / HTTP/1.1".utf8.count
    let atLimit = Self.crlf("GET /\(String(repeating: "a", count: fill)) HTTP/1.1\nHost: a\n\n")
    #expect(try Self.parse(atLimit, parser).0.target.path.utf8.count == fill + 1)
    let over = Self.crlf("GET /\(String(repeating: "a", count: fill + 1)) HTTP/1.1\nHost: a\n\n")
    #expect(Self.refusal(over, parser) == .requestLineTooLong)
    #expect(Self.refusal(Array(repeating: UInt8(ascii: "a"), count: 65), parser) == .requestLineTooLong)
    #expect(HTTPRequestError(.requestLineTooLong, "").status.code == 414)
    // Empty lines before it count.
    #expect(Self.refusal(Self.crlf(String(repeating: "\n", count: 40)), parser) == .requestLineTooLong)
    #expect(Self.refusal(Self.crlf(String(repeating: "\n", count: 32)), parser) == nil)
    // The defaults: 8 KiB.
    let longest = 8192 - "GET / HTTP/1.1".utf8.count
    #expect(throws: Never.self) {
      try Self.parse(Self.crlf("GET /\(String(repeating: "a", count: longest)) HTTP/1.1\nHost: a\n\n"))
    }
    #expect(
      Self.refusal(Self.crlf("GET /\(String(repeating: "a", count: longest + 1)) HTTP/1.1\nHost: a\n\n"))
        == .requestLineTooLong)
  }

  /// The field lines, their CRLFs and the empty line's, of the limit are
  /// read; one byte more is refused.
  @Test func theHeaderBlockLimit() throws {
    let requestLine = "GET / HTTP/1.1\n"
    // "Host: a\r\n" (9) + "X: " (3) + value + "\r\n" (2) + "\r\n" (2)
    let value = 16384 - 9 - 3 - 2 - 2
    let atLimit = Self.crlf(requestLine + "Host: a\nX: \(String(repeating: "v", count: value))\n\n")
    #expect(try Self.parse(atLimit).0.headers["X"]?.utf8.count == value)
    let over = Self.crlf(requestLine + "Host: a\nX: \(String(repeating: "v", count: value + 1))\n\n")
    #expect(Self.refusal(over) == .headerBlockTooLarge)
    #expect(HTTPRequestError(.headerBlockTooLarge, "").status.code == 431)
    // A line that never ends is refused at the limit, not held.
    var parser = HTTPRequestParser()
    _ = try parser.feed(Self.crlf(requestLine))
    let endless = [UInt8](repeating: UInt8(ascii: "x"), count: 16384)
    #expect(try parser.feed(endless) == .needMore)
    let error = #expect(throws: HTTPRequestError.self) { try parser.feed([UInt8(ascii: "x")]) }
    #expect(error?.kind == .headerBlockTooLarge)
  }

  @Test func theFieldCountLimit() throws {
    func request(fields: Int) -> [UInt8] {
      Self.crlf("GET / HTTP/1.1\nHost: a\n" + (1..<fields).map { "X-\($0): \($0)\n" }.joined() + "\n")
    }
    #expect(try Self.parse(request(fields: 100)).0.headers.count == 100)
    #expect(Self.refusal(request(fields: 101)) == .tooManyHeaders)
    #expect(HTTPRequestError(.tooManyHeaders, "").status.code == 431)
    let small = HTTPRequestParser(fieldLimit: 2)
    #expect(try Self.parse(request(fields: 2), small).0.headers.count == 2)
    #expect(Self.refusal(request(fields: 3), small) == .tooManyHeaders)
  }

  @Test func theBodyLimit() throws {
    let parser = HTTPRequestParser(bodyLimit: 10)
    #expect(try Self.parse(Self.crlf("POST / HTTP/1.1\nHost: a\nContent-Length: 10\n\n"), parser).0.contentLength == 10)
    #expect(Self.refusal(Self.crlf("POST / HTTP/1.1\nHost: a\nContent-Length: 11\n\n"), parser) == .bodyTooLarge)
  }

  /// Errors compare by kind and description; every kind has a status.
  @Test func everyKindHasAStatus() {
    for kind in HTTPRequestError.Kind.allCases {
      let status = HTTPRequestError(kind, "").status
      #expect([400, 413, 414, 431, 501, 505].contains(status.code), "\(kind)")
    }
  }
}
