import Foundation
import VivariumLoading
import VivariumSupport

/// What the person decided about a permission of one plugin.
package enum PermissionDecision: String, Sendable, Codable {
  /// Granted: its uses go ahead.
  case granted
  /// Denied: its uses are refused, and the person is not asked again.
  case denied
  /// Never decided: refused, and the full-screen app asks at its first use.
  case undecided = "not-decided"
}

/// The person's decisions about plugins' permissions, kept in
/// `permissions.json` in the data directory (Flatpak's permission store,
/// Chrome's granted permissions).
///
/// A decision belongs to a plugin file and the name it declares, not to
/// the name alone (which any plugin can claim): another file declaring the
/// same name gets none of it. A new build of the same file keeps what was
/// decided for the permissions it still declares; one that declares a
/// permission never decided ``isWidened(_:)``, and stays off until the
/// person decides (``PermissionGate``).
///
/// The file is read again before every change, so that `vivarium
/// permissions grant` beside a running app loses neither's decisions; a
/// file that cannot be read is never overwritten (nothing a person saved
/// is lost): its decisions count as none, and changes fail, naming it.
package struct PermissionStore: Sendable {
  /// One plugin file's decisions.
  struct Entry: Codable, Equatable, Sendable {
    /// The plugin file's absolute path.
    var file: String
    /// The name the plugin declared when the person decided.
    var plugin: String
    /// What was granted and denied, as `KIND:SCOPE`.
    var granted: [String]
    var denied: [String]
    /// Every permission the plugin declared when the person decided, as
    /// `KIND:SCOPE`: a build asking for one not among them asks for more.
    /// Nil in a store written before it was kept: then what was decided.
    var seen: [String]? = nil

    /// What the builds the person decided about declared.
    var known: Set<String> { Set(seen ?? granted + denied) }
  }

  private struct Contents: Codable {
    var format = 1
    var plugins: [Entry] = []
  }

  /// The file: `permissions.json` in the data directory.
  package let path: String
  private var entries: [Entry] = []
  /// Why the file could not be read, when it could not.
  package private(set) var damage: String?
  /// The file as it was when last read; nil when there was none.
  private var readAs: FileSignature?

  /// The decisions kept in `dataDirectory`.
  package init(dataDirectory: String) {
    path = dataDirectory + "/permissions.json"
    read()
  }

  /// Reads the file again if it changed since it was read (another
  /// process's `vivarium permissions`): a look at its signature, not a read.
  package mutating func reload() {
    if FileSignature(path) != readAs || damage != nil { read() }
  }

  /// Reads the file as every file of the data directory is read
  /// (``FileContents/read(_:limit:holds:)``: no link, no FIFO, yours, small).
  private mutating func read() {
    readAs = FileSignature(path)
    entries = []
    damage = nil
    let unusable: String
    switch FileContents.read(path, limit: FileContents.Limit.permissions) {
    case .missing: return
    case .failed(let code): unusable = AtomicFile.errorText(code)
    case .refused(let reason): unusable = reason
    case .data(let data):
      do {
        entries = try JSONDecoder().decode(Contents.self, from: data).plugins
        return
      } catch {
        unusable = "it is not a permission store: \(error)"
      }
    }
    damage = "\(path) cannot be used (\(unusable)); no permission counts as granted until it is fixed or removed"
  }

  /// What was decided about `permission` for `plugin`.
  package func decision(_ permission: PluginPermission, for plugin: PluginIdentity) -> PermissionDecision {
    guard let entry = entry(for: plugin) else { return .undecided }
    if entry.granted.contains(permission.description) { return .granted }
    if entry.denied.contains(permission.description) { return .denied }
    return .undecided
  }

  /// Every permission decided for `plugin`'s file and name, declared by it
  /// or not (a build before it may have declared more).
  package func decided(for plugin: PluginIdentity) -> [(permission: String, decision: PermissionDecision)] {
    guard let entry = entry(for: plugin) else { return [] }
    return (entry.granted.map { ($0, .granted) } + entry.denied.map { ($0, .denied) }).sorted { $0.0 < $1.0 }
  }

  /// The permissions `plugin` asks for that were never decided, none of
  /// `allowances` granting them, when the person decided about this plugin
  /// file before: a new build that asks for more. Empty otherwise.
  package func widening(_ plugin: PluginIdentity, allowances: [PermissionAllowance] = []) -> [PluginPermission] {
    guard let entry = entry(for: plugin) else { return [] }
    let known = entry.known
    return plugin.permissions.filter { permission in
      !known.contains(permission.description) && decision(permission, for: plugin) == .undecided
        && !allowances.contains { $0.grants(permission, to: plugin) }
    }
  }

  /// `outcomes` with each loaded plugin that ``widening(_:allowances:)``
  /// finds kept off (``Rejection/Kind/permissionsWidened``), the commands
  /// that decide written as `invocation` names them.
  package func keepingOffWidened(
    _ outcomes: [PluginOutcome], allowances: [PermissionAllowance], invocation: Invocation = .plain
  ) -> [PluginOutcome] {
    outcomes.map { outcome in
      guard case .loaded(let plugin) = outcome else { return outcome }
      let asked = widening(
        PluginIdentity(plugin), allowances: allowances)
      return asked.isEmpty
        ? outcome : .rejected(.widened(plugin.path, name: plugin.name, asked: asked, invocation: invocation))
    }
  }

  /// Records `decision` for each of `permissions` of `plugin`, after
  /// reading the file again, and saves it.
  package mutating func decide(
    _ decision: PermissionDecision, _ permissions: [PluginPermission], for plugin: PluginIdentity
  )
    throws
  {
    read()
    if let damage { throw PermissionStoreError(description: damage) }
    let file = Self.key(plugin.path)
    var entry =
      entries.first { $0.file == file && $0.plugin == plugin.name }
      ?? Entry(file: file, plugin: plugin.name, granted: [], denied: [])
    let named = Set(permissions.map(\.description))
    entry.seen = entry.known.union(plugin.permissions.map(\.description)).sorted()
    entry.granted.removeAll { named.contains($0) }
    entry.denied.removeAll { named.contains($0) }
    switch decision {
    case .granted: entry.granted = (entry.granted + named).sorted()
    case .denied: entry.denied = (entry.denied + named).sorted()
    case .undecided: break
    }
    entries.removeAll { $0.file == file && $0.plugin == plugin.name }
    if !entry.granted.isEmpty || !entry.denied.isEmpty { entries.append(entry) }
    try save()
  }

  private mutating func save() throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    let data = try encoder.encode(Contents(plugins: entries.sorted { ($0.file, $0.plugin) < ($1.file, $1.plugin) }))
    try FileManager.default.createDirectory(
      atPath: PathName.parent(path), withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    do {
      try AtomicFile.write(data + Data("\n".utf8), to: path)
    } catch {
      throw PermissionStoreError(description: error.description)
    }
    readAs = FileSignature(path)
  }

  private func entry(for plugin: PluginIdentity) -> Entry? {
    // Resolving the path costs an lstat per component: only for a name decided about.
    guard entries.contains(where: { $0.plugin == plugin.name }) else { return nil }
    let file = Self.key(plugin.path)
    return entries.first { $0.file == file && $0.plugin == plugin.name }
  }

  /// The file's absolute path, links resolved: how a decision names it.
  package static func key(_ path: String) -> String {
    URL(fileURLWithPath: path).resolvingSymlinksInPath().standardizedFileURL.path
  }
}

/// The permission store could not be saved.
package struct PermissionStoreError: Error, CustomStringConvertible {
  /// What failed, naming the file.
  package let description: String
}
