import Foundation
import ViperKit
import VivariumLoading
import VivariumSupport

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// How the host's `http` service reaches the network (`VIVARIUM_HTTP`):
/// live, live with each response saved, or answered from saved responses
/// only, so that tests, recorded sessions and the demo run offline and
/// repeat byte for byte.
public enum HTTPMode: Sendable, Equatable {
  /// Requests go to the network.
  case live
  /// Requests go to the network, and each response is saved in the folder.
  case record(String)
  /// Requests are answered from the folder's saved responses; one never
  /// saved fails as ``ViperKit/HTTPError/Kind/notRecorded``.
  case replay(String)

  /// The mode `VIVARIUM_HTTP` names: `record:DIR`, `replay:DIR`, or live
  /// when unset or empty; nil for anything else.
  public init?(environment value: String?) {
    guard let value, !value.isEmpty else {
      self = .live
      return
    }
    if value.hasPrefix("record:"), value.count > 7 {
      self = .record(String(value.dropFirst(7)))
    } else if value.hasPrefix("replay:"), value.count > 7 {
      self = .replay(String(value.dropFirst(7)))
    } else {
      return nil
    }
  }
}

/// One plugin's `http` service: requests to the hosts it declares and the
/// person granted (``PermissionGate``), each in its own ephemeral session
/// (no cookie or cache shared with another plugin), a redirect to another
/// host refused, the response limited in size and time, and a log line for
/// every request.
@MainActor
final class PluginHTTP: HTTPClient {
  /// The largest response body taken.
  static let sizeLimit = 8 << 20
  /// Seconds a request may take.
  static let timeLimit = 30.0

  private let identity: PluginIdentity
  private var plugin: String { identity.name }
  private var hosts: [String] { identity.hosts }
  private let gate: PermissionGate
  private let mode: HTTPMode
  private let log: (LogLevel, String) -> Void
  private lazy var session: URLSession = {
    let configuration = URLSessionConfiguration.ephemeral
    configuration.timeoutIntervalForRequest = Self.timeLimit
    configuration.timeoutIntervalForResource = Self.timeLimit
    return URLSession(configuration: configuration, delegate: RedirectGuard(hosts: hosts), delegateQueue: nil)
  }()

  init(
    identity: PluginIdentity, gate: PermissionGate, mode: HTTPMode, log: @escaping (LogLevel, String) -> Void
  ) {
    self.identity = identity
    self.gate = gate
    self.mode = mode
    self.log = log
  }

  /// Whether `host` is one of `hosts`: itself, or under a `*.` entry.
  nonisolated static func allows(_ host: String, in hosts: [String]) -> Bool {
    let host = host.lowercased()
    return hosts.contains { entry in
      let entry = entry.lowercased()
      if entry.hasPrefix("*.") { return host.hasSuffix(entry.dropFirst(1)) && host.count > entry.count - 1 }
      return host == entry
    }
  }

  func send(_ request: HTTPRequest) async throws -> HTTPResponse {
    guard let url = URL(string: request.url), let scheme = url.scheme?.lowercased(),
      scheme == "http" || scheme == "https",
      let host = url.host?.lowercased(), !host.isEmpty
    else {
      throw HTTPError(.invalidURL, url: request.url, reason: "not an absolute http or https URL")
    }
    let what = "\(request.method) \(request.url)"
    guard let declared = hosts.first(where: { Self.allows(host, in: [$0]) }) else {
      gate.record(.undeclared, PluginPermission(.http, host), by: identity, for: what)
      throw HTTPError(
        .undeclaredHost, url: request.url,
        reason:
          "\(plugin) does not declare the host '\(host)': add \"\(host)\" to its plugin type's hosts (static var hosts: [String])"
      )
    }
    let permission = PluginPermission(.http, declared)
    switch await gate.use(permission, by: identity, for: what) {
    case .allowed: break
    case .denied:
      throw HTTPError(
        .notGranted, url: request.url,
        reason:
          "you denied \(plugin) \(permission); grant it with 'vivarium permissions grant \(identity.legacyStorageName) \(permission)'"
      )
    case .notGranted, .undeclared:
      throw HTTPError(
        .notGranted, url: request.url,
        reason:
          "\(plugin) was not granted \(permission); grant it with 'vivarium permissions grant \(identity.legacyStorageName) \(permission)', or run with --allow \(identity.legacyStorageName):\(permission)"
      )
    }
    let start = ContinuousClock.now
    do throws(HTTPError) {
      let response = try await fetch(request, url: url)
      log(
        .info,
        "http \(request.method) \(host) \(response.status), \(response.body.count) bytes in \((ContinuousClock.now - start).shownInMilliseconds)"
      )
      return response
    } catch {
      log(
        .warning,
        "http \(request.method) \(host) failed (\(error.kind.rawValue)) in \((ContinuousClock.now - start).shownInMilliseconds)"
      )
      throw error
    }
  }

  private func fetch(_ request: HTTPRequest, url: URL) async throws(HTTPError) -> HTTPResponse {
    if case .replay(let directory) = mode {
      let path = HTTPRecording.path(of: request, in: directory)
      guard let data = FileManager.default.contents(atPath: path) else {
        throw HTTPError(
          .notRecorded, url: request.url,
          reason: "no recorded response (\(path)); record it with VIVARIUM_HTTP=record:\(directory)")
      }
      do {
        return try JSONDecoder().decode(HTTPRecording.self, from: data).response
      } catch {
        throw HTTPError(.notRecorded, url: request.url, reason: "\(path) is not a recorded response: \(error)")
      }
    }
    var urlRequest = URLRequest(url: url, timeoutInterval: Self.timeLimit)
    urlRequest.httpMethod = request.method
    for (name, value) in request.headers { urlRequest.setValue(value, forHTTPHeaderField: name) }
    if !request.body.isEmpty { urlRequest.httpBody = Data(request.body) }
    let (data, answer): (Data, URLResponse)
    do {
      (data, answer) = try await session.data(for: urlRequest)
    } catch let error as URLError where error.code == .timedOut {
      throw HTTPError(.timedOut, url: request.url, reason: "no response within \(Int(Self.timeLimit)) s")
    } catch {
      throw HTTPError(.failed, url: request.url, reason: error.localizedDescription)
    }
    guard let http = answer as? HTTPURLResponse else {
      throw HTTPError(.failed, url: request.url, reason: "the answer is not an HTTP response")
    }
    var headers: [String: String] = [:]
    for (name, value) in http.allHeaderFields {
      if let name = name as? String, let value = value as? String { headers[name.lowercased()] = value }
    }
    if (300..<400).contains(http.statusCode), let location = headers["location"],
      let target = URL(string: location, relativeTo: url)?.host, !Self.allows(target, in: hosts)
    {
      throw HTTPError(
        .refusedRedirect, url: request.url,
        reason: "it redirects to '\(target)', which \(plugin) does not declare: add it to its hosts if it should follow"
      )
    }
    guard data.count <= Self.sizeLimit else {
      throw HTTPError(.tooLarge, url: request.url, reason: "the response is over \(Self.sizeLimit >> 20) MiB")
    }
    let response = HTTPResponse(status: http.statusCode, headers: headers, body: [UInt8](data))
    if case .record(let directory) = mode { HTTPRecording(request: request, response: response).save(in: directory) }
    return response
  }

}

/// Follows a redirect only to a host the plugin declares: a redirect
/// elsewhere is not followed, and ``PluginHTTP`` refuses its answer.
private final class RedirectGuard: NSObject, URLSessionTaskDelegate, Sendable {
  let hosts: [String]

  init(hosts: [String]) {
    self.hosts = hosts
  }

  func urlSession(
    _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
    newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
  ) {
    let allowed = request.url?.host.map { PluginHTTP.allows($0, in: hosts) } ?? false
    completionHandler(allowed ? request : nil)
  }
}

/// A saved response, and the request it answers: one JSON file per
/// request, named by its method, host and a hash of its method, URL and
/// body (``path(of:in:)``). A body that is UTF-8 text is kept as text
/// (`body`), so that a recording can be read and edited; any other body as
/// Base64 (`bodyBase64`).
struct HTTPRecording: Codable {
  let method: String
  let url: String
  let bodyHash: String
  let response: HTTPResponse

  private enum CodingKeys: String, CodingKey {
    case method, url, bodyHash, status, headers, body, bodyBase64
  }

  init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    method = try container.decode(String.self, forKey: .method)
    url = try container.decode(String.self, forKey: .url)
    bodyHash = try container.decode(String.self, forKey: .bodyHash)
    let body: [UInt8]
    if let text = try container.decodeIfPresent(String.self, forKey: .body) {
      body = Array(text.utf8)
    } else {
      let base64 = try container.decode(String.self, forKey: .bodyBase64)
      guard let data = Data(base64Encoded: base64) else {
        throw DecodingError.dataCorruptedError(forKey: .bodyBase64, in: container, debugDescription: "not Base64")
      }
      body = [UInt8](data)
    }
    response = HTTPResponse(
      status: try container.decode(Int.self, forKey: .status),
      headers: try container.decode([String: String].self, forKey: .headers), body: body)
  }

  func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(method, forKey: .method)
    try container.encode(url, forKey: .url)
    try container.encode(bodyHash, forKey: .bodyHash)
    try container.encode(response.status, forKey: .status)
    try container.encode(response.headers, forKey: .headers)
    if let text = String(validating: response.body, as: UTF8.self) {
      try container.encode(text, forKey: .body)
    } else {
      try container.encode(Data(response.body).base64EncodedString(), forKey: .bodyBase64)
    }
  }

  init(request: HTTPRequest, response: HTTPResponse) {
    method = request.method
    url = request.url
    bodyHash = FNV1a.hex(FNV1a.hash(request.body))
    self.response = response
  }

  /// Where the response to `request` is saved in `directory`.
  static func path(of request: HTTPRequest, in directory: String) -> String {
    path(method: request.method, url: request.url, bodyHash: FNV1a.hex(FNV1a.hash(request.body)), in: directory)
  }

  private static func path(method: String, url: String, bodyHash: String, in directory: String) -> String {
    let host = URL(string: url)?.host ?? "host"
    let safe = { (text: String) in String(text.map { $0.isLetter || $0.isNumber || $0 == "." || $0 == "-" ? $0 : "_" })
    }
    let key = FNV1a.hash(Array("\(method) \(url) \(bodyHash)".utf8))
    return "\(directory)/\(safe(method))-\(safe(host))-\(FNV1a.hex(key)).json"
  }

  /// Writes it where ``path(of:in:)`` says for its request, replacing what was there.
  func save(in directory: String) {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    guard let data = try? encoder.encode(self) else { return }
    try? AtomicFile.write(data, to: Self.path(method: method, url: url, bodyHash: bodyHash, in: directory))
  }
}

/// The 64-bit FNV-1a hash: small, stable across runs and machines, enough
/// to tell recorded requests apart (not a defence against anyone).
enum FNV1a {
  static func hash(_ bytes: [UInt8]) -> UInt64 {
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    for byte in bytes {
      hash ^= UInt64(byte)
      hash &*= 0x0000_0100_0000_01b3
    }
    return hash
  }

  /// `value` as 16 hexadecimal digits.
  static func hex(_ value: UInt64) -> String {
    let digits = String(value, radix: 16)
    return String(repeating: "0", count: 16 - digits.count) + digits
  }
}
