import Foundation
import VivariumLoading
import VivariumSupport

/// A permission the person grants on the command line for one session:
/// `--allow PLUGIN:KIND:SCOPE`, or `--allow PLUGIN` for everything it
/// declares. PLUGIN is the plugin's file (`libWeather.so`, or its path),
/// its file's name without `lib` and extension (`Weather`), or its
/// declared name (`WeatherPlugin`).
package struct PermissionAllowance: Sendable, Equatable {
  /// Which plugin, as the person wrote it.
  package let plugin: String
  /// Which permission; nil for every one it declares.
  package let permission: PluginPermission?

  /// The allowance `text` writes, or why it writes none.
  package static func parse(_ text: String) -> Result<PermissionAllowance, PermissionAllowanceError> {
    let plugin = String(text.prefix { $0 != ":" })
    guard !plugin.isEmpty else { return .failure(PermissionAllowanceError(text: text, namesNoPlugin: true)) }
    guard let colon = text.firstIndex(of: ":") else {
      return .success(PermissionAllowance(plugin: text, permission: nil))
    }
    guard let permission = PluginPermission(parsing: String(text[text.index(after: colon)...])) else {
      return .failure(PermissionAllowanceError(text: text, namesNoPlugin: false))
    }
    return .success(PermissionAllowance(plugin: plugin, permission: permission))
  }

  /// Whether it grants `permission` to `identity`.
  package func grants(_ permission: PluginPermission, to identity: PluginIdentity) -> Bool {
    (self.permission == nil || self.permission == permission) && Self.names(plugin, identity)
  }

  /// Whether `selector`, as a person writes it, names `identity`.
  package static func names(_ selector: String, _ identity: PluginIdentity) -> Bool {
    selector == identity.name || selector == identity.legacyStorageName
      || selector == PathName.lastComponent(identity.path)
      || (selector.contains("/") && PermissionStore.key(selector) == PermissionStore.key(identity.path))
  }
}

extension PermissionAllowance {
  /// The plugins among `plugins` that `selector` names (``names(_:_:)``);
  /// a failure naming those loaded when it names none.
  package static func plugins(named selector: String, among plugins: [PluginIdentity]) throws(PermissionNamingError)
    -> [PluginIdentity]
  {
    let named = plugins.filter { names(selector, $0) }
    guard named.isEmpty else { return named }
    let files = plugins.map { PathName.lastComponent($0.path) }.joined(separator: ", ")
    let hint = Suggestion.didYouMean(selector, among: plugins.flatMap { [$0.name, $0.legacyStorageName] })
    throw PermissionNamingError(
      description:
        "no loaded plugin is '\(selector)'\(hint); give its file, its file's name without lib and .so, or its declared name (loaded: \(files.isEmpty ? "none" : files); --plugins DIR loads others)"
    )
  }

  /// The one plugin among `plugins` that `selector` names (``names(_:_:)``),
  /// as every command taking a PLUGIN takes it; a failure naming those
  /// loaded when it names none, and their files when it names several.
  package static func plugin(named selector: String, among plugins: [PluginIdentity]) throws(PermissionNamingError)
    -> PluginIdentity
  {
    let named = try self.plugins(named: selector, among: plugins)
    guard named.count == 1 else {
      throw PermissionNamingError(
        description: "'\(selector)' names \(named.map(\.path).joined(separator: " and ")); give the file's path")
    }
    return named[0]
  }

  /// Fails, naming what they do declare, unless one of `plugins` declares `permission`.
  package static func check(_ permission: PluginPermission, isDeclaredBy plugins: [PluginIdentity])
    throws(PermissionNamingError)
  {
    guard !plugins.contains(where: { $0.permissions.contains(permission) }) else { return }
    let declared = plugins.flatMap(\.permissions).map(\.description).joined(separator: ", ")
    throw PermissionNamingError(
      description:
        "\(plugins.first?.name ?? "no plugin") does not declare \(permission); it declares \(declared.isEmpty ? "no permission" : declared)"
    )
  }
}

/// A plugin or a permission a person named that is not there.
package struct PermissionNamingError: Error, CustomStringConvertible {
  /// What was named, what is there instead, and what to do.
  package let description: String
}

/// `--allow` given something that names no plugin or no permission.
package struct PermissionAllowanceError: Error, CustomStringConvertible {
  let text: String
  let namesNoPlugin: Bool
  /// What is wrong, and how to write one.
  package var description: String {
    "--allow '\(text)' names no \(namesNoPlugin ? "plugin" : "permission"); write PLUGIN:\(PluginPermission.syntax(example: "Weather:http:api.open-meteo.com")), or PLUGIN alone for all it declares"
  }
}

/// How one session asks its person about a permission never decided (the
/// full-screen app sets ``ask``); nil where nobody can be asked.
@MainActor
package final class PermissionAsker {
  /// Asks the person about `permission` of `plugin`, the use waiting for
  /// the answer; nil when there is nobody to ask.
  package var ask: ((PluginIdentity, PluginPermission) async -> PermissionDecision)? {
    didSet { if ask != nil, oldValue == nil { becameAble?(self) } }
  }
  /// Told when ``ask`` is first set, after being nil: the host keeps the
  /// askers that can ask in the order they became able.
  var becameAble: ((PermissionAsker) -> Void)?

  /// An asker with nobody to ask yet.
  package init() {}
}

/// Where every use of a permission is decided (the host is the broker):
/// granted in the store or with `--allow`, it goes ahead; denied, or never
/// decided with nobody to ask, it is refused; never decided where a person
/// can be asked, the person of the session whose module made the use is
/// asked (its ``PermissionAsker``) while the use waits, and the answer is
/// kept for the host. Every use is logged (``PermissionLog``).
@MainActor
package final class PermissionGate {
  /// The person's decisions.
  package private(set) var store: PermissionStore
  /// The log of uses.
  package let log: PermissionLog
  /// What the person granted for this session on the command line.
  package var allowances: [PermissionAllowance] = []
  /// Who is asked about a use no session's module made (a business service
  /// provider's, which serves every session): nil for nobody.
  package var askerForTheHost: () -> PermissionAsker? = { nil }
  /// The host's clock, for the log.
  let now: () -> Double
  /// Why decisions cannot be kept (a read-only session); they then last the session.
  let saveRefusal: String?
  /// Where a problem with the store or the log is told.
  var report: (String) -> Void = { _ in }
  /// How a hint names the `vivarium permissions` that changes a decision:
  /// with the directories this host runs on.
  package var invocation = Invocation.plain
  /// Answers to questions already asked this session that could not be
  /// kept in the store (a read-only session, a store that cannot be saved).
  private var answered: [String: PermissionDecision] = [:]
  /// Per kind of refusal (file, permission, outcome): the last one, and how
  /// many since the last line written.
  private var refused: [String: (last: PermissionUse, more: Int)] = [:]
  /// Questions being asked, by asker and permission, so that the uses
  /// waiting on one share its answer.
  private var asking: [String: Task<PermissionDecision, Never>] = [:]

  /// A gate over the decisions and the log in `dataDirectory`.
  package init(dataDirectory: String, saveRefusal: String?, now: @escaping () -> Double) {
    store = PermissionStore(dataDirectory: dataDirectory)
    log = PermissionLog(dataDirectory: dataDirectory)
    self.saveRefusal = saveRefusal
    self.now = now
  }

  /// What holds for `permission` of `plugin` now, without asking.
  package func decision(_ permission: PluginPermission, for plugin: PluginIdentity) -> PermissionDecision {
    if allowances.contains(where: { $0.grants(permission, to: plugin) }) { return .granted }
    if let answer = answered[Self.key(permission, plugin)] { return answer }
    return store.decision(permission, for: plugin)
  }

  /// Decides one use of `permission` by `plugin` (`what` says what for,
  /// for the log), asking the person through `asker` (that of the session
  /// whose module made the use; nil: ``askerForTheHost``) when it was never
  /// decided and there is someone to ask; how it ended, logged.
  package func use(
    _ permission: PluginPermission, by plugin: PluginIdentity, for what: String, asking asker: PermissionAsker?
  ) async -> PermissionOutcome {
    // Read again: `vivarium permissions` may have changed it meanwhile.
    store.reload()
    var decision = decision(permission, for: plugin)
    if decision == .undecided, let asker = asker ?? askerForTheHost(), let ask = asker.ask {
      let key = "\(ObjectIdentifier(asker).hashValue)\u{0}" + Self.key(permission, plugin)
      let question =
        asking[key]
        ?? Task { @MainActor in
          let answer = await ask(plugin, permission)
          self.keep(answer, permission, for: plugin)
          self.asking[key] = nil
          return answer
        }
      asking[key] = question
      decision = await question.value
    }
    let outcome: PermissionOutcome =
      switch decision {
      case .granted: .allowed
      case .denied: .denied
      case .undecided: .notGranted
      }
    record(outcome, permission, by: plugin, for: what)
    return outcome
  }

  /// Logs a use that needs no decision (``PermissionOutcome/undeclared``).
  package func record(
    _ outcome: PermissionOutcome, _ permission: PluginPermission, by plugin: PluginIdentity, for what: String
  ) {
    guard saveRefusal == nil else { return }
    let use = PermissionUse(
      time: now(), plugin: plugin.name, file: PermissionStore.key(plugin.path), permission: permission.description,
      what: what, outcome: outcome)
    guard outcome != .allowed else {
      if let problem = log.append(use) { report(problem) }
      return
    }
    // Refusals of one kind are counted: the first is a line, then one for
    // each ``refusalsPerLine`` more, and one for the rest when the gate goes.
    // Hosts a plugin does not declare are one kind: a plugin cannot make a
    // line, or a count kept here, per name it makes up.
    let scope = outcome == .undeclared ? "any host it does not declare" : use.permission
    let kind = [use.file, scope, outcome.rawValue].joined(separator: "\n")
    guard let counted = refused[kind] else {
      // Kept for a bounded number of kinds: past it, what is counted is written.
      if refused.count >= Self.refusalKinds { flushRefusals() }
      refused[kind] = (use, 0)
      if let problem = log.append(use) { report(problem) }
      return
    }
    refused[kind] = (use, counted.more + 1)
    if counted.more + 1 == Self.refusalsPerLine { flushRefusals(of: kind) }
  }

  /// How many refusals of one kind one line of the log stands for, at most.
  static let refusalsPerLine = 1_000
  /// How many kinds of refusal are counted at once.
  static let refusalKinds = 256

  /// Writes the refusals of `kind` counted and not yet written as one line.
  private func flushRefusals(of kind: String) {
    guard var counted = refused[kind], counted.more > 0 else { return }
    counted.last.count = counted.more > 1 ? counted.more : nil
    if let problem = log.append(counted.last) { report(problem) }
    refused[kind] = (counted.last, 0)
  }

  /// Writes every count of refusals not yet written (the host is quitting,
  /// or too many kinds are counted), and starts counting afresh.
  package func flushRefusals() {
    for kind in refused.keys { flushRefusals(of: kind) }
    refused.removeAll()
  }

  /// Keeps the person's answer: in the store, or for the session when it
  /// cannot be saved.
  private func keep(_ answer: PermissionDecision, _ permission: PluginPermission, for plugin: PluginIdentity) {
    guard answer != .undecided else { return }
    if saveRefusal == nil {
      do {
        // Kept in the store only, so that a later `vivarium permissions` change counts.
        return try store.decide(answer, [permission], for: plugin)
      } catch {
        report("\(error); the answer about \(permission) for \(plugin.name) holds until the app quits")
      }
    }
    answered[Self.key(permission, plugin)] = answer
  }

  private static func key(_ permission: PluginPermission, _ plugin: PluginIdentity) -> String {
    "\(PermissionStore.key(plugin.path))\u{0}\(plugin.name)\u{0}\(permission)"
  }
}
