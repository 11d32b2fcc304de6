import ViperKit
import VivariumSupport
import VivariumWire

/// The registry cache's file: in the wire's one codec (``WireEncoder``),
/// the same bytes a plugin process reports its contracts in; reading it is
/// much of a warm start (about 12 µs an entry, `Scripts/benchmark loading`).
///
/// Layout: the ``magic`` line, one byte of format version, then the body
/// (``RegistryBody``: host, SDK and compiler versions, then the entries),
/// then an FNV-1a hash of the body in 8 bytes. A file that does
/// not start with the magic line is not a registry; one whose hash or body
/// does not check out is damaged; either way it is never trusted.
extension PluginRegistry {
  /// The first bytes of every registry file.
  static let magic = Array("vivarium plugin registry\n".utf8)

  /// The registry file holding `entries`, written by this host, SDK and
  /// compiler unless told otherwise.
  static func encode(
    _ entries: [Entry], host: String = VivariumVersion.current, sdk: String = ViperKitVersion.current.description,
    compiler: String = swiftCompilerIdentity()
  ) -> [UInt8] {
    let stamp = RegistryStamp(host: host, sdk: sdk, compiler: compiler)
    // Every value here encodes without throwing: nothing can fail.
    let body = (try? WireEncoder.encode(RegistryBody(stamp: stamp, entries: entries.map(StoredEntry.init)))) ?? []
    var file = magic
    file.append(formatVersion)
    file += body
    var hash = Self.hash(body[...])
    for _ in 0..<8 {
      file.append(UInt8(truncatingIfNeeded: hash))
      hash >>= 8
    }
    return file
  }

  /// What a registry file holds: its entries; nil when it was written by
  /// another format, host, SDK or compiler (a miss for every file, not
  /// damage); a failure when it is not a registry or is damaged.
  static func decode(_ file: [UInt8], path: String) -> Result<[Entry]?, RegistryError> {
    guard file.starts(with: magic), file.count > magic.count else {
      return .failure(RegistryError(.notARegistry, description: "\(path) is not a plugin registry cache"))
    }
    guard file[magic.count] == formatVersion else { return .success(nil) }
    let damaged = { (why: String) in
      Result<[Entry]?, RegistryError>.failure(
        RegistryError(.damaged, description: "the plugin registry cache \(path) is damaged (\(why))"))
    }
    let bodyStart = magic.count + 1
    guard file.count >= bodyStart + 8 else { return damaged("it is cut short") }
    let body = file[bodyStart..<file.count - 8]
    var stored: UInt64 = 0
    for (index, byte) in file.suffix(8).enumerated() { stored |= UInt64(byte) << (8 * UInt64(index)) }
    guard stored == hash(body) else { return damaged("its contents do not match their checksum") }
    do throws(WireError) {
      let value = try WireValue(checking: Array(body))
      // The stamp first: what another host wrote may not decode here.
      let stamp = try WireDecoder.decode(RegistryStampOnly.self, from: value).stamp
      guard
        stamp
          == RegistryStamp(
            host: VivariumVersion.current, sdk: ViperKitVersion.current.description,
            compiler: swiftCompilerIdentity())
      else { return .success(nil) }
      let entries = try WireDecoder.decode(RegistryBody.self, from: value).entries
      return .success(try entries.map { (entry: StoredEntry) throws(WireError) in try entry.entry() })
    } catch {
      return damaged(error.description)
    }
  }

  /// FNV-1a, 64 bits: enough to tell a torn or altered file from the one
  /// that was written (a cache, not a defence against a forger: anyone who
  /// can write the data directory can write plugins too).
  private static func hash(_ bytes: ArraySlice<UInt8>) -> UInt64 {
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
    return hash
  }
}

/// Who wrote a registry file: a file by another is a miss.
private struct RegistryStamp: Codable, Equatable {
  let host: String
  let sdk: String
  let compiler: String
}

/// A registry file's body.
private struct RegistryBody: Codable {
  let stamp: RegistryStamp
  let entries: [StoredEntry]
}

/// A body's stamp alone, read before its entries.
private struct RegistryStampOnly: Codable {
  let stamp: RegistryStamp
}

/// An entry as the file keeps it: a record or a rejection.
private struct StoredEntry: Codable {
  let key: PluginFileKey
  let record: PluginRecord?
  let rejection: Rejection?

  init(_ entry: PluginRegistry.Entry) {
    key = entry.key
    record = entry.record
    rejection = entry.rejection
  }

  func entry() throws(WireError) -> PluginRegistry.Entry {
    switch (record, rejection) {
    case (let record?, nil):
      guard !record.contracts.isEmpty else {
        throw WireError(.mismatch, "its entry for \(key.path) has no contracts")
      }
      return .init(key: key, outcome: .success(record))
    case (nil, let rejection?):
      guard rejection.checks.count == rejection.reasons.count else {
        throw WireError(.mismatch, "its entry for \(key.path) is incomplete")
      }
      return .init(key: key, outcome: .failure(rejection))
    default: throw WireError(.mismatch, "its entry for \(key.path) is incomplete")
    }
  }
}
