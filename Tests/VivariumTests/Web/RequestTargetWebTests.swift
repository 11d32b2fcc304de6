import Testing

@testable import VivariumWeb

/// A request-target's path is decoded segment by segment and refused when
/// decoding would change its shape; its query decodes on demand.
@Suite("Web: request targets")
struct RequestTargetWebTests {
  /// The kind of error reading `target` throws, or nil.
  static func refusal(_ target: String) -> HTTPRequestError.Kind? {
    do {
      _ = try RequestTarget(parsing: target)
      return nil
    } catch {
      return error.kind
    }
  }

  @Test func paths() throws {
    for (target, segments, path) in [
      ("/", [""], "/"), ("/a", ["a"], "/a"), ("/a/b/", ["a", "b", ""], "/a/b/"), ("//", ["", ""], "//"),
      ("/b%20c", ["b c"], "/b c"), ("/caf%C3%A9", ["caf\u{E9}"], "/caf\u{E9}"),
      ("/caf%c3%a9", ["caf\u{E9}"], "/caf\u{E9}"),
      ("/a+b", ["a+b"], "/a+b"), ("/...", ["..."], "/..."), ("/.a/..b", [".a", "..b"], "/.a/..b"),
      ("/%25", ["%"], "/%"), ("/a;b=c/@:!$&'()*,", ["a;b=c", "@:!$&'()*,"], "/a;b=c/@:!$&'()*,"),
      ("/%E6%97%A5%F0%9F%91%8D", ["\u{65E5}\u{1F44D}"], "/\u{65E5}\u{1F44D}"),
    ] {
      let parsed = try RequestTarget(parsing: target)
      #expect(parsed.segments == segments, "\(target)")
      #expect(parsed.path == path, "\(target)")
      #expect(parsed.query == nil, "\(target)")
      #expect(parsed.raw == target)
    }
  }

  @Test func queries() throws {
    #expect(try RequestTarget(parsing: "/a?").query == "")
    #expect(try RequestTarget(parsing: "/a?").queryItems() == [])
    #expect(try RequestTarget(parsing: "/a").queryItems() == [])
    let target = try RequestTarget(parsing: "/search?q=hello+world&tag=%26%3D&flag&&empty=&x=1=2&caf%C3%A9=%E2%9C%93")
    #expect(target.path == "/search")
    #expect(target.query == "q=hello+world&tag=%26%3D&flag&&empty=&x=1=2&caf%C3%A9=%E2%9C%93")
    #expect(
      try target.queryItems() == [
        .init(name: "q", value: "hello world"), .init(name: "tag", value: "&="), .init(name: "flag", value: ""),
        .init(name: "empty", value: ""), .init(name: "x", value: "1=2"), .init(name: "caf\u{E9}", value: "\u{2713}"),
      ])
    // A query may hold / and ?, and a path with ? has a query.
    #expect(try RequestTarget(parsing: "/a?b/c?d").query == "b/c?d")
    #expect(try RequestTarget(parsing: "/a%3Fb").segments == ["a?b"])
    // The query's `..` is no path's.
    #expect(try RequestTarget(parsing: "/a?p=../..").query == "p=../..")
  }

  @Test func queriesRefuseWhatPathsRefuse() throws {
    for (query, kind) in [
      ("a=%00", HTTPRequestError.Kind.encodedNUL), ("%00=a", .encodedNUL), ("a=%G1", .badPercentEncoding),
      ("a=%1", .badPercentEncoding), ("a=%", .badPercentEncoding), ("a=%FF", .badPercentEncoding),
    ] {
      let target = try RequestTarget(parsing: "/?" + query)
      let error = #expect(throws: HTTPRequestError.self) { try target.queryItems() }
      #expect(error?.kind == kind, "\(query)")
    }
  }

  @Test func refusals() {
    for (target, kind) in [
      ("", HTTPRequestError.Kind.badTarget), ("*", .badTarget), ("a", .badTarget), ("http://a/", .badTarget),
      ("a:80", .badTarget), ("/a b", .badTarget), ("/a#b", .badTarget), ("/\u{E9}", .badTarget),
      ("/a\u{7F}", .badTarget),
      ("/a\u{0}", .badTarget), ("/a\tb", .badTarget),
      ("/%00", .encodedNUL), ("/a%00b", .encodedNUL), ("/%", .badPercentEncoding), ("/%4", .badPercentEncoding),
      ("/%4g", .badPercentEncoding), ("/%g4", .badPercentEncoding), ("/%%41", .badPercentEncoding),
      ("/%C3", .badPercentEncoding), ("/%FF", .badPercentEncoding), ("/%C0%AF", .badPercentEncoding),
      ("/%ED%A0%80", .badPercentEncoding),
      ("/..", .dotSegment), ("/.", .dotSegment), ("/a/..", .dotSegment), ("/a/../b", .dotSegment),
      ("/a/./b", .dotSegment), ("/%2e%2e", .dotSegment), ("/%2E%2E/x", .dotSegment), ("/.%2e", .dotSegment),
      ("/%2e", .dotSegment), ("/../?x", .dotSegment),
      ("/a%2Fb", .encodedSlash), ("/a%2fb", .encodedSlash), ("/..%2F", .encodedSlash), ("/%2F", .encodedSlash),
    ] {
      #expect(Self.refusal(target) == kind, "\(target.debugDescription)")
    }
  }

  @Test func percentDecoding() throws {
    #expect(try RequestTarget.percentDecode("%41%62c", plusIsSpace: false) == "Abc")
    #expect(try RequestTarget.percentDecode("a+b%2B", plusIsSpace: true) == "a b+")
    #expect(try RequestTarget.percentDecode("a+b%2B", plusIsSpace: false) == "a+b+")
    #expect(try RequestTarget.percentDecode("", plusIsSpace: true) == "")
    // Every byte but NUL decodes, and what is not UTF-8 alone is refused.
    for byte in 1...0x7F {
      let hex = String(byte, radix: 16)
      let escape = "%" + (hex.count == 1 ? "0" : "") + hex
      #expect(try RequestTarget.percentDecode(escape, plusIsSpace: false).utf8.elementsEqual([UInt8(byte)]))
    }
    for byte in 0x80...0xFF {
      let error = #expect(throws: HTTPRequestError.self) {
        try RequestTarget.percentDecode("%" + String(byte, radix: 16), plusIsSpace: false)
      }
      #expect(error?.kind == .badPercentEncoding)
    }
  }
}
