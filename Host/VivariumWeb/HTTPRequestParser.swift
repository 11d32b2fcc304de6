/// Reads an HTTP/1.1 request head (RFC 9112 §2–§6) from bytes as they
/// arrive, and refuses, with the status to answer, anything a careful
/// server would not read: lines that end in anything but CRLF, folded
/// fields, names that are not tokens, controls in values, a second `Host`,
/// a body framed two ways, a target that is not a path, a version other
/// than 1.0 and 1.1, and heads over its limits.
///
/// Each byte is looked at once: the parser keeps only the line under way
/// and what the lines before it said, so feeding N bytes costs O(N) however
/// they are split. After a head, it is ready for the next request's; after
/// an error, it throws that error again for anything fed.
package struct HTTPRequestParser: Sendable {
  /// What the bytes fed so far come to.
  package enum Result: Sendable, Equatable {
    /// The head is not complete: feed more.
    case needMore
    /// The head is complete: the body (``HTTPRequestHead/contentLength``
    /// bytes), then the next request, begin at offset `bodyStart` of the
    /// bytes just fed (their count, when they end with the head).
    case request(HTTPRequestHead, bodyStart: Int)
  }

  /// The longest request line, CRLF left out, with any empty lines before it.
  package let requestLineLimit: Int
  /// The most bytes of field lines, CRLFs and the empty line that ends them included.
  package let headerBlockLimit: Int
  /// The most field lines.
  package let fieldLimit: Int
  /// The largest `Content-Length` accepted.
  package let bodyLimit: Int

  /// The request line, read: its method, target and version.
  private var requestLine: (method: String, target: RequestTarget, version: HTTPRequestHead.Version)?
  /// The fields read so far.
  private var headers = HTTPHeaders()
  /// The line under way, without its CR.
  private var line: [UInt8] = []
  /// Whether the last byte was a CR (a line's end, if an LF follows).
  private var sawCR = false
  /// How many bytes the empty lines before the request line took.
  private var skippedBytes = 0
  /// How many bytes of field lines have been read.
  private var headerBytes = 0
  /// The error thrown, thrown again for anything fed after it.
  private var failure: HTTPRequestError?

  /// A parser with these limits (by default 8 KiB for the request line,
  /// 16 KiB and 100 fields for the header block, 1 MiB for a body).
  package init(
    requestLineLimit: Int = 8 << 10, headerBlockLimit: Int = 16 << 10, fieldLimit: Int = 100, bodyLimit: Int = 1 << 20
  ) {
    self.requestLineLimit = requestLineLimit
    self.headerBlockLimit = headerBlockLimit
    self.fieldLimit = fieldLimit
    self.bodyLimit = bodyLimit
  }

  /// Reads `bytes`, the next ones of the connection: the head, when they
  /// complete it (the bytes after it are left unread), or ``Result/needMore``.
  /// Throws ``HTTPRequestError`` for a request to refuse.
  package mutating func feed(_ bytes: some Collection<UInt8>) throws(HTTPRequestError) -> Result {
    if let failure { throw failure }
    do {
      var offset = 0
      for byte in bytes {
        offset += 1
        if let head = try read(byte) {
          return .request(head, bodyStart: offset)
        }
      }
      return .needMore
    } catch {
      failure = error
      throw error
    }
  }

  /// Reads one byte: the head, when it is the last.
  private mutating func read(_ byte: UInt8) throws(HTTPRequestError) -> HTTPRequestHead? {
    if requestLine != nil {
      headerBytes += 1
      if headerBytes > headerBlockLimit {
        throw HTTPRequestError(.headerBlockTooLarge, "the header fields come to more than \(headerBlockLimit) bytes")
      }
    }
    if sawCR {
      guard byte == LF else { throw HTTPRequestError(.bareCR, "a CR is not followed by LF") }
      sawCR = false
      defer { line.removeAll(keepingCapacity: true) }
      return try endLine()
    }
    switch byte {
    case CR: sawCR = true
    case LF: throw HTTPRequestError(.bareLF, "a line ends in LF without CR")
    default:
      line.append(byte)
      if requestLine == nil && skippedBytes + line.count > requestLineLimit {
        throw HTTPRequestError(.requestLineTooLong, "the request line is longer than \(requestLineLimit) bytes")
      }
    }
    return nil
  }

  /// Reads the line just ended: the head, when it is the empty line that ends it.
  private mutating func endLine() throws(HTTPRequestError) -> HTTPRequestHead? {
    guard requestLine != nil else {
      // Empty lines before a request line are ignored (RFC 9112 §2.2).
      if line.isEmpty {
        skippedBytes += 2
        if skippedBytes > requestLineLimit {
          throw HTTPRequestError(.requestLineTooLong, "more than \(requestLineLimit) bytes of empty lines")
        }
      } else {
        requestLine = try Self.parseRequestLine(line)
      }
      return nil
    }
    if line.isEmpty {
      return try finish()
    }
    if line[0] == SP || line[0] == HTAB {
      throw HTTPRequestError(.obsFold, "a field line begins with whitespace (obsolete line folding)")
    }
    if headers.count == fieldLimit {
      throw HTTPRequestError(.tooManyHeaders, "the request has more than \(fieldLimit) header fields")
    }
    let field = try Self.parseField(line)
    headers.append(name: field.name, value: field.value)
    return nil
  }

  /// The head of the request line and fields read, checked as a whole;
  /// the parser is then ready for the next request.
  private mutating func finish() throws(HTTPRequestError) -> HTTPRequestHead {
    guard let (method, target, version) = requestLine else { preconditionFailure("finish() before a request line") }
    let hosts = headers.values("Host")
    if hosts.count > 1 { throw HTTPRequestError(.duplicateHost, "the request has \(hosts.count) Host fields") }
    if hosts.isEmpty && version == .http1_1 {
      throw HTTPRequestError(.missingHost, "the HTTP/1.1 request has no Host field")
    }
    let lengths = headers.values("Content-Length")
    if !headers.values("Transfer-Encoding").isEmpty {
      if !lengths.isEmpty {
        throw HTTPRequestError(
          .contentLengthWithTransferEncoding, "the request has both Content-Length and Transfer-Encoding")
      }
      throw HTTPRequestError(.unsupportedTransferEncoding, "the request has a Transfer-Encoding")
    }
    let contentLength = try Self.contentLength(lengths)
    if contentLength > bodyLimit {
      throw HTTPRequestError(.bodyTooLarge, "the body's Content-Length is over \(bodyLimit) bytes")
    }
    let head = HTTPRequestHead(
      method: method, target: target, version: version, headers: headers, contentLength: contentLength)
    requestLine = nil
    headers = HTTPHeaders()
    skippedBytes = 0
    headerBytes = 0
    return head
  }

  /// The one length that every `Content-Length` value (each a list, RFC
  /// 9110 §8.6) states, 0 without any; one past `Int.max` stands for any
  /// larger number.
  private static func contentLength(_ values: [String]) throws(HTTPRequestError) -> Int {
    var length: Int?
    for value in values {
      for element in Array(value.utf8).split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false) {
        let digits = trimmed(element)
        guard !digits.isEmpty, digits.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else {
          throw HTTPRequestError(.badContentLength, "a Content-Length is not a decimal number")
        }
        var number = 0
        for digit in digits {
          let (times10, overflow) = number.multipliedReportingOverflow(by: 10)
          let (sum, overflowAgain) = times10.addingReportingOverflow(Int(digit - UInt8(ascii: "0")))
          number = overflow || overflowAgain ? Int.max : sum
        }
        if let length, length != number {
          throw HTTPRequestError(.conflictingContentLength, "the request states two different Content-Lengths")
        }
        length = number
      }
    }
    return length ?? 0
  }

  /// The method, target and version of a request line.
  private static func parseRequestLine(_ line: [UInt8]) throws(HTTPRequestError) -> (
    method: String, target: RequestTarget, version: HTTPRequestHead.Version
  ) {
    let parts = line.split(separator: SP, omittingEmptySubsequences: false)
    guard parts.count == 3, parts.allSatisfy({ !$0.isEmpty }) else {
      throw HTTPRequestError(.badRequestLine, "the request line is not a method, a target and a version")
    }
    guard let version = HTTPRequestHead.Version(rawValue: String(decoding: parts[2], as: UTF8.self)) else {
      let isDigit = { (byte: UInt8) in byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
      let text = Array(parts[2])
      if text.count == 8 && text[..<5].elementsEqual("HTTP/".utf8) && isDigit(text[5]) && text[6] == UInt8(ascii: ".")
        && isDigit(text[7])
      {
        throw HTTPRequestError(.unsupportedVersion, "the request's HTTP version is not 1.0 or 1.1")
      }
      throw HTTPRequestError(.badRequestLine, "the request line's version is not an HTTP version")
    }
    guard parts[0].allSatisfy(isTokenCharacter) else {
      throw HTTPRequestError(.badMethod, "the method has a character that is not a token's")
    }
    let method = String(decoding: parts[0], as: UTF8.self)
    let target = try RequestTarget(parsing: String(decoding: parts[1], as: UTF8.self))
    return (method, target, version)
  }

  /// The name and value of a field line.
  private static func parseField(_ line: [UInt8]) throws(HTTPRequestError) -> HTTPHeaders.Field {
    guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else {
      throw HTTPRequestError(.badHeaderLine, "a field line has no colon")
    }
    let name = line[..<colon]
    // Whitespace before the colon is not a token's, so is refused too (RFC 9112 §5.1).
    guard !name.isEmpty, name.allSatisfy(isTokenCharacter) else {
      throw HTTPRequestError(.badHeaderName, "a field name is empty or has a character that is not a token's")
    }
    let value = trimmed(line[(colon + 1)...])
    // Visible characters, spaces, tabs and obs-text (RFC 9110 §5.5): no controls.
    guard value.allSatisfy({ $0 == HTAB || ($0 >= SP && $0 != 0x7F) }) else {
      throw HTTPRequestError(.badHeaderValue, "a field value has a control character")
    }
    return HTTPHeaders.Field(
      name: String(decoding: name, as: UTF8.self), value: String(decoding: value, as: UTF8.self))
  }
}

/// Carriage return.
private let CR = UInt8(ascii: "\r")
/// Line feed.
private let LF = UInt8(ascii: "\n")
/// Space.
private let SP = UInt8(ascii: " ")
/// Horizontal tab.
private let HTAB = UInt8(ascii: "\t")

/// `bytes` without the spaces and tabs at their ends (RFC 9110's OWS).
private func trimmed(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
  var bytes = bytes
  while let first = bytes.first, first == SP || first == HTAB { bytes.removeFirst() }
  while let last = bytes.last, last == SP || last == HTAB { bytes.removeLast() }
  return bytes
}

/// Whether `byte` may be in a token (RFC 9110 §5.6.2): a method, a field name.
package func isTokenCharacter(_ byte: UInt8) -> Bool {
  switch byte {
  case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "z"),
    UInt8(ascii: "A")...UInt8(ascii: "Z"):
    true
  default:
    "!#$%&'*+-.^_`|~".utf8.contains(byte)
  }
}
