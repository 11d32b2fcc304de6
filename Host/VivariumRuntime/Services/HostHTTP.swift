import Foundation
import Synchronization
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
package enum HTTPMode: Sendable, Equatable {
  /// Requests go to the network.
  case live
  /// Requests go to the network, and each response is saved in the folder.
  case record(String)
  /// Requests are answered from the folder's saved responses; one never
  /// saved fails as ``ViperKit/HTTPError/Kind/notRecorded``.
  case replay(String)

  /// The mode `VIVARIUM_HTTP` names: `record:DIR`, `replay:DIR`, or live
  /// when unset or empty; nil for anything else.
  package init?(environment value: String?) {
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

/// What a request through the http service may take: the most bytes of
/// response body, the most time for the whole request (every redirect,
/// every byte), and the most redirects followed.
struct HTTPLimits: Sendable {
  /// The largest response body taken, in bytes: reading stops past it.
  var size: Int
  /// The longest a whole request may take on the network, from its first
  /// byte sent to its last byte read, its redirects included.
  var time: Duration
  /// The most redirects followed.
  var redirects: Int

  /// 8 MiB, 30 s and 10 redirects.
  static let standard = HTTPLimits(size: 8 << 20, time: .seconds(30), redirects: 10)
}

/// One plugin's `http` service: requests to the hosts it declares and the
/// person granted (``PermissionGate``), each in its own ephemeral session
/// (no cookie or cache shared with another plugin). Every redirect is
/// followed here, not by the session, and is checked and logged as a first
/// request is; a method or header the host would not send as written is
/// refused (``requestProblem(_:)``); the response is limited in size while
/// it is read and in time for the whole request (``HTTPLimits``); and there
/// is a log line for every request.
@MainActor
final class PluginHTTP: HTTPClient {
  private let identity: PluginIdentity
  private var plugin: String { identity.name }
  private var hosts: [String] { identity.hosts }
  private let gate: PermissionGate
  private let mode: HTTPMode
  private let limits: HTTPLimits
  private let log: (LogLevel, String) -> Void
  private let transfers = TransferDelegate()
  private lazy var session: URLSession = {
    let configuration = URLSessionConfiguration.ephemeral
    // A backstop only: `transfer` keeps the whole request's limit.
    let seconds = Double(limits.time.components.seconds) + 5
    configuration.timeoutIntervalForRequest = seconds
    configuration.timeoutIntervalForResource = seconds
    return URLSession(configuration: configuration, delegate: transfers, delegateQueue: nil)
  }()

  init(
    identity: PluginIdentity, gate: PermissionGate, mode: HTTPMode, limits: HTTPLimits = .standard,
    log: @escaping (LogLevel, String) -> Void
  ) {
    self.identity = identity
    self.gate = gate
    self.mode = mode
    self.limits = limits
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

  /// Headers a plugin may not set: the host and the HTTP library say where
  /// the request goes, how its body is framed and what becomes of the
  /// connection, so that a request cannot be smuggled behind another or
  /// sent to a granted address under another name.
  nonisolated static let reservedHeaders: Set<String> = [
    "host", "content-length", "transfer-encoding", "connection", "keep-alive", "proxy-connection", "te",
    "trailer", "upgrade", "expect",
  ]

  /// Why `request`'s method or headers cannot be sent as written, naming
  /// the one at fault; nil when they can. A method and a header name are
  /// HTTP tokens (RFC 9110, 5.6.2); a header value has no control
  /// character but a tab (no CR, LF or NUL); no header is one of
  /// ``reservedHeaders``; the method is not `CONNECT` (a tunnel).
  nonisolated static func requestProblem(_ request: HTTPRequest) -> String? {
    guard isToken(request.method) else {
      return "the method \(shown(request.method)) is not an HTTP token (letters, digits and !#$%&'*+-.^_`|~)"
    }
    guard request.method.uppercased() != "CONNECT" else {
      return "the method CONNECT opens a tunnel, which the http service does not offer"
    }
    for (name, value) in request.headers.sorted(by: { $0.key < $1.key }) {
      guard isToken(name) else {
        return "the header name \(shown(name)) is not an HTTP token (letters, digits and !#$%&'*+-.^_`|~)"
      }
      guard !reservedHeaders.contains(name.lowercased()) else {
        return "the header '\(name)' is set by the host, not by a plugin"
      }
      guard value.unicodeScalars.allSatisfy({ $0 == "\t" || ($0.value >= 0x20 && $0.value != 0x7F) }) else {
        return "the value of the header '\(name)' has a line break or another control character"
      }
    }
    return nil
  }

  /// The origin of `url`: scheme, host and port (the scheme's own when none is given).
  nonisolated static func origin(_ url: URL) -> String {
    let scheme = url.scheme?.lowercased() ?? ""
    let port = url.port ?? (scheme == "https" ? 443 : scheme == "http" ? 80 : 0)
    return "\(scheme)://\(url.host?.lowercased() ?? ""):\(port)"
  }

  private nonisolated static func isToken(_ text: String) -> Bool {
    !text.isEmpty
      && text.utf8.allSatisfy { byte in
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
          UInt8(ascii: "0")...UInt8(ascii: "9"):
          true
        default: Array("!#$%&'*+-.^_`|~".utf8).contains(byte)
        }
      }
  }

  /// `text` quoted, its control characters escaped, so that a line break
  /// shows as `\r\n` in the log and the reason, never as one.
  private nonisolated static func shown(_ text: String) -> String {
    "'"
      + text.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7F ? $0.escaped(asASCII: true) : String($0) }
      .joined() + "'"
  }

  /// `8 MiB`, `64 KiB`: a size limit as a person reads it.
  private nonisolated static func shown(bytes: Int) -> String {
    bytes >= 1 << 20 && bytes % (1 << 20) == 0 ? "\(bytes >> 20) MiB" : "\(bytes >> 10) KiB"
  }

  /// Sends `request` for a use no session's module made (a provider's):
  /// a permission never decided is asked as the gate's
  /// ``PermissionGate/askerForTheHost`` says.
  func send(_ request: HTTPRequest) async throws -> HTTPResponse {
    try await send(request, asking: nil)
  }

  /// Sends `request` for a module whose session asks its person through
  /// `asker` about a permission never decided (nil: as ``send(_:)``).
  func send(_ request: HTTPRequest, asking asker: PermissionAsker?) async throws -> HTTPResponse {
    if let problem = Self.requestProblem(request) {
      throw HTTPError(.invalidRequest, url: request.url, reason: "\(problem); nothing was sent")
    }
    let (url, host) = try await authorize(request.url, method: request.method, asked: request.url, asking: asker)
    let start = ContinuousClock.now
    do throws(HTTPError) {
      let response = try await fetch(request, url: url, asking: asker)
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

  /// The URL `text` and its host, once it is an http or https URL to a host
  /// the plugin declares and the person granted; the use logged either way.
  /// The same check for a first request and for every redirect (`from` the
  /// URL that redirected, `asked` the URL the plugin asked for), which fails
  /// as ``ViperKit/HTTPError/Kind/refusedRedirect`` for a host not declared.
  /// A permission never decided is asked through `asker`.
  private func authorize(
    _ text: String, method: String, asked: String, from origin: URL? = nil, asking asker: PermissionAsker?
  ) async throws(HTTPError) -> (URL, String) {
    let resolved = origin.map { URL(string: text, relativeTo: $0)?.absoluteURL } ?? URL(string: text)
    let shownURL = resolved?.absoluteString ?? text
    guard let url = resolved, let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
      let host = url.host?.lowercased(), !host.isEmpty
    else {
      throw HTTPError(
        .invalidURL, url: asked,
        reason: origin == nil
          ? "not an absolute http or https URL" : "it redirects to '\(shownURL)', not an absolute http or https URL")
    }
    let what = "\(method) \(shownURL)"
    guard let declared = hosts.first(where: { Self.allows(host, in: [$0]) }) else {
      gate.record(.undeclared, PluginPermission(.http, host), by: identity, for: what)
      guard origin == nil else {
        throw HTTPError(
          .refusedRedirect, url: asked,
          reason:
            "it redirects to '\(host)', which \(plugin) does not declare: add it to its hosts if it should follow"
        )
      }
      throw HTTPError(
        .undeclaredHost, url: asked,
        reason:
          "\(plugin) does not declare the host '\(host)': add \"\(host)\" to its plugin type's hosts (static var hosts: [String])"
      )
    }
    let permission = PluginPermission(.http, declared)
    let redirect = origin == nil ? "" : "it redirects to '\(host)', but "
    switch await gate.use(permission, by: identity, for: what, asking: asker) {
    case .allowed: return (url, host)
    case .denied:
      throw HTTPError(
        .notGranted, url: asked,
        reason:
          "\(redirect)you denied \(plugin) \(permission); grant it with \(gate.invocation.command("permissions", "grant", identity.legacyStorageName, permission.description))"
      )
    case .notGranted, .undeclared:
      throw HTTPError(
        .notGranted, url: asked,
        reason:
          "\(redirect)\(plugin) was not granted \(permission); grant it with \(gate.invocation.command("permissions", "grant", identity.legacyStorageName, permission.description)), or run with --allow \(identity.legacyStorageName):\(permission)"
      )
    }
  }

  private func fetch(_ request: HTTPRequest, url: URL, asking asker: PermissionAsker?) async throws(HTTPError)
    -> HTTPResponse
  {
    if case .replay(let directory) = mode { return try replay(request, from: directory) }
    var method = request.method
    var headers = request.headers
    var body = request.body
    var url = url
    // The network time left: the whole request's, shared by its redirects.
    var left = limits.time
    var redirects = 0
    while true {
      var urlRequest = URLRequest(url: url)
      urlRequest.httpMethod = method
      for (name, value) in headers { urlRequest.setValue(value, forHTTPHeaderField: name) }
      if !body.isEmpty { urlRequest.httpBody = Data(body) }
      let started = ContinuousClock.now
      let received = await transfer(urlRequest, within: left)
      left -= ContinuousClock.now - started
      let http: HTTPURLResponse
      let data: Data
      switch received {
      case .success(let answer): (http, data) = (answer.response, answer.body)
      case .failure(.tooLarge):
        throw HTTPError(
          .tooLarge, url: request.url,
          reason: "the response is over \(Self.shown(bytes: limits.size)); reading stopped there")
      case .failure(.timedOut):
        throw HTTPError(.timedOut, url: request.url, reason: "no whole response within \(limits.time)")
      case .failure(.failed(let reason)): throw HTTPError(.failed, url: request.url, reason: reason)
      }
      var answerHeaders: [String: String] = [:]
      for (name, value) in http.allHeaderFields {
        if let name = name as? String, let value = value as? String { answerHeaders[name.lowercased()] = value }
      }
      if [301, 302, 303, 307, 308].contains(http.statusCode), let location = answerHeaders["location"] {
        redirects += 1
        guard redirects <= limits.redirects else {
          throw HTTPError(.failed, url: request.url, reason: "more than \(limits.redirects) redirects")
        }
        // As browsers do: 303, and 301 or 302 after a POST, go on as a GET
        // without the body; 307 and 308 repeat the request.
        if http.statusCode == 303 && method != "HEAD" || [301, 302].contains(http.statusCode) && method == "POST" {
          method = "GET"
          body = []
          headers = headers.filter { !["content-type", "content-encoding"].contains($0.key.lowercased()) }
        }
        let (next, _) = try await authorize(location, method: method, asked: request.url, from: url, asking: asker)
        // Credentials meant for one origin (scheme, host and port) are not
        // handed to another, nor sent on in the clear.
        if Self.origin(next) != Self.origin(url) {
          headers = headers.filter {
            !["authorization", "cookie", "proxy-authorization"].contains($0.key.lowercased())
          }
        }
        url = next
        continue
      }
      let response = HTTPResponse(status: http.statusCode, headers: answerHeaders, body: [UInt8](data))
      if case .record(let directory) = mode { HTTPRecording(request: request, response: response).save(in: directory) }
      return response
    }
  }

  /// The response saved for `request` in `directory`: read as the host
  /// reads its data files (``FileContents/read(_:limit:holds:)``), so only a
  /// regular file in the folder itself, never one a symbolic link points to.
  private func replay(_ request: HTTPRequest, from directory: String) throws(HTTPError) -> HTTPResponse {
    let path = HTTPRecording.path(of: request, in: directory)
    let data: Data
    switch FileContents.read(path, limit: HTTPRecording.sizeLimit(limits)) {
    case .data(let read): data = read
    case .missing:
      throw HTTPError(
        .notRecorded, url: request.url,
        reason: "no recorded response (\(path)); record it with VIVARIUM_HTTP=record:\(directory)")
    case .failed(let code):
      throw HTTPError(
        .notRecorded, url: request.url, reason: "\(path) cannot be read (\(AtomicFile.errorText(code)))")
    case .refused(let reason):
      throw HTTPError(.notRecorded, url: request.url, reason: "\(path) is not replayed: \(reason)")
    }
    do {
      return try JSONDecoder().decode(HTTPRecording.self, from: data).response
    } catch {
      throw HTTPError(.notRecorded, url: request.url, reason: "\(path) is not a recorded response: \(error)")
    }
  }

  /// Sends `request` once, following no redirect, and reads its answer:
  /// no more than the size limit of body (reading stops past it), and no
  /// longer than `time` in all. Cancelling the caller cancels it.
  private func transfer(_ request: URLRequest, within time: Duration) async -> Result<
    TransferDelegate.Answer, TransferDelegate.Failure
  > {
    guard time > .zero else { return .failure(.timedOut) }
    let task = session.dataTask(with: request)
    let identifier = task.taskIdentifier
    let transfers = transfers
    let size = limits.size
    let timer = DispatchWorkItem { transfers.stop(identifier, .timedOut) }
    defer { timer.cancel() }
    return await withTaskCancellationHandler {
      await withCheckedContinuation { continuation in
        transfers.start(task, limit: size, continuation)
        let (seconds, attoseconds) = time.components
        let nanoseconds = Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)
        DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(nanoseconds), execute: timer)
        // A cancellation before `start` found nothing to stop.
        if Task.isCancelled { transfers.stop(identifier, .failed("the request was cancelled")) }
      }
    } onCancel: {
      transfers.stop(identifier, .failed("the request was cancelled"))
    }
  }
}

/// A plugin's `http` service as one module uses it: the plugin's client
/// (``PluginHTTP``), asking about a permission never decided the person of
/// the module's session.
@MainActor
final class ModuleHTTP: HTTPClient {
  private let client: PluginHTTP
  private let asker: PermissionAsker

  init(_ client: PluginHTTP, asking asker: PermissionAsker) {
    self.client = client
    self.asker = asker
  }

  func send(_ request: HTTPRequest) async throws -> HTTPResponse {
    try await client.send(request, asking: asker)
  }
}

/// The session's delegate: takes each task's answer as it arrives, no more
/// than its limit of body (past it, the task is cancelled and no byte more
/// kept), follows no redirect itself (``PluginHTTP`` checks each one), and
/// ends each task's wait once, with its answer or why there is none.
private final class TransferDelegate: NSObject, URLSessionDataDelegate, Sendable {
  /// A whole answer.
  struct Answer: Sendable {
    let response: HTTPURLResponse
    let body: Data
  }

  /// Why a task has no answer.
  enum Failure: Error {
    case tooLarge
    case timedOut
    case failed(String)
  }

  private struct Transfer {
    let task: URLSessionDataTask
    let limit: Int
    let continuation: CheckedContinuation<Result<Answer, Failure>, Never>
    var response: HTTPURLResponse?
    var body = Data()
  }

  /// The tasks under way, by identifier; a task leaves when its wait ends.
  private let transfers = Mutex<[Int: Transfer]>([:])

  /// Starts `task`, whose answer ends `continuation`.
  func start(
    _ task: URLSessionDataTask, limit: Int, _ continuation: CheckedContinuation<Result<Answer, Failure>, Never>
  ) {
    transfers.withLock { $0[task.taskIdentifier] = Transfer(task: task, limit: limit, continuation: continuation) }
    task.resume()
  }

  /// Ends the wait for task `identifier` with `failure` now, and cancels the
  /// task; nothing when its wait has ended.
  func stop(_ identifier: Int, _ failure: Failure) {
    guard let transfer = transfers.withLock({ $0.removeValue(forKey: identifier) }) else { return }
    transfer.task.cancel()
    transfer.continuation.resume(returning: .failure(failure))
  }

  func urlSession(
    _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
    completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
  ) {
    let identifier = dataTask.taskIdentifier
    let over = transfers.withLock { transfers -> Bool in
      guard let limit = transfers[identifier]?.limit else { return false }
      transfers[identifier]?.response = response as? HTTPURLResponse
      return response.expectedContentLength > Int64(limit)
    }
    if over { stop(identifier, .tooLarge) }
    completionHandler(over ? .cancel : .allow)
  }

  func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
    let identifier = dataTask.taskIdentifier
    let over = transfers.withLock { transfers -> Bool in
      // Counted in place: a copy of the transfer would copy its body at the append.
      guard let count = transfers[identifier]?.body.count, let limit = transfers[identifier]?.limit else {
        return false
      }
      guard count + data.count <= limit else { return true }
      transfers[identifier]?.body.append(data)
      return false
    }
    if over { stop(identifier, .tooLarge) }
  }

  func urlSession(
    _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
    newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
  ) {
    // The redirect is the answer: PluginHTTP checks and follows it. Its body
    // reaches this delegate (and its limit) only now: FoundationNetworking
    // keeps a 301 to 308's body itself until it is asked, so for a redirect
    // only the whole request's time limit bounds what it holds.
    completionHandler(nil)
  }

  func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
    guard let transfer = transfers.withLock({ $0.removeValue(forKey: task.taskIdentifier) }) else { return }
    let result: Result<Answer, Failure>
    if let error = error as? URLError, error.code == .timedOut {
      result = .failure(.timedOut)
    } else if let error {
      result = .failure(.failed(error.localizedDescription))
    } else if let response = transfer.response ?? task.response as? HTTPURLResponse {
      result = .success(Answer(response: response, body: transfer.body))
    } else {
      result = .failure(.failed("the answer is not an HTTP response"))
    }
    transfer.continuation.resume(returning: result)
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

  /// The most bytes of a recording replayed: a body at the size limit,
  /// each byte written as a six-character JSON escape at worst, and room
  /// for the rest.
  static func sizeLimit(_ limits: HTTPLimits) -> Int { 6 * limits.size + (1 << 20) }

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
