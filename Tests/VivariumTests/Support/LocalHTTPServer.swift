import Foundation
import Glibc

/// An HTTP server on 127.0.0.1 for the http service's tests: it answers
/// every request with `response` (raw bytes, status line first) and counts
/// the requests; nothing leaves the machine.
final class LocalHTTPServer: @unchecked Sendable {
  // Safe to share: `descriptor` and `response` never change after init, and
  // `served` and `stopped` are read and written under `lock`.
  private let descriptor: Int32
  private let response: [UInt8]
  private let lock = NSLock()
  private var served = 0
  /// The port it listens on.
  let port: UInt16

  init(response: String) throws {
    self.response = Array(response.utf8)
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
      _ = response.withUnsafeBytes { write(client, $0.baseAddress, $0.count) }
      lock.withLock { served += 1 }
      close(client)
    }
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
