import Foundation
import Glibc
import Testing
import ViperKit

@testable import VivariumWire

/// The host's end of a plugin's socket never waits for the plugin to read:
/// what does not fit is kept, in order, and written as room is made; a
/// plugin that leaves too much unread makes sending fail.
@Suite("The host's end of a plugin's socket")
struct WireChannelTests {
  /// A socket pair: the host's end, non-blocking as the host makes it, in
  /// a channel that buffers, and the plugin's end.
  private static func pair() throws -> (host: WireChannel<HostMessage>, plugin: Int32) {
    var pair: [Int32] = [0, 0]
    try #require(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pair) == 0)
    _ = fcntl(pair[0], F_SETFL, fcntl(pair[0], F_GETFL) | O_NONBLOCK)
    return (WireChannel<HostMessage>(descriptor: pair[0], sending: .buffers), pair[1])
  }

  /// A message of about `size` bytes, numbered `index`.
  private static func message(_ index: Int, size: Int = 10_000) -> HostMessage {
    .storeChanged(.storage, key: "\(index)", .string(String(repeating: "x", count: size)))
  }

  /// Reads every frame `descriptor` holds now.
  private static func readAll(_ descriptor: Int32, into reader: inout WireFrameReader) -> [HostMessage] {
    var buffer = [UInt8](repeating: 0, count: 65_536)
    var messages: [HostMessage] = []
    while true {
      let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
      guard count > 0 else { break }
      buffer.withUnsafeBytes { reader.append(UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
      while let (message, _) = try? reader.nextMessage(HostMessage.self) { messages.append(message) }
    }
    return messages
  }

  @Test func whatDoesNotFitIsKeptAndWrittenInOrderAsRoomIsMade() throws {
    let (host, plugin) = try Self.pair()
    defer { close(plugin) }
    // About 2 MB: far past what the socket holds, every send returns at once.
    let count = 200
    for index in 0..<count { #expect(host.send(Self.message(index))) }
    #expect(host.hasPending && host.pendingSince != nil)
    var reader = WireFrameReader()
    var received: [HostMessage] = []
    // The plugin reads, the host writes what waits, until all has arrived.
    for _ in 0..<10_000 where received.count < count {
      received += Self.readAll(plugin, into: &reader)
      #expect(host.writePending())
    }
    #expect(received == (0..<count).map { Self.message($0) })
    #expect(!host.hasPending && host.pendingSince == nil)
    // Once nothing waits, a message is written at once again.
    #expect(host.send(Self.message(count, size: 10)))
    #expect(!host.hasPending)
    #expect(Self.readAll(plugin, into: &reader) == [Self.message(count, size: 10)])
  }

  @Test func aPeerThatLeavesTooMuchUnreadMakesSendingFail() throws {
    let (host, plugin) = try Self.pair()
    defer { close(plugin) }
    let size = 1 << 20
    var sent = 0
    while host.send(Self.message(sent, size: size)) {
      sent += 1
      try #require(sent <= WireChannel<HostMessage>.pendingLimit / size + 2, "sending never failed")
    }
    #expect(sent >= WireChannel<HostMessage>.pendingLimit / size - 1)
  }

  /// A peer that shuts its end for reading once bytes wait for it: writing
  /// them fails, they are dropped, and sending fails from then on.
  @Test func aPeerThatShutsItsEndWhileBytesWaitMakesSendingFail() throws {
    let (host, plugin) = try Self.pair()
    defer { close(plugin) }
    for index in 0..<50 { #expect(host.send(Self.message(index))) }
    try #require(host.hasPending)
    shutdown(plugin, Int32(SHUT_RD))
    #expect(!host.writePending())
    #expect(!host.hasPending)
    #expect(!host.send(Self.message(50, size: 10)))
  }

  @Test func aPeerThatClosedItsEndMakesSendingFail() throws {
    let (host, plugin) = try Self.pair()
    close(plugin)
    #expect(!host.send(Self.message(0, size: 10)))
  }
}
