import ViperKit

/// The registry cache's file: a binary form, because reading it is most of
/// a warm start (JSON took about 20 µs an entry to decode; this takes a
/// fraction of that).
///
/// Layout: the ``magic`` line, one byte of format version, then the body
/// (host, SDK and compiler versions, then the entries, in ``WireWriter``'s
/// encoding), then an FNV-1a hash of the body in 8 bytes. A file that does
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
    var body = WireWriter()
    body.string(host)
    body.string(sdk)
    body.string(compiler)
    body.array(entries) { $0.entry($1) }
    var file = magic
    file.append(formatVersion)
    file += body.bytes
    var hash = Self.hash(body.bytes[...])
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
      return .failure(RegistryError(description: "\(path) is not a plugin registry cache"))
    }
    guard file[magic.count] == formatVersion else { return .success(nil) }
    let damaged = { (why: String) in
      Result<[Entry]?, RegistryError>.failure(
        RegistryError(description: "the plugin registry cache \(path) is damaged (\(why))"))
    }
    let bodyStart = magic.count + 1
    guard file.count >= bodyStart + 8 else { return damaged("it is cut short") }
    let body = file[bodyStart..<file.count - 8]
    var stored: UInt64 = 0
    for (index, byte) in file.suffix(8).enumerated() { stored |= UInt64(byte) << (8 * UInt64(index)) }
    guard stored == hash(body) else { return damaged("its contents do not match their checksum") }
    var reader = WireReader(Array(body))
    do throws(WireError) {
      guard try reader.string() == VivariumVersion.current, try reader.string() == ViperKitVersion.current.description,
        try reader.string() == swiftCompilerIdentity()
      else { return .success(nil) }
      let entries = try reader.array { (reader: inout WireReader) throws(WireError) in try reader.entry() }
      guard reader.isAtEnd else { return damaged("it has bytes left over") }
      return .success(entries)
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

extension WireWriter {
  fileprivate mutating func entry(_ entry: PluginRegistry.Entry) {
    string(entry.key.path)
    int(Int(entry.key.size))
    int(Int(entry.key.modified))
    unsigned(entry.key.inode)
    unsigned(entry.key.device)
    switch entry.outcome {
    case .success(let record):
      byte(0)
      string(record.name)
      int(record.sdkVersion.major)
      int(record.sdkVersion.minor)
      int(record.sdkVersion.patch)
      array(record.contracts) { $0.contract($1) }
    case .failure(let rejection):
      byte(1)
      string(rejection.path)
      string(rejection.kind.rawValue)
      array(rejection.reasons) { $0.string($1) }
      array(rejection.checks) { $0.string($1) }
    }
  }
}

extension WireReader {
  fileprivate mutating func entry() throws(WireError) -> PluginRegistry.Entry {
    let key = PluginFileKey(
      path: try string(), size: Int64(try int()), modified: Int64(try int()), inode: try unsigned(),
      device: try unsigned())
    switch try byte() {
    case 0:
      let name = try string()
      let version = ViperKitVersion(major: try int(), minor: try int(), patch: try int())
      let contracts = try array { (reader: inout WireReader) throws(WireError) in try reader.contract() }
      guard !contracts.isEmpty else { throw WireError("its entry for \(key.path) has no contracts") }
      return .init(key: key, outcome: .success(PluginRecord(name: name, sdkVersion: version, contracts: contracts)))
    case 1:
      let path = try string()
      let kindName = try string()
      guard let kind = Rejection.Kind(rawValue: kindName) else {
        throw WireError("its entry for \(key.path) has an unknown reason '\(kindName)'")
      }
      let reasons = try array { (reader: inout WireReader) throws(WireError) in try reader.string() }
      let checks = try array { (reader: inout WireReader) throws(WireError) in try reader.string() }
      guard checks.count == reasons.count else { throw WireError("its entry for \(key.path) is incomplete") }
      return .init(key: key, outcome: .failure(Rejection(path, kind, reasons, checks: checks)))
    default:
      throw WireError("its entry for \(key.path) is incomplete")
    }
  }
}
