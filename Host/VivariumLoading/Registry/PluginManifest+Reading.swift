import CViperKit
import Foundation
import ViperKit
import ViperKitHosting

/// Reading a plugin's manifest (the SDK's ``PluginManifest``, carried in
/// the ELF section ``PluginManifest/sectionName``) so that the host can
/// check and route to a plugin it has never seen without running any of its
/// code (VS Code and LV2 read manifests the same way). The manifest is a
/// claim: the host checks at activation that the plugin's code declares the
/// same contracts (``PluginActivation``).
extension PluginManifest {
  /// What the manifest in `bytes` (from the file `path`) says the plugin
  /// offers, or why the plugin is refused: a manifest that cannot be read,
  /// one for another ABI, SDK or compiler, or (`validatingContracts`)
  /// contracts that are not valid.
  static func record(_ bytes: [UInt8], path: String, validatingContracts: Bool) -> Result<PluginRecord, Rejection> {
    let fix = ManifestAdvice.remake(path)
    guard let manifest = PluginManifest(json: bytes) else {
      // One made for another SDK may hold what this one cannot read (a
      // host service this SDK does not name): it is refused for its SDK.
      if let stamp = try? JSONDecoder().decode(Stamp.self, from: Data(bytes)),
        let rejection = stamp.rejection(path, fix: fix)
      {
        return .failure(rejection)
      }
      let count = bytes.split(separator: UInt8(ascii: "}")).count { $0.starts(with: Array(#"{"abiVersion""#.utf8)) }
      let what =
        count > 1
        ? "holds \(count) manifests: the plugin compiles more than one manifest file; keep only the one its build writes"
        : "is not a manifest this host can read; \(fix)"
      return .failure(Rejection(path, .badManifest, "its \(PluginManifest.sectionName) section \(what)"))
    }
    let stamp = Stamp(
      format: manifest.format, formatVersion: manifest.formatVersion, abiVersion: manifest.abiVersion,
      sdkVersion: manifest.sdkVersion, compiler: manifest.compiler)
    if let rejection = stamp.rejection(path, fix: fix) { return .failure(rejection) }
    guard !manifest.contracts.isEmpty else {
      return .failure(Rejection(path, .badManifest, "its manifest lists no modules; \(fix)"))
    }
    if let tooMany = PluginLimits.rejection(path, count: manifest.contracts.count) { return .failure(tooMany) }
    if validatingContracts {
      let problems = manifest.contracts.flatMap(ContractCheck.problems)
      guard problems.isEmpty else { return .failure(Rejection(path, .invalidContract, problems)) }
    }
    return .success(
      PluginRecord(
        name: manifest.name, sdkVersion: manifest.sdkVersion, contracts: manifest.contracts, version: manifest.version,
        provides: manifest.provides, hosts: manifest.hosts, topics: PluginTopics(manifest)))
  }

  /// What a manifest says it was made for, read also from one whose
  /// contracts this host cannot read.
  private struct Stamp: Decodable {
    let format: String
    let formatVersion: Int
    let abiVersion: UInt32
    let sdkVersion: ViperKitVersion
    let compiler: String

    /// Why a plugin whose manifest says this is refused, nil when it is
    /// not: another layout, ABI, SDK or compiler.
    func rejection(_ path: String, fix: String) -> Rejection? {
      guard format == formatName, formatVersion == currentVersion else {
        return Rejection(
          path, .badManifest,
          "its manifest is '\(format)' version \(formatVersion); this host reads '\(formatName)' version \(currentVersion): \(fix) against this host's SDK"
        )
      }
      let fields = DescriptorFields(
        magic: VK_PLUGIN_MAGIC, abiVersion: abiVersion, sdkVersion: sdkVersion, compiler: compiler)
      guard let rejection = DescriptorCheck.rejection(path, fields) else { return nil }
      let stale = "(so its manifest says; a manifest left from an earlier build says so too: \(fix))"
      return Rejection(
        path, rejection.kind, rejection.reasons + [stale],
        checks: rejection.checks + [rejection.checks.last ?? "descriptor.sdk"])
    }
  }
}

extension PluginManifest {
  /// The manifest the plugin at `path` should carry, from what its code
  /// declares (loaded by `probe` in a child process), and the one it
  /// carries, nil when it carries none.
  package static func inspect(_ path: String, probe: PluginProbe) -> (
    declared: Result<PluginManifest, Rejection>, carried: Result<PluginRecord, Rejection>?
  ) {
    let file: PluginFile
    let elf: ELFFile
    do {
      file = try PluginFile.open(path)
      elf = try PluginLoader.checkHeaders(file)
    } catch {
      return (.failure(error), nil)
    }
    defer { file.close() }
    let declared = probe.scan([file]).first?.map {
      var manifest = PluginManifest(
        name: $0.name, contracts: $0.contracts, sdkVersion: $0.sdkVersion, compiler: swiftCompilerIdentity(),
        version: $0.version, provides: $0.provides, hosts: $0.hosts)
      manifest.publishes = $0.topics.publishes.map(EventDeclaration.init(topic:))
      manifest.subscribes = $0.topics.subscribes.map(EventDeclaration.init(topic:))
      return manifest
    }
    let carried = elf.manifest.map { record($0, path: path, validatingContracts: false) }
    return (declared ?? .failure(Rejection(path, .crashed, "the probe gave no report")), carried)
  }

  /// Why the manifest `carried` does not describe the plugin at `path`
  /// whose code declares `contracts`, the http `hosts` and the business
  /// services it `provides`, one sentence per difference; empty when it does.
  package static func differences(
    _ carried: PluginRecord, from contracts: [Contract], hosts: [String], provides: [ServiceProvision],
    topics: PluginTopics, path: String
  ) -> [String] {
    var found =
      ContractDisagreement(path: path, recorded: carried.contracts, loaded: contracts, source: .manifest)?
      .differences ?? []
    if Set(carried.hosts) != Set(hosts) {
      found.append(
        "the manifest names the hosts \(list(carried.hosts)) but the code declares \(list(hosts)): the permissions a person grants are read from the manifest, so they must agree"
      )
    }
    if Set(carried.provides) != Set(provides) {
      let names = { (provisions: [ServiceProvision]) in provisions.map { "\($0.service) \($0.version)" } }
      found.append(
        "the manifest says the plugin provides \(list(names(carried.provides))) but the code provides \(list(names(provides)))"
      )
    }
    if carried.topics != topics {
      found.append(
        "the manifest says the plugin publishes \(list(carried.topics.publishes)) and subscribes to \(list(carried.topics.subscribes)) but the code publishes \(list(topics.publishes)) and subscribes to \(list(topics.subscribes))"
      )
    }
    return found
  }

  private static func list(_ items: [String]) -> String {
    items.isEmpty ? "none" : items.sorted().map { "'\($0)'" }.joined(separator: ", ")
  }
}

/// What to tell the author of a plugin whose manifest is missing or stale.
package enum ManifestAdvice {
  /// How to make the manifest of the plugin at `path` again.
  package static func remake(_ path: String) -> String {
    "rebuild the plugin: a package made by 'vivarium new' writes its manifest on every build (docs/writing-a-plugin.md, \"The package\"); one built some other way needs the output of 'vivarium manifest \(path) --swift' among its sources, once"
  }
}
