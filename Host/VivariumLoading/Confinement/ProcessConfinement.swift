import CVivariumSystem
import Foundation
import Synchronization

/// How a process that runs plugin code (a plugin process, a probe)
/// confines itself, once, after it has made what it needs to load the
/// plugin and before the plugin's first instruction runs (issue 30; see
/// docs/sandbox.md): its environment scrubbed to what a plugin needs, then
/// ``vivarium_confine(_:)``: no new privileges, not dumpable, no
/// capabilities, limits, and a seccomp filter refusing what no plugin needs.
package enum ProcessConfinement {
  /// The most descriptors a confined process may have open.
  static let openFiles: Int32 = 256
  /// What a plugin keeps of the environment it was started with: its
  /// language and time zone, and whether Swift's backtracer runs. Nothing
  /// else (tokens, `SSH_AUTH_SOCK`, the host's paths) reaches it.
  static let keptVariables: Set = ["LANG", "LANGUAGE", "LC_ALL", "LC_CTYPE", "LC_MESSAGES", "TZ", "SWIFT_BACKTRACE"]

  private static let confined = Atomic<Bool>(false)

  /// Confines this process; the second call does nothing. A process that
  /// cannot be confined says why on stderr and exits with status 70: no
  /// plugin code runs unconfined.
  package static func confine() {
    guard !confined.exchange(true, ordering: .relaxed) else { return }
    scrubEnvironment()
    guard vivarium_confine(openFiles) >= 0 else {
      let reason = String(cString: strerror(errno))
      FileHandle.standardError.write(
        Data("vivarium: cannot confine the plugin's process (\(reason)); not loading it\n".utf8))
      exit(70)
    }
  }

  /// Clears every variable but ``keptVariables``.
  private static func scrubEnvironment() {
    let kept = ProcessInfo.processInfo.environment.filter { keptVariables.contains($0.key) }
    clearenv()
    for (name, value) in kept { setenv(name, value, 1) }
  }
}
