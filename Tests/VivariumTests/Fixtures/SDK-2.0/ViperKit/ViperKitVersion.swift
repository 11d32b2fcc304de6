import CViperKit

/// A ViperKit SDK version, `major.minor.patch`.
///
/// The host loads a plugin when the plugin's SDK major equals the host's and
/// the plugin's minor is no newer than the host's; the patch never matters.
/// You do not create these: the host reads them from plugin descriptors.
public struct ViperKitVersion: Comparable, Hashable, Sendable, Codable, CustomStringConvertible {
  /// Raised on a breaking change to the SDK's public API.
  public var major: Int
  /// Raised when public API is added.
  public var minor: Int
  /// Raised for fixes that change no public API.
  public var patch: Int

  /// Creates a version from its three parts.
  public init(major: Int, minor: Int, patch: Int) {
    self.major = major
    self.minor = minor
    self.patch = patch
  }

  /// The version of the `libViperKit.so` running in this process.
  ///
  /// In a plugin this is the host's SDK, not the one the plugin was compiled
  /// against; the latter travels in the plugin's descriptor.
  public static var current: ViperKitVersion {
    ViperKitVersion(
      major: Int(VIPERKIT_VERSION_MAJOR), minor: Int(VIPERKIT_VERSION_MINOR),
      patch: Int(VIPERKIT_VERSION_PATCH))
  }

  /// `major.minor.patch`.
  public var description: String { "\(major).\(minor).\(patch)" }

  /// Orders by major, then minor, then patch.
  public static func < (lhs: ViperKitVersion, rhs: ViperKitVersion) -> Bool {
    (lhs.major, lhs.minor, lhs.patch) < (rhs.major, rhs.minor, rhs.patch)
  }
}

/// The version of this `libViperKit.so` as `major << 16 | minor << 8 | patch`,
/// exported as the C symbol `viperkit_library_version`.
///
/// It lets tools tell the SDK library apart from a plugin, and read its
/// version, without Swift. Plugins do not call it.
@_cdecl("viperkit_library_version")
public func viperKitLibraryVersion() -> UInt32 {
  UInt32(VIPERKIT_VERSION_MAJOR) << 16 | UInt32(VIPERKIT_VERSION_MINOR) << 8 | UInt32(VIPERKIT_VERSION_PATCH)
}
