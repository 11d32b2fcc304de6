import ViperKit
import ViperKitHosting
import VivariumSupport

/// A plugin that passed every check and whose modules the host can build.
package struct LoadedPlugin: Sendable {
  /// The file it was loaded from.
  package let path: String
  /// The name from its descriptor.
  package let name: String
  /// The SDK version it was built against.
  package let sdkVersion: ViperKitVersion
  /// Its own version (``ViperKit/ViperPlugin/version``): `0.0.0` when it declares none.
  package internal(set) var version = SemanticVersion(0)
  /// The business services it provides (``ViperKit/ViperPlugin/provides``).
  package internal(set) var provides: [ServiceProvision] = []
  /// The implementations of those services, when the plugin is loaded in this process.
  package internal(set) var providerTypes: [any ServiceProvider.Type] = []
  /// The hosts it may reach through the host's http service (``ViperKit/ViperPlugin/hosts``).
  package internal(set) var hosts: [String] = []
  /// The topics of events it publishes and subscribes to.
  package internal(set) var topics = PluginTopics()
  /// Where each of its modules comes from, at least one, in the order of
  /// its factories.
  package let modules: [ModuleSource]
  /// How long loading it into this process took: dlopen, entry, factories.
  package private(set) var loadTime: Duration
  /// The descriptor it was loaded from (``PluginFile``), kept open for good;
  /// nil for factories that were already in this process.
  package var fileDescriptor: Int32?
  /// The process hosting it, when it runs in a process of its own.
  package internal(set) var process: PluginSupervisor?
  /// For a plugin known from a scan: what loads it when one of its modules
  /// is first built. Its ``modules`` build through it.
  package internal(set) var activation: PluginActivation?
  /// Where the host learned what the plugin offers; nil for factories that
  /// were already in this process.
  package internal(set) var source: ScanSource?

  /// Describes factories that are already in this process, for hosts and
  /// harnesses that build modules without a plugin file.
  package init(
    path: String, name: String, sdkVersion: ViperKitVersion = .current, factories: [any ModuleFactory],
    loadTime: Duration = .zero
  ) {
    self.init(path: path, name: name, sdkVersion: sdkVersion, modules: factories.map(ModuleSource.factory))
    self.loadTime = loadTime
  }

  /// A plugin whose modules come from `modules`.
  init(path: String, name: String, sdkVersion: ViperKitVersion, modules: [ModuleSource]) {
    self.path = path
    self.name = name
    self.sdkVersion = sdkVersion
    self.modules = modules
    self.loadTime = .zero
  }

  /// Its modules' contracts, in order.
  package var contracts: [Contract] { modules.map(\.contract) }

  /// Its factories, when every module of it is built in this process (it
  /// was loaded here); nil otherwise.
  package var factoriesInThisProcess: [any ModuleFactory]? {
    let factories = modules.compactMap(\.factory)
    return factories.count == modules.count ? factories : nil
  }
}

/// A file or directory the host refused, and why.
package struct Rejection: Error, Sendable, Equatable, Codable {
  /// Stable names of the reasons, for scripts (`--json`) and tests.
  package enum Kind: String, Sendable, Codable, CaseIterable {
    case missingDirectory = "missing-directory"
    case unsafePermissions = "unsafe-permissions"
    case notRegularFile = "not-a-regular-file"
    case unreadable
    case empty
    case notELF = "not-elf"
    case wrongPlatform = "wrong-platform"
    case notSharedObject = "not-a-shared-object"
    case truncated
    case sdkLibrary = "sdk-library"
    case noEntrySymbol = "no-entry-symbol"
    case dlopenFailed = "dlopen-failed"
    case nullDescriptor = "null-descriptor"
    case badMagic = "bad-magic"
    case incompatible
    case foreignSDKCopy = "foreign-sdk-copy"
    case noModules = "no-modules"
    case invalidContract = "invalid-contract"
    case duplicate
    case relativePath = "relative-path"
    case implausible
    case crashed
    case timedOut = "timed-out"
    case contractsDisagree = "contracts-disagree"
    case badManifest = "bad-manifest"
    case tooManyModules = "too-many-modules"
    /// A new build of a plugin the person decided about asks for a
    /// permission they never decided: off until they do.
    case permissionsWidened = "permissions-widened"
    /// The kernel cannot confine the probe that would run the plugin's
    /// code to learn what it offers.
    case sandboxMissing = "sandbox-missing"
    /// Another loaded file declares the same plugin name: a name is a
    /// claim, and what is granted, stored or set for it would go to both.
    case nameConflict = "name-conflict"
    /// The person turned the plugin off (`vivarium plugins disable`):
    /// its file is fine, and nothing of it runs until it is turned on.
    case disabled
  }

  /// The file or directory refused.
  package let path: String
  /// Which check refused it.
  package let kind: Kind
  /// One sentence per problem: what is wrong and what to do about it.
  package let reasons: [String]
  /// For each reason, the conformance check it fails (CHECKS.md).
  package let checks: [String]
  /// The plugin's declared name, for a plugin turned off (``Kind/disabled``).
  package private(set) var plugin: String?
  /// The URN patterns a plugin turned off offers when on.
  package private(set) var offers: [String] = []

  /// The plugin at `path` kept off because its build asks for the
  /// permissions `asked`, never decided (``Kind/permissionsWidened``).
  /// `invocation` writes the commands that decide.
  package static func widened(
    _ path: String, name: String, asked: [PluginPermission], invocation: Invocation = .plain
  ) -> Rejection {
    let list = asked.map(\.description).joined(separator: ", ")
    let words = asked.map(\.description)
    let stem = PluginIdentity(name: name, path: path).legacyStorageName
    let grant = invocation.command(["permissions", "grant", stem] + words)
    let deny = invocation.command(["permissions", "deny", stem] + words)
    return Rejection(
      path, .permissionsWidened,
      "\(name)'s new build (\(path)) asks for \(list), which you have not decided about, so it stays off; grant with \(grant) or deny with \(deny), then start again; or allow for one session with --allow \(stem)"
    )
  }

  /// The plugin `name` at `path`, which offers the URN patterns `offers`
  /// when on, turned off by the person (``Kind/disabled``); `invocation`
  /// writes the command that turns it on.
  package static func disabled(_ path: String, name: String, offers: [String], invocation: Invocation = .plain)
    -> Rejection
  {
    var rejection = Rejection(
      path, .disabled,
      "\(name) is turned off in this app; turn it on with \(invocation.enabling(name))")
    rejection.plugin = name
    rejection.offers = offers
    return rejection
  }

  init(_ path: String, _ kind: Kind, _ reasons: String...) {
    self.init(path, kind, reasons)
  }

  init(_ path: String, _ kind: Kind, _ reasons: [String], checks: [String]? = nil) {
    self.path = path
    self.kind = kind
    self.reasons = reasons
    self.checks = checks ?? Array(repeating: kind.check, count: reasons.count)
  }
}

extension Rejection {
  /// Whether the file is one of the SDK's own libraries, found in a build
  /// folder: not a plugin, and nothing to fix. Reports list it as skipped.
  package var isSDKLibrary: Bool { kind == .sdkLibrary }
}

extension Rejection.Kind {
  /// The conformance check a rejection of this kind fails.
  package var check: String {
    switch self {
    case .badMagic: CheckID.descriptorMagic.rawValue
    case .incompatible: CheckID.descriptorSdk.rawValue
    case .invalidContract: CheckID.contractWellformed.rawValue
    case .nullDescriptor, .noEntrySymbol, .dlopenFailed, .foreignSDKCopy, .noModules, .crashed, .timedOut,
      .contractsDisagree, .badManifest, .tooManyModules:
      CheckID.loadEntry.rawValue
    // Not a conformance check: `vivarium check` grants nothing and asks nothing.
    case .permissionsWidened, .sandboxMissing, .nameConflict, .disabled: CheckID.loadEntry.rawValue
    case .missingDirectory, .unsafePermissions, .notRegularFile, .unreadable, .empty, .notELF, .wrongPlatform,
      .notSharedObject, .truncated, .sdkLibrary, .duplicate, .relativePath, .implausible:
      CheckID.loadFile.rawValue
    }
  }
}

/// The outcome for one file the host looked at.
package enum PluginOutcome: Sendable {
  /// The plugin loaded.
  case loaded(LoadedPlugin)
  /// The file or directory was refused.
  case rejected(Rejection)

  /// The file or directory this outcome is about.
  package var path: String {
    switch self {
    case .loaded(let plugin): plugin.path
    case .rejected(let rejection): rejection.path
    }
  }
}

extension Invocation {
  /// The command that turns on the plugin `name`, turned off:
  /// `'vivarium plugins enable NAME …'`.
  package func enabling(_ name: String) -> String { command(["plugins", "enable", name]) }
}
