import Foundation
import Glibc

/// An HTTP server on 127.0.0.1 for the http service's tests: it answers
/// each request, one at a time, with what its handler writes (raw bytes,
/// status line first), keeps each request's head and counts the requests;
/// nothing leaves the machine.
final class LocalHTTPServer: @unchecked Sendable {
  /// Answers one request: given its head (request line and header lines),
  /// writes the answer with `send`, which says whether the client still
  /// reads (false once it has gone).
  typealias Handler = @Sendable (_ head: String, _ send: ([UInt8]) -> Bool) -> Void

  // Safe to share: `descriptor` and `handler` never change after init, and
  // `served`, `received` and `stopped` are read and written under `lock`.
  private let descriptor: Int32
  private let handler: Handler
  private let lock = NSLock()
  private var served = 0
  private var received: [String] = []
  /// The port it listens on.
  let port: UInt16

  /// A server answering every request with `response`.
  convenience init(response: String) throws {
    let bytes = Array(response.utf8)
    try self.init { _, send in _ = send(bytes) }
  }

  /// A server answering each request as `handler` does.
  init(handler: @escaping Handler) throws {
    self.handler = handler
    let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    self.descriptor = descriptor
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = 0
    let bound = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    guard bound == 0, listen(descriptor, 8) == 0 else { throw POSIXError(.EADDRINUSE) }
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
    }
    port = UInt16(bigEndian: address.sin_port)
    Thread { [self] in serve() }.start()
  }

  /// How many requests it answered.
  var requests: Int { lock.withLock { served } }

  /// The head of each request it was sent, in order.
  var heads: [String] { lock.withLock { received } }

  private func serve() {
    while true {
      let client = accept(descriptor, nil, nil)
      guard client >= 0 else { return }
      var request: [UInt8] = []
      var buffer = [UInt8](repeating: 0, count: 4096)
      while !request.suffix(4).elementsEqual(Array("\r\n\r\n".utf8)) {
        let count = read(client, &buffer, buffer.count)
        guard count > 0 else { break }
        request += buffer[0..<count]
      }
      let head = String(decoding: request, as: UTF8.self)
      lock.withLock { received.append(head) }
      handler(head) { bytes in Self.write(bytes, to: client) }
      lock.withLock { served += 1 }
      close(client)
    }
  }

  /// Writes all of `bytes` to `client`, without SIGPIPE; false once the
  /// client has gone.
  private static func write(_ bytes: [UInt8], to client: Int32) -> Bool {
    var sent = 0
    while sent < bytes.count {
      let count = bytes.withUnsafeBytes {
        Glibc.send(client, $0.baseAddress! + sent, $0.count - sent, Int32(MSG_NOSIGNAL))
      }
      if count < 0 && errno == EINTR { continue }
      guard count > 0 else { return false }
      sent += count
    }
    return true
  }

  private var stopped = false

  /// Stops listening: a request from now on fails to connect. Once: the
  /// descriptor's number may belong to another file afterwards.
  func stop() {
    guard
      lock.withLock({ () -> Bool in
        defer { stopped = true }
        return !stopped
      })
    else { return }
    shutdown(descriptor, Int32(SHUT_RDWR))
    close(descriptor)
  }

  deinit { stop() }
}
