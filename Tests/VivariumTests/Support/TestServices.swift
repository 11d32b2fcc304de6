import Foundation
import Synchronization

@testable import VivariumRuntime

/// Services over a fresh data directory, with the clock fixed at
/// 2026-11-21T12:00:00Z and http replaying the demo's recordings, so that
/// screens showing time or the weather are repeatable.
@MainActor
enum TestServices {
  static let now: Double = 1_795_262_400
  /// How long a test session waits for the modules' work, in real seconds:
  /// a generous bound on a hang, not on a busy machine, where the test
  /// run's other suites may hold the main actor for seconds.
  nonisolated static let settleLimit = 300.0
  /// How long a module in a plugin process may take to answer in a test:
  /// generous, as the main actor the host answers on is the test run's,
  /// shared by every suite; a test of a process not responding names a
  /// short limit of its own.
  nonisolated static let responseLimit: Duration = .seconds(60)

  /// Services keeping their files in `directory`; `signedIn` sets the
  /// setting the demo's route guards ask for (`session.user`).
  static func make(in directory: TemporaryDirectory, signedIn: Bool = true) -> HostServices {
    let services = HostServices(dataDirectory: directory.path, now: now)
    services.httpMode = .replay(BuildProducts.demoHTTP)
    if signedIn { try? services.setSetting(.string("ada"), forKey: "session.user") }
    return services
  }

  /// Services in a directory of their own, removed when the test process ends.
  static func make(signedIn: Bool = true) throws -> HostServices {
    let directory = try TemporaryDirectory()
    Scratch.keep(directory)
    return make(in: directory, signedIn: signedIn)
  }
}

/// Temporary directories that live until the test process ends, then go.
private enum Scratch {
  private static let directories = Mutex<[TemporaryDirectory]>([])

  static func keep(_ directory: TemporaryDirectory) {
    directories.withLock {
      if $0.isEmpty {
        atexit { Scratch.directories.withLock { $0.removeAll() } }
      }
      $0.append(directory)
    }
  }
}
