import CViperKit
import Foundation
import ViperKit
import ViperKitHosting

/// What a plugin offers, carried as JSON in its `vivarium_manifest` ELF
/// section (``ELFFile/manifestSection``), so that the host can check and
/// route to a plugin it has never seen without running any of its code (VS
/// Code and LV2 read manifests the same way). The manifest is a claim: the
/// host checks at activation that the plugin's code declares the same
/// contracts (``PluginActivation``).
public struct PluginManifest: Codable, Equatable, Sendable {
  /// Always ``formatName``.
  public var format: String
  /// The version of this layout: ``currentVersion``.
  public var formatVersion: Int
  /// The plugin's name, as its descriptor gives it.
  public var name: String
  /// The plugin ABI version it was built with.
  public var abiVersion: UInt32
  /// The SDK version it was built against.
  public var sdkVersion: ViperKitVersion
  /// The identity of the Swift compiler that built it.
  public var compiler: String
  /// Its factories' contracts, in order.
  public var contracts: [Contract]

  /// The value of ``format``.
  public static let formatName = "vivarium-plugin-manifest"
  /// The layout this host reads.
  public static let currentVersion = 1

  /// The manifest of a plugin named `name` offering `contracts`, built with
  /// this host's ABI, SDK and compiler.
  public init(name: String, contracts: [Contract]) {
    format = Self.formatName
    formatVersion = Self.currentVersion
    self.name = name
    abiVersion = VK_PLUGIN_ABI_VERSION
    sdkVersion = .current
    compiler = swiftCompilerIdentity()
    self.contracts = contracts
  }

  /// The manifest as the JSON bytes a plugin carries.
  public var bytes: [UInt8] {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    // Encoding plain Codable values cannot fail.
    return Array((try? encoder.encode(self)) ?? Data())
  }

  /// Swift source that makes a plugin carry this manifest: a `@section`
  /// global holding its bytes, kept by the linker (`@used`).
  public var swiftSource: String {
    let bytes = bytes
    let rows = stride(from: 0, to: bytes.count, by: 24).map { start in
      "  " + bytes[start..<min(start + 24, bytes.count)].map { String($0) }.joined(separator: ", ") + ","
    }
    return """
      // The plugin's manifest: its contracts as JSON in the ELF section
      // \(ELFFile.manifestSection), read by the host without running the plugin.
      // Generated; the host checks it against the plugin's contracts when it loads it.
      @section("\(ELFFile.manifestSection)") @used
      let vivariumManifest: InlineArray<\(bytes.count), UInt8> = [
      \(rows.joined(separator: "\n"))
      ]

      """
  }

  /// What the manifest in `bytes` (from the file `path`) says the plugin
  /// offers, or why the plugin is refused: a manifest that cannot be read,
  /// one for another ABI, SDK or compiler, or contracts that are not valid.
  static func record(_ bytes: [UInt8], path: String, knownServices: Set<String>?) -> Result<PluginRecord, Rejection> {
    let fix = "rebuild the plugin so that its manifest is made again"
    guard let manifest = try? JSONDecoder().decode(PluginManifest.self, from: Data(bytes)) else {
      return .failure(
        Rejection(
          path, .badManifest, "its \(ELFFile.manifestSection) section is not a manifest this host can read; \(fix)"))
    }
    guard manifest.format == formatName, manifest.formatVersion == currentVersion else {
      return .failure(
        Rejection(
          path, .badManifest,
          "its manifest is '\(manifest.format)' version \(manifest.formatVersion); this host reads '\(formatName)' version \(currentVersion): \(fix) against this host's SDK"
        ))
    }
    let fields = DescriptorFields(
      magic: VK_PLUGIN_MAGIC, abiVersion: manifest.abiVersion, sdkVersion: manifest.sdkVersion,
      compiler: manifest.compiler)
    if let rejection = DescriptorCheck.rejection(path, fields) {
      let stale =
        "(so its manifest says; a manifest left from an earlier build says so too: make it again with 'vivarium manifest \(path) --swift')"
      return .failure(
        Rejection(
          path, rejection.kind, rejection.reasons + [stale],
          checks: rejection.checks + [rejection.checks.last ?? "descriptor.sdk"]))
    }
    guard !manifest.contracts.isEmpty else {
      return .failure(Rejection(path, .badManifest, "its manifest lists no modules; \(fix)"))
    }
    if let knownServices {
      let problems = manifest.contracts.flatMap { ContractCheck.problems($0, knownServices: knownServices) }
      guard problems.isEmpty else { return .failure(Rejection(path, .invalidContract, problems)) }
    }
    return .success(PluginRecord(name: manifest.name, sdkVersion: manifest.sdkVersion, contracts: manifest.contracts))
  }
}

extension PluginManifest {
  /// The manifest the plugin at `path` should carry, from what its code
  /// declares (loaded by `probe` in a child process), and the one it
  /// carries, nil when it carries none.
  public static func inspect(_ path: String, probe: PluginProbe) -> (
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
    let declared = probe.scan([file]).first?.map { PluginManifest(name: $0.name, contracts: $0.contracts) }
    let carried = elf.manifest.map { record($0, path: path, knownServices: nil) }
    return (declared ?? .failure(Rejection(path, .crashed, "the probe gave no report")), carried)
  }

  /// Why the manifest `carried` does not describe the plugin at `path`
  /// whose code declares `contracts`, one sentence per difference; empty
  /// when it does.
  public static func differences(_ carried: PluginRecord, from contracts: [Contract], path: String) -> [String] {
    ContractDisagreement(path: path, recorded: carried.contracts, loaded: contracts, source: .manifest)?
      .differences ?? []
  }
}
