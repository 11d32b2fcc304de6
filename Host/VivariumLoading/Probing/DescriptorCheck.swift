import CViperKit
import ViperKit
import ViperKitHosting

/// The fixed fields of a plugin descriptor, copied out of the plugin's memory.
struct DescriptorFields: Equatable {
  var magic: UInt32
  var abiVersion: UInt32
  var sdkVersion: ViperKitVersion
  var compiler: String

  init(magic: UInt32, abiVersion: UInt32, sdkVersion: ViperKitVersion, compiler: String) {
    self.magic = magic
    self.abiVersion = abiVersion
    self.sdkVersion = sdkVersion
    self.compiler = compiler
  }

  init(_ descriptor: VKPluginDescriptor) {
    magic = descriptor.magic
    abiVersion = descriptor.abi_version
    sdkVersion = ViperKitVersion(
      major: Int(descriptor.sdk_major), minor: Int(descriptor.sdk_minor), patch: Int(descriptor.sdk_patch))
    compiler = descriptor.swift_compiler.map { String(cString: $0) } ?? "(none)"
  }

  /// The host's own values: what a plugin must match.
  static var host: DescriptorFields {
    DescriptorFields(
      magic: VK_PLUGIN_MAGIC, abiVersion: VK_PLUGIN_ABI_VERSION, sdkVersion: .current,
      compiler: swiftCompilerIdentity())
  }
}

/// The compatibility rule, field by field (docs/writing-a-plugin.md, "Compatibility"):
/// - magic equals `VK_PLUGIN_MAGIC`;
/// - plugin ABI version equals the host's;
/// - SDK major equals the host's, and the plugin's minor is no newer;
/// - the Swift compiler identity equals the host's.
enum DescriptorCheck {
  /// Why a plugin with these fields cannot load, or nil if it can. Every
  /// mismatching field is named with the host's value and the plugin's.
  static func rejection(_ path: String, _ plugin: DescriptorFields, host: DescriptorFields = .host) -> Rejection? {
    guard plugin.magic == host.magic else {
      return Rejection(
        path, .badMagic,
        "magic: host expects \(hex(host.magic)) ('VIPR'), plugin has \(hex(plugin.magic)); the entry symbol must return PluginEntry.descriptor(for:) from ViperKit"
      )
    }
    var reasons: [String] = []
    var checks: [String] = []
    let sdk = "ViperKit \(host.sdkVersion)"
    if plugin.abiVersion != host.abiVersion {
      checks.append(CheckID.descriptorAbi.rawValue)
      reasons.append(
        "plugin ABI: host has \(host.abiVersion), plugin has \(plugin.abiVersion); rebuild the plugin against \(sdk)")
    }
    if plugin.sdkVersion.major != host.sdkVersion.major {
      checks.append(CheckID.descriptorSdk.rawValue)
      reasons.append(
        "SDK version: host has \(sdk), plugin has ViperKit \(plugin.sdkVersion); the major versions differ, rebuild the plugin against ViperKit \(host.sdkVersion.major).x (at most \(host.sdkVersion.major).\(host.sdkVersion.minor))"
      )
    } else if plugin.sdkVersion.minor > host.sdkVersion.minor {
      checks.append(CheckID.descriptorSdk.rawValue)
      reasons.append(
        "SDK version: host has \(sdk), plugin has ViperKit \(plugin.sdkVersion), which is newer; rebuild the plugin against ViperKit \(host.sdkVersion.major).\(host.sdkVersion.minor) or upgrade the host"
      )
    }
    if plugin.compiler != host.compiler {
      checks.append(CheckID.descriptorCompiler.rawValue)
      reasons.append(
        "Swift compiler: host has \(host.compiler), plugin has \(plugin.compiler); rebuild the plugin with the host's toolchain (Swift has no stable ABI on Linux)"
      )
    }
    return reasons.isEmpty ? nil : Rejection(path, .incompatible, reasons, checks: checks)
  }

  private static func hex(_ value: UInt32) -> String { "0x" + String(value, radix: 16, uppercase: true) }
}
