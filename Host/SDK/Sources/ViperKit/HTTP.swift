/// A request a module or a provider makes through the host's `http`
/// service (ViperKit 2.7): only to the hosts its plugin declares
/// (``ViperPlugin/hosts``).
public struct HTTPRequest: Codable, Hashable, Sendable {
  /// `GET`, `POST`, ….
  public var method: String
  /// The absolute `http` or `https` URL.
  public var url: String
  /// Header fields.
  public var headers: [String: String]
  /// The body; empty for none.
  public var body: [UInt8]

  /// A request for `url`.
  public init(_ url: String, method: String = "GET", headers: [String: String] = [:], body: [UInt8] = []) {
    self.method = method
    self.url = url
    self.headers = headers
    self.body = body
  }
}

/// What the server answered (ViperKit 2.7).
public struct HTTPResponse: Codable, Hashable, Sendable {
  /// The status code: 200, 404, ….
  public var status: Int
  /// Header fields, names in lowercase.
  public var headers: [String: String]
  /// The body.
  public var body: [UInt8]

  /// A response; the host and the test kit make these.
  public init(status: Int, headers: [String: String] = [:], body: [UInt8] = []) {
    self.status = status
    self.headers = headers
    self.body = body
  }

  /// The body as UTF-8 text.
  public var text: String { String(decoding: body, as: UTF8.self) }
}

/// Why a request did not get a response (ViperKit 2.7). Its ``kind`` is
/// stable; its ``reason`` is for people.
public struct HTTPError: Error, Codable, Hashable, Sendable, CustomStringConvertible {
  /// Why the request failed.
  public enum Kind: String, Codable, Hashable, Sendable {
    /// The URL's host is not one the plugin declares in ``ViperPlugin/hosts``.
    case undeclaredHost
    /// The plugin declares the host, but the person has not granted it
    /// (ViperKit 3.0): it was denied, or never decided where nobody could
    /// be asked. Tell the person what the request was for; they grant it
    /// with `vivarium permissions grant`.
    case notGranted
    /// The server redirected to a host the plugin does not declare.
    case refusedRedirect
    /// The URL is not an absolute `http` or `https` URL.
    case invalidURL
    /// The request's method or a header is not one the host sends
    /// (ViperKit 3.0): a method or header name that is not an HTTP token,
    /// a header value with a line break or NUL, or a header the host sets
    /// itself (`Host`, `Content-Length`, `Transfer-Encoding`, `Connection`,
    /// …). The reason names it; nothing of the request was sent.
    case invalidRequest
    /// The response was larger than the host's limit.
    case tooLarge
    /// No response within the host's time limit.
    case timedOut
    /// Replaying recorded responses, and this request was never recorded.
    case notRecorded
    /// The connection failed.
    case failed
  }

  /// Why the request failed.
  public var kind: Kind
  /// The URL asked for.
  public var url: String
  /// What went wrong and what to do.
  public var reason: String

  /// A failure of `kind`, for the host and the test kit to report.
  public init(_ kind: Kind, url: String, reason: String) {
    self.kind = kind
    self.url = url
    self.reason = reason
  }

  /// `URL: REASON`.
  public var description: String { "\(url): \(reason)" }
}

/// The host's `http` service (ViperKit 2.7): list ``Services/Name/http`` in
/// the contract (or a provider's ``ServiceProvider/services``). Conformers
/// are the host and test harnesses.
@MainActor
public protocol HTTPClient: AnyObject {
  /// Sends `request` and returns the response, whatever its status; throws
  /// ``HTTPError`` when there is none. Cancelling the calling task cancels
  /// the request.
  func send(_ request: HTTPRequest) async throws -> HTTPResponse
}
