import ViperKit
import VivariumSupport

/// The registry cache's file, in a byte format of its own
/// (``RegistryWriter``), read lazily: opening it reads each entry's key and
/// nothing more of it; what an entry holds (the plugin's contracts, or why
/// it was refused) is read only when a scan asks for that very file, and an
/// entry no scan asked for is written back byte for byte. (Until format 6
/// the file went through the wire's `Codable` codec, which cost 15.5 µs
/// an entry to read, all of them at every start.)
///
/// Layout: the ``magic`` line, one byte of format version, then the body,
/// then a checksum of the body in 8 bytes. The body: the host, SDK and
/// compiler versions that wrote it (three strings), the number of entries,
/// then each entry: its file's key (the path as a string; size,
/// modification time, inode and device in 8 bytes each), a byte saying
/// whether a record or a refusal follows, the length of that and its
/// bytes. A file that does not start with the magic line is not a registry;
/// one whose checksum or keys do not check out is damaged; either way it is
/// never trusted. An entry whose bytes do not read (which the checksum
/// leaves to a file made to pass it) is a miss: its file is scanned again,
/// and the entry replaced.
extension PluginRegistry {
  /// The first bytes of every registry file.
  static let magic = Array("vivarium plugin registry\n".utf8)

  /// An entry as the file keeps it: the key, and the rest still in bytes.
  struct StoredEntry: Equatable, Sendable {
    /// The version of the file the entry is about.
    let key: PluginFileKey
    /// Whether ``payload`` holds a record (else a refusal).
    let isRecord: Bool
    /// The record or refusal, as ``RegistryWriter`` wrote it.
    let payload: ArraySlice<UInt8>

    init(key: PluginFileKey, isRecord: Bool, payload: ArraySlice<UInt8>) {
      self.key = key
      self.isRecord = isRecord
      self.payload = payload
    }

    /// `entry`, written.
    init(_ entry: Entry) {
      var writer = RegistryWriter()
      switch entry.outcome {
      case .success(let record): writer.record(record)
      case .failure(let rejection): writer.rejection(rejection)
      }
      self.init(key: entry.key, isRecord: entry.record != nil, payload: writer.bytes[...])
    }

    /// What the entry holds; nil when its bytes do not read.
    var entry: Entry? {
      var reader = RegistryReader(payload)
      do throws(RegistryDamage) {
        let outcome: Result<PluginRecord, Rejection> =
          isRecord ? .success(try reader.record()) : .failure(try reader.rejection())
        guard reader.isAtEnd else { return nil }
        return Entry(key: key, outcome: outcome)
      } catch {
        return nil
      }
    }

    static func == (one: StoredEntry, other: StoredEntry) -> Bool {
      one.key == other.key && one.isRecord == other.isRecord && one.payload.elementsEqual(other.payload)
    }
  }

  /// The registry file holding `entries`, written by this host, SDK and
  /// compiler unless told otherwise.
  static func encode(
    _ entries: [Entry], host: String = VivariumVersion.current, sdk: String = ViperKitVersion.current.description,
    compiler: String = swiftCompilerIdentity()
  ) -> [UInt8] {
    file(entries.map(StoredEntry.init), stamp: [host, sdk, compiler])
  }

  /// Who this host is, as a registry file's stamp says it.
  static var currentStamp: [String] {
    [VivariumVersion.current, ViperKitVersion.current.description, swiftCompilerIdentity()]
  }

  /// The registry file holding `entries`, stamped `stamp` (host, SDK, compiler).
  static func file(_ entries: [StoredEntry], stamp: [String] = currentStamp) -> [UInt8] {
    var body = RegistryWriter()
    for part in stamp { body.string(part) }
    body.list(entries) { body, entry in
      body.string(entry.key.path)
      body.fixed(UInt64(bitPattern: entry.key.size))
      body.fixed(UInt64(bitPattern: entry.key.modified))
      body.fixed(entry.key.inode)
      body.fixed(entry.key.device)
      body.flag(entry.isRecord)
      body.unsigned(UInt64(entry.payload.count))
      body.append(entry.payload)
    }
    return sealed(body.bytes)
  }

  /// `body` with the magic line and format version before it and its
  /// checksum after it: a whole registry file.
  static func sealed(_ body: [UInt8]) -> [UInt8] {
    var file = magic
    file.reserveCapacity(magic.count + 1 + body.count + 8)
    file.append(formatVersion)
    file += body
    var hash = checksum(body[...])
    for _ in 0..<8 {
      file.append(UInt8(truncatingIfNeeded: hash))
      hash >>= 8
    }
    return file
  }

  /// What a registry file holds: its entries, keys read and the rest not;
  /// nil when it was written by another format, host, SDK or compiler (a
  /// miss for every file, not damage); a failure when it is not a registry
  /// or is damaged.
  static func decode(_ file: [UInt8], path: String) -> Result<[StoredEntry]?, RegistryError> {
    guard file.starts(with: magic), file.count > magic.count else {
      return .failure(RegistryError(.notARegistry, description: "\(path) is not a plugin registry cache"))
    }
    guard file[magic.count] == formatVersion else { return .success(nil) }
    let damaged = { (why: String) in
      Result<[StoredEntry]?, RegistryError>.failure(
        RegistryError(.damaged, description: "the plugin registry cache \(path) is damaged (\(why))"))
    }
    let bodyStart = magic.count + 1
    guard file.count >= bodyStart + 8 else { return damaged("it is cut short") }
    let body = file[bodyStart..<file.count - 8]
    var stored: UInt64 = 0
    for (index, byte) in file.suffix(8).enumerated() { stored |= UInt64(byte) << (8 * UInt64(index)) }
    guard stored == checksum(body) else { return damaged("its contents do not match their checksum") }
    var reader = RegistryReader(body)
    do throws(RegistryDamage) {
      // The stamp first: what another host wrote may not read here.
      let stamp = [try reader.string(), try reader.string(), try reader.string()]
      guard stamp == currentStamp else { return .success(nil) }
      // Each entry takes at least 35 bytes: an empty path's length, four numbers, a flag and a length.
      let count = try reader.count(each: 35)
      var entries: [StoredEntry] = []
      for _ in 0..<count {
        let path = try reader.string()
        let key = PluginFileKey(
          path: path, size: Int64(bitPattern: try reader.fixed()), modified: Int64(bitPattern: try reader.fixed()),
          inode: try reader.fixed(), device: try reader.fixed())
        let isRecord = try reader.flag()
        let payload = try reader.slice(try reader.count())
        entries.append(StoredEntry(key: key, isRecord: isRecord, payload: payload))
      }
      guard reader.isAtEnd else { throw RegistryDamage("bytes follow its last entry") }
      return .success(entries)
    } catch {
      return damaged(error.description)
    }
  }

  /// A 64-bit checksum of `bytes`, eight at a time (each word mixed in by
  /// a multiply and a shift, so that a changed bit anywhere changes the
  /// whole): enough to tell a torn or altered file from the one that was
  /// written, at a few cycles a word (a cache, not a defence against a
  /// forger: anyone who can write the data directory can write plugins too).
  static func checksum(_ bytes: ArraySlice<UInt8>) -> UInt64 {
    let prime: UInt64 = 0x9E37_79B9_7F4A_7C15
    var hash: UInt64 = 0xCBF2_9CE4_8422_2325 ^ UInt64(bytes.count)
    func mix(_ word: UInt64) {
      hash = (hash ^ word) &* prime
      hash ^= hash >> 29
    }
    bytes.withUnsafeBytes { raw in
      var offset = 0
      while offset + 8 <= raw.count {
        mix(UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self)))
        offset += 8
      }
      var last: UInt64 = 0
      for (index, byte) in raw[offset...].enumerated() { last |= UInt64(byte) << UInt64(8 * index) }
      mix(last)
    }
    return hash
  }
}
