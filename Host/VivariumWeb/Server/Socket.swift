import Glibc

/// The few socket calls the server makes, over Glibc: every descriptor is
/// nonblocking and close-on-exec (a plugin process started meanwhile
/// inherits none; the host's spawns also close every descriptor past the
/// standard ones).
enum Socket {
  /// An address to bind: IPv4 or IPv6.
  enum Address {
    /// An IPv4 address and port.
    case v4(sockaddr_in)
    /// An IPv6 address and port.
    case v6(sockaddr_in6)
  }

  /// `host` (an IPv4 or IPv6 literal, an IPv6 one with or without
  /// brackets, or `localhost`, which is 127.0.0.1) at `port`; nil for anything else.
  static func address(_ host: String, port: UInt16) -> Address? {
    let name = host == "localhost" ? "127.0.0.1" : host
    var v4 = sockaddr_in()
    if inet_pton(AF_INET, name, &v4.sin_addr) == 1 {
      v4.sin_family = sa_family_t(AF_INET)
      v4.sin_port = port.bigEndian
      return .v4(v4)
    }
    var literal = Substring(name)
    if literal.hasPrefix("[") && literal.hasSuffix("]") { literal = literal.dropFirst().dropLast() }
    var v6 = sockaddr_in6()
    if inet_pton(AF_INET6, String(literal), &v6.sin6_addr) == 1 {
      v6.sin6_family = sa_family_t(AF_INET6)
      v6.sin6_port = port.bigEndian
      return .v6(v6)
    }
    return nil
  }

  /// A nonblocking socket listening on `host` at `port` (0: any free
  /// port), and the port it is bound to.
  static func listen(host: String, port: UInt16) throws(WebServerError) -> (fd: Int32, port: UInt16) {
    guard let address = address(host, port: port) else {
      throw WebServerError(.badAddress, "\(LogText.escaped(host)) is not an IPv4 or IPv6 address, nor localhost")
    }
    let family: Int32
    switch address {
    case .v4: family = AF_INET
    case .v6: family = AF_INET6
    }
    let flags = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
    let fd = socket(family, flags, 0)
    guard fd >= 0 else { throw WebServerError(.cannotListen, "cannot make a socket: \(errorText())") }
    var one: Int32 = 1
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
    let bound: Int32
    switch address {
    case .v4(var v4):
      bound = withUnsafePointer(to: &v4) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
          bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
        }
      }
    case .v6(var v6):
      setsockopt(fd, Int32(IPPROTO_IPV6), IPV6_V6ONLY, &one, socklen_t(MemoryLayout<Int32>.size))
      bound = withUnsafePointer(to: &v6) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
          bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size))
        }
      }
    }
    if bound != 0 {
      let code = errno
      close(fd)
      let place = "\(LogText.escaped(host)) port \(port)"
      if code == EADDRINUSE { throw WebServerError(.addressInUse, "\(place) is in use") }
      throw WebServerError(.cannotListen, "cannot bind \(place): \(errorText(code))")
    }
    guard Glibc.listen(fd, 128) == 0 else {
      let code = errno
      close(fd)
      throw WebServerError(.cannotListen, "cannot listen: \(errorText(code))")
    }
    var storage = sockaddr_storage()
    var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
    let named = withUnsafeMutablePointer(to: &storage) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
    }
    guard named == 0 else {
      let code = errno
      close(fd)
      throw WebServerError(.cannotListen, "cannot learn the bound port: \(errorText(code))")
    }
    return (fd, Self.port(of: storage))
  }

  /// What ``accept(_:)`` got.
  enum Accepted {
    /// A connection, nonblocking and close-on-exec, and its peer's address as text.
    case connection(fd: Int32, peer: String)
    /// None is waiting.
    case none
    /// Accepting failed with this `errno`.
    case failed(Int32)
  }

  /// The most a connection's socket holds unsent, in bytes.
  static let sendBufferBytes: Int32 = 256 << 10

  /// The next connection waiting on `listener`.
  static func accept(_ listener: Int32) -> Accepted {
    var storage = sockaddr_storage()
    var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
    let fd = withUnsafeMutablePointer(to: &storage) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.accept(listener, $0, &length) }
    }
    if fd < 0 {
      let code = errno
      // A connection reset before it was accepted, or a signal: try again.
      if code == EAGAIN || code == EWOULDBLOCK || code == EINTR || code == ECONNABORTED { return .none }
      return .failed(code)
    }
    // Glibc's module does not show accept4: set the flags at once, before
    // anything else runs on this thread.
    _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
    _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
    var one: Int32 = 1
    setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
    // The kernel keeps at most this much unsent for one client (it grows
    // a loopback buffer to megabytes otherwise): what a client leaves
    // unread is held in the server's queue, which `pendingBytes` bounds.
    var sendBuffer = Self.sendBufferBytes
    setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sendBuffer, socklen_t(MemoryLayout<Int32>.size))
    return .connection(fd: fd, peer: host(of: storage))
  }

  /// The port of an IPv4 or IPv6 address.
  static func port(of storage: sockaddr_storage) -> UInt16 {
    var storage = storage
    return withUnsafePointer(to: &storage) { pointer in
      pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { UInt16(bigEndian: $0.pointee.sin_port) }
    }
  }

  /// The IP address of an IPv4 or IPv6 address, as text.
  static func host(of storage: sockaddr_storage) -> String {
    var storage = storage
    var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
    let family = Int32(storage.ss_family)
    let written: UnsafePointer<CChar>? = withUnsafePointer(to: &storage) { pointer in
      if family == AF_INET {
        return pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { address in
          withUnsafePointer(to: address.pointee.sin_addr) {
            inet_ntop(AF_INET, $0, &text, socklen_t(text.count))
          }
        }
      }
      if family == AF_INET6 {
        return pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { address in
          withUnsafePointer(to: address.pointee.sin6_addr) {
            inet_ntop(AF_INET6, $0, &text, socklen_t(text.count))
          }
        }
      }
      return nil
    }
    guard written != nil else { return "an unknown address" }
    return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }

  /// Makes `fd` nonblocking and close-on-exec.
  static func makeNonblocking(_ fd: Int32) {
    _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
    _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
  }

  /// What `code` (an `errno`) means, for people.
  static func errorText(_ code: Int32 = errno) -> String {
    String(cString: strerror(code))
  }

  /// Seconds on a clock that only goes forward.
  static func now() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
  }
}
