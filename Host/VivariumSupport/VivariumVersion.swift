/// The version of the Vivarium host.
public enum VivariumVersion {
  /// `major.minor.patch` of this build of the host.
  public static let current = "0.1.0"
}
