import Foundation
import Glibc
import Synchronization
import ViperKit
import VivariumLoading
import VivariumSupport

/// A save refused before anything was written, and why.
struct SaveRefused: Error, CustomStringConvertible {
  let description: String

  init(description: String) { self.description = description }

  /// `could not save PATH: REASON`.
  init(path: String, reason: String) { description = "could not save \(path): \(reason)" }
}

/// A dictionary saved as a JSON file (`NAME.json`, the snapshot) and a
/// journal beside it (`NAME.journal`, ``StoreJournal``): a save appends one
/// record, what changed, and flushes it to disk before it returns, so that
/// saving one key costs what that key takes, not the whole store; the
/// journal is folded into a new snapshot once it outgrows the snapshot, so
/// a store is rewritten once per its own size of records, not once per save.
///
/// Two instances over the same files, in one process or two, never
/// overwrite each other's saves: each save takes an exclusive `flock` on
/// the journal, first reads the records others appended since (or, when
/// another folded the journal, the new snapshot), and only then appends
/// its own; a snapshot is written from what is saved, under that lock.
///
/// Only a missing file starts empty. A file that cannot be read or decoded is
/// moved aside (`NAME.unreadable-N`) rather than overwritten, and the problem
/// is reported through `onProblem`; if it cannot be moved aside, saves are
/// refused so that it is never overwritten. Nothing a person saved is
/// destroyed by the host.
@MainActor
final class PersistentDictionary<Value: Codable & Equatable> {
  let path: String
  /// The journal beside the snapshot.
  let journalPath: String
  private(set) var values: [String: Value] = [:]
  /// Why saves are refused, when they are.
  private(set) var refusal: String?
  /// Who last changed each key, when saves name who (``set(_:forKey:by:within:)``).
  private(set) var writers: [String: String] = [:]
  /// Who is told of each change, while they live (``observe(by:_:)``).
  private var observers: [(owner: Weak, changed: @MainActor (String, Value?) -> Void)] = []
  /// What each key takes in a snapshot (`"key":value`), and what each
  /// writer's keys take together.
  private var sizes: [String: Int] = [:]
  private var writerBytes: [String: Int] = [:]
  private var totalSizes = 0
  /// The journal, open (and locked during a save), which one it is, and how
  /// much of it `values` holds.
  private var journal: Int32 = -1
  private var journalIdentity: StoreJournal.Identity?
  private var journalOffset = 0
  /// The size of the snapshot as last read or written, and whether there is one.
  private var snapshotBytes = 0
  private var snapshotExists = false
  /// Keys the journal changed since the last catching up, and keys
  /// changed that the observers have not been told of.
  private var touched: [String] = []
  private var untold: [String] = []
  private let read: (String) -> FileContents
  private let onProblem: @MainActor (String) -> Void

  /// The least a journal grows to before it is folded into a snapshot.
  static var smallestJournal: Int { 64 * 1024 }

  /// Loads `path` (``FileContents/read(_:limit:)``) and its journal. With
  /// `refusal` (a read-only session), the files are only read: a bad one is
  /// left where it is, and every save throws `refusal`. `read` reads a whole
  /// snapshot; tests pass failures of their own.
  init(
    path: String, refusal: String? = nil,
    read: @escaping (String) -> FileContents = { FileContents.read($0, limit: FileContents.Limit.store) },
    onProblem: @escaping @MainActor (String) -> Void
  ) {
    self.path = path
    journalPath = StoreJournal.path(beside: path)
    self.refusal = refusal
    self.read = read
    self.onProblem = onProblem
    if refusal != nil {
      loadSnapshot()
      if case .data(let data) = FileContents.read(journalPath, limit: FileContents.Limit.storeJournal) {
        _ = replay(data[...], from: 0)
      }
      touched = []
      return
    }
    do {
      try withLockedJournal {}
    } catch {
      // What was saved is read all the same; saves will try again, and say
      // why they fail.
      if journalIdentity == nil { loadSnapshot() }
      onProblem("\(journalPath) could not be opened (\(error)); saves will try again")
    }
    untold = []
  }

  deinit { if journal >= 0 { close(journal) } }

  /// Reads the snapshot into `values`; a bad one is moved aside (or saves
  /// refused).
  private func loadSnapshot() {
    values = [:]
    writers = [:]
    snapshotBytes = 0
    snapshotExists = false
    switch read(path) {
    case .missing:
      break
    case .failed(let code):
      keepAside(reason: AtomicFile.errorText(code))
    case .refused(let reason):
      keepAside(reason: reason, as: "refused")
    case .data(let data):
      do {
        values = try JSONDecoder().decode([String: Value].self, from: data)
        snapshotBytes = data.count
        snapshotExists = true
      } catch {
        keepAside(reason: "it is not a JSON object of saved values")
      }
    }
    recount()
  }

  /// Moves the file at `path` to the first free `path.LABEL-N`, or, when
  /// that fails or this session may not write, leaves it and refuses saves.
  private func keepAside(reason: String, as label: String = "unreadable") {
    guard refusal == nil else {
      onProblem("\(path) could not be used (\(reason)); this read-only session leaves it as it is and starts empty")
      return
    }
    switch FileContents.setAside(path, as: label) {
    case .failure(let error):
      let problem =
        "\(path) could not be used (\(reason)) nor moved aside (\(error.description)); saves to it are refused so that it is not overwritten: repair or move it, then start again"
      refusal = problem
      onProblem(problem)
    case .success(let aside):
      onProblem("\(path) could not be used (\(reason)); it was kept as \(aside) and a new one started")
    }
  }

  /// Sets or removes `key`, then saves; on failure nothing changes. With
  /// `writer`, the key is counted as `writer`'s, and with `quota` too, a
  /// save that would take what `writer`'s keys take past `quota` bytes (and
  /// makes them larger) is refused.
  func set(_ value: Value?, forKey key: String, by writer: String? = nil, within quota: Int? = nil) throws {
    if let refusal {
      guard values[key] != value else { return }
      throw SaveRefused(description: refusal)
    }
    defer { tell() }
    try withLockedJournal {
      guard values[key] != value else { return }
      let size = try value.map { try Self.size(key: key, value: $0) } ?? 0
      let old = sizes[key] ?? 0
      let count = values.count + (values[key] == nil ? 1 : 0) - (value == nil ? 1 : 0)
      let total = 2 + totalSizes - old + size + max(0, count - 1)
      // What could not be read back at the next start is not written.
      guard total <= FileContents.Limit.store else {
        throw SaveRefused(
          description:
            "not saved: \(path) would take \(total) bytes, over the \(FileContents.Limit.store >> 20) MiB the host reads back; keep less in it"
        )
      }
      if let writer, let quota {
        let before = writerBytes[writer] ?? 0
        let after = before - (writers[key] == writer ? old : 0) + size
        guard after <= quota || after <= before else {
          throw SaveRefused(
            description:
              "not saved: what \(writer) keeps in \(PathName.lastComponent(path)) would take \(after) bytes, over the \(StoreJournal.describe(quota)) each plugin may keep there; remove some of it"
          )
        }
      }
      let line = try StoreJournal.line(StoreJournal.Record(key: key, value: value, writer: writer))
      if journalOffset + line.count > FileContents.Limit.storeJournal { try fold() }
      try append(line)
      apply(key, value, writer: writer)
      touched = []
      untold.append(key)
      // Folded once it outgrows the snapshot, and at the first save, so
      // that the store's file is there: the save is on disk already, so a
      // fold that fails leaves the journal for the next save to fold.
      if journalOffset > max(Self.smallestJournal, snapshotBytes) || !snapshotExists { try? fold() }
    }
  }

  /// Catches up with what another instance saved since it last looked (a
  /// `vivarium settings` beside a running app), and tells the observers:
  /// one look at the journal's name when nothing was saved. A read-only
  /// instance, which never locks, does not look.
  func refresh() {
    guard refusal == nil else { return }
    if let identity = StoreJournal.identity(at: journalPath), identity == journalIdentity,
      identity.size == journalOffset
    {
      return
    }
    do {
      try withLockedJournal {}
    } catch {
      onProblem("\(journalPath) could not be read again (\(error)); what was saved elsewhere shows at the next save")
    }
    tell()
  }

  /// Appends `line` to the journal and flushes it to disk; on failure,
  /// the journal is cut back to what it was.
  private func append(_ line: Data) throws {
    let failure = line.withUnsafeBytes { DescriptorOutput.write($0, to: journal) }
    let code = failure ?? (fdatasync(journal) == 0 ? nil : errno)
    if let code {
      _ = ftruncate(journal, off_t(journalOffset))
      throw SaveRefused(path: journalPath, reason: "cannot append to it: \(AtomicFile.errorText(code))")
    }
    journalOffset += line.count
    StoreJournal.written.add(line.count, ordering: .relaxed)
  }

  /// Opens (creating it) and locks the journal, catches up with what other
  /// instances saved, runs `body`, and unlocks.
  private func withLockedJournal(_ body: () throws -> Void) throws {
    while true {
      if journal < 0 { journal = try StoreJournal.open(journalPath) }
      while flock(journal, LOCK_EX) != 0 {
        guard errno == EINTR else {
          throw SaveRefused(path: journalPath, reason: "cannot lock it: \(AtomicFile.errorText(errno))")
        }
      }
      // Another instance folded it and put a new one in its place: that one.
      if StoreJournal.identity(of: journal) == StoreJournal.identity(at: journalPath) { break }
      close(journal)
      journal = -1
    }
    defer { if journal >= 0 { flock(journal, LOCK_UN) } }
    try catchUp()
    try body()
  }

  /// Brings `values` up to the journal (from the snapshot, when it is a
  /// journal this instance has not read), noting the keys that changed.
  private func catchUp() throws {
    let identity = StoreJournal.identity(of: journal)
    let before = values
    var fromStart = false
    if identity != journalIdentity {
      loadSnapshot()
      journalIdentity = identity
      journalOffset = 0
      fromStart = true
    }
    let size = Int(identity?.size ?? 0)
    if size > journalOffset {
      guard size <= FileContents.Limit.storeJournal else {
        throw SaveRefused(
          description:
            "not saved: \(journalPath) takes \(size) bytes, over the \(FileContents.Limit.storeJournal >> 20) MiB the host reads back; move it aside and start again"
        )
      }
      var data = Data(count: size - journalOffset)
      let got = data.withUnsafeMutableBytes { pread(journal, $0.baseAddress, $0.count, off_t(journalOffset)) }
      guard got == data.count else {
        throw SaveRefused(path: journalPath, reason: "cannot read it: \(AtomicFile.errorText(errno))")
      }
      let replayed = replay(data[...], from: journalOffset)
      journalOffset += replayed.consumed
      if let damage = replayed.damage {
        // Kept, whole, beside a snapshot of what could be read of it.
        let aside = FileContents.setAside(journalPath, as: "unreadable")
        let kept = (try? aside.get()).map { "it was kept as \($0)" } ?? "it could not be moved aside"
        onProblem("\(journalPath) could not be read whole (\(damage)); \(kept) and a new one started")
        try fold()
      } else if journalOffset < size {
        // What follows the last whole record (a record a crash cut short) is
        // cut off, so that the next record starts a line of its own.
        _ = ftruncate(journal, off_t(journalOffset))
      }
    }
    let keys = fromStart ? Set(before.keys).union(values.keys) : Set(touched)
    untold += keys.filter { before[$0] != values[$0] }.sorted()
    touched = []
  }

  /// Applies the whole records of `data` (the journal from `offset`): how
  /// many bytes they took, and the damage that stopped them, if any.
  private func replay(_ data: Data.SubSequence, from offset: Int) -> (consumed: Int, damage: String?) {
    var consumed = 0
    let decoder = JSONDecoder()
    var start = data.startIndex
    while let end = data[start...].firstIndex(of: UInt8(ascii: "\n")) {
      let line = data[start..<end]
      guard let payload = NavigationJournal.payload(of: line),
        let record = try? decoder.decode(StoreJournal.Record<Value>.self, from: payload)
      else {
        return (consumed, "the record at byte \(offset + consumed) is damaged")
      }
      if let header = record.writers {
        writers = header
        recount()
      } else if let key = record.key {
        apply(key, record.value, writer: record.writer)
      }
      consumed += end - start + 1
      start = data.index(after: end)
    }
    return (consumed, nil)
  }

  /// Sets `key` to `value` in memory, counting it as `writer`'s.
  private func apply(_ key: String, _ value: Value?, writer: String?) {
    touched.append(key)
    uncount(key)
    values[key] = value
    writers[key] = value == nil ? nil : writer
    count(key)
  }

  private func uncount(_ key: String) {
    let old = sizes.removeValue(forKey: key) ?? 0
    totalSizes -= old
    if let writer = writers[key] { writerBytes[writer, default: 0] -= old }
  }

  private func count(_ key: String) {
    guard let value = values[key] else { return }
    let size = (try? Self.size(key: key, value: value)) ?? 0
    sizes[key] = size
    totalSizes += size
    if let writer = writers[key] { writerBytes[writer, default: 0] += size }
  }

  /// Counts every key again.
  private func recount() {
    sizes = [:]
    writerBytes = [:]
    totalSizes = 0
    writers = writers.filter { values[$0.key] != nil }
    for key in values.keys { count(key) }
  }

  /// What `"key":value` takes in a snapshot.
  private static func size(key: String, value: Value) throws -> Int {
    let encoder = JSONEncoder()
    return try encoder.encode(key).count + 1 + encoder.encode(value).count
  }

  /// Writes a snapshot of `values` and starts a new journal in place of the
  /// old (renamed over it, locked before it is: others wait for this
  /// instance, then read the new snapshot). Killed in between, the old
  /// journal is replayed onto the new snapshot, which holds it already.
  private func fold() throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    let data = try encoder.encode(values)
    try AtomicFile.write(data, to: path)
    StoreJournal.written.add(data.count, ordering: .relaxed)
    let header = writers.isEmpty ? Data() : try StoreJournal.line(StoreJournal.Record<Value>(writers: writers))
    let fresh = try StoreJournal.replace(journalPath, with: header)
    StoreJournal.written.add(header.count, ordering: .relaxed)
    if journal >= 0 { close(journal) }
    journal = fresh
    journalIdentity = StoreJournal.identity(of: fresh)
    journalOffset = header.count
    snapshotBytes = data.count
    snapshotExists = true
  }

  /// Tells the observers about the keys changed since they were last told.
  private func tell() {
    let keys = untold
    untold = []
    guard !keys.isEmpty else { return }
    observers.removeAll { $0.owner.object == nil }
    for key in keys {
      for observer in observers { observer.changed(key, values[key]) }
    }
  }

  /// Has `changed` called with each key saved and its new value (nil:
  /// removed) after the save, for as long as `owner` lives; replaces what
  /// `owner` observed before.
  func observe(by owner: AnyObject, _ changed: @escaping @MainActor (String, Value?) -> Void) {
    observers.removeAll { $0.owner.object == nil || $0.owner.object === owner }
    observers.append((Weak(owner), changed))
  }
}

/// The journal beside a store (``PersistentDictionary``): one record a
/// line, each its checksum, a space and its JSON (as ``NavigationJournal``'s),
/// so that a record a crash cut short is left out. A record sets a key
/// (`{"k":KEY,"v":VALUE,"w":WRITER}`) or removes it (`{"k":KEY,"d":true}`);
/// a journal that holds who wrote what starts with it (`{"writers":{…}}`).
enum StoreJournal {
  /// `NAME.journal` beside `NAME.json`.
  static func path(beside path: String) -> String {
    (path.hasSuffix(".json") ? String(path.dropLast(5)) : path) + ".journal"
  }

  /// Bytes written to stores' snapshots and journals by this process, for the benchmark.
  static let written = Atomic<Int>(0)

  /// One line of a journal.
  struct Record<Value: Codable>: Codable {
    var key: String?
    var value: Value?
    var writer: String?
    var writers: [String: String]?

    init(key: String, value: Value?, writer: String?) {
      self.key = key
      self.value = value
      self.writer = writer
    }

    init(writers: [String: String]) { self.writers = writers }

    enum CodingKeys: String, CodingKey { case key = "k", value = "v", deleted = "d", writer = "w", writers }

    init(from decoder: any Decoder) throws {
      let container = try decoder.container(keyedBy: CodingKeys.self)
      key = try container.decodeIfPresent(String.self, forKey: .key)
      writer = try container.decodeIfPresent(String.self, forKey: .writer)
      writers = try container.decodeIfPresent([String: String].self, forKey: .writers)
      let deleted = try container.decodeIfPresent(Bool.self, forKey: .deleted) ?? false
      if key != nil && !deleted { value = try container.decode(Value.self, forKey: .value) }
    }

    func encode(to encoder: any Encoder) throws {
      var container = encoder.container(keyedBy: CodingKeys.self)
      try container.encodeIfPresent(key, forKey: .key)
      if let value {
        try container.encode(value, forKey: .value)
      } else if key != nil {
        try container.encode(true, forKey: .deleted)
      }
      try container.encodeIfPresent(writer, forKey: .writer)
      try container.encodeIfPresent(writers, forKey: .writers)
    }
  }

  /// The line holding `record`.
  static func line<Value>(_ record: Record<Value>) throws -> Data {
    NavigationJournal.line(try JSONEncoder().encode(record))
  }

  /// Which file a journal is, and how long.
  struct Identity: Equatable {
    let device: UInt
    let inode: UInt
    var size: Int = 0

    static func == (left: Identity, right: Identity) -> Bool {
      left.device == right.device && left.inode == right.inode
    }
  }

  static func identity(of fd: Int32) -> Identity? {
    var info = stat()
    guard fstat(fd, &info) == 0 else { return nil }
    return Identity(device: UInt(info.st_dev), inode: UInt(info.st_ino), size: Int(info.st_size))
  }

  static func identity(at path: String) -> Identity? {
    var info = stat()
    guard lstat(path, &info) == 0 else { return nil }
    return Identity(device: UInt(info.st_dev), inode: UInt(info.st_ino), size: Int(info.st_size))
  }

  /// The journal at `path`, open for appending (created, with its folder,
  /// if missing; never through a link, and only a regular file).
  static func open(_ path: String) throws -> Int32 {
    let flags = O_RDWR | O_APPEND | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC
    var fd = Glibc.open(path, flags, 0o600)
    if fd < 0 && errno == ENOENT {
      try? FileManager.default.createDirectory(
        atPath: PathName.parent(path), withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
      fd = Glibc.open(path, flags, 0o600)
    }
    guard fd >= 0 else {
      throw SaveRefused(path: path, reason: "cannot open it: \(AtomicFile.errorText(errno))")
    }
    var info = stat()
    guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
      close(fd)
      throw SaveRefused(path: path, reason: "it is not a regular file; move it aside")
    }
    return fd
  }

  /// Puts a new journal holding `header` at `path` (written, flushed,
  /// locked, then renamed over the old one): its descriptor, locked.
  static func replace(_ path: String, with header: Data) throws -> Int32 {
    let temporary = "\(PathName.parent(path))/.\(PathName.lastComponent(path)).\(getpid()).tmp"
    let fd = Glibc.open(temporary, O_RDWR | O_APPEND | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0o600)
    guard fd >= 0 else {
      throw SaveRefused(path: path, reason: "cannot create \(temporary): \(AtomicFile.errorText(errno))")
    }
    let failure =
      header.withUnsafeBytes { DescriptorOutput.write($0, to: fd) } ?? (fsync(fd) == 0 ? nil : errno)
      ?? (flock(fd, LOCK_EX) == 0 ? nil : errno) ?? (rename(temporary, path) == 0 ? nil : errno)
    guard let failure else {
      AtomicFile.flushDirectory(of: path)
      return fd
    }
    close(fd)
    unlink(temporary)
    throw SaveRefused(path: path, reason: "cannot start a new journal: \(AtomicFile.errorText(failure))")
  }

  /// `1 MiB`, `512 KiB`.
  static func describe(_ bytes: Int) -> String {
    bytes >= 1 << 20 && bytes % (1 << 20) == 0 ? "\(bytes >> 20) MiB" : "\(bytes >> 10) KiB"
  }
}

/// A reference that does not keep its object alive.
struct Weak {
  weak var object: AnyObject?
  init(_ object: AnyObject) { self.object = object }
}

/// Storage for a plugin that may have none (see ``PluginIdentity``): empty,
/// and every save throws the reason.
final class RefusedKeyValueStore: KeyValueStore {
  let reason: String

  init(reason: String) { self.reason = reason }

  func value(forKey key: String) -> String? { nil }
  func set(_ value: String?, forKey key: String) throws { throw SaveRefused(description: reason) }
  func keys() -> [String] { [] }
}

extension RefusedKeyValueStore: CopiedStore {
  var entries: [String: ArgumentValue] { [:] }
  /// It never changes.
  func observe(by owner: AnyObject, _ changed: @escaping @MainActor (String, ArgumentValue?) -> Void) {}
}

/// A store kept in a ``PersistentDictionary``: a plugin's private storage
/// (``FileKeyValueStore``) or the app-wide settings (``FileSettingsStore``).
@MainActor
final class FileStore<Value: StoredValue> {
  let dictionary: PersistentDictionary<Value>

  init(_ dictionary: PersistentDictionary<Value>) {
    self.dictionary = dictionary
  }

  func value(forKey key: String) -> Value? { dictionary.values[key] }
  func set(_ value: Value?, forKey key: String) throws { try dictionary.set(value, forKey: key) }
}

/// A plugin's private storage: one JSON file per plugin in the data directory.
typealias FileKeyValueStore = FileStore<String>

/// App-wide settings: one JSON file in the data directory.
typealias FileSettingsStore = FileStore<ArgumentValue>

extension FileStore: KeyValueStore where Value == String {
  func keys() -> [String] { dictionary.values.keys.sorted() }
}

extension FileStore: SettingsStore where Value == ArgumentValue {}

extension FileStore: CopiedStore {
  var entries: [String: ArgumentValue] { dictionary.values.mapValues(\.argumentValue) }
  func observe(by owner: AnyObject, _ changed: @escaping @MainActor (String, ArgumentValue?) -> Void) {
    dictionary.observe(by: owner) { changed($0, $1?.argumentValue) }
  }
}

/// What a ``FileStore`` holds: a value saved as JSON that a plugin
/// process's copy of the store (``CopiedStore``) holds as an argument value.
protocol StoredValue: Codable, Equatable {
  /// The value as a plugin process's copy holds it.
  var argumentValue: ArgumentValue { get }
}

extension String: StoredValue {
  /// A ``ViperKit/ArgumentValue/string(_:)``.
  var argumentValue: ArgumentValue { .string(self) }
}

extension ArgumentValue: StoredValue {
  /// Itself.
  var argumentValue: ArgumentValue { self }
}
