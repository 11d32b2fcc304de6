/// The version of the Vivarium host.
package enum VivariumVersion {
  /// `major.minor.patch` of this build of the host.
  package static let current = "0.1.0"
}
